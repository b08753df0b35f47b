// The weights a speculative-decoding proposer adds on the target's last pipeline stage, per method,
// as vLLM v1 loads them (vllm/v1/spec_decode/eagle.py EagleProposer.load_model, v0.11):
//   ngram / suffix   nothing on the GPU (n-gram matching runs on the CPU)
//   eagle            fc [h, 2h] + the head's decoder layer(s); embed_tokens and lm_head shared
//                    with the target (load_model points the drafter at the target's)
//   eagle3           fc [h, 3h] (three of the target's hidden states), the first layer's q/k/v over
//                    2h (token embedding ++ hidden state), a hidden_norm, its own lm_head over
//                    draft_vocab_size and the draft-to-target id map (int64); embed_tokens shared
//                    (llama_eagle3.py)
//   mtp / *_mtp      num_nextn_predict_layers (1 in DeepSeek-V3/R1) layers of the target's last
//                    layer's shape with enorm, hnorm, eh_proj [h, 2h] (an unquantized nn.Linear,
//                    deepseek_mtp.py) and the shared_head's norm and lm_head; embed_tokens shared
//   draft_model      the draft model whole
#ifndef KVSIM_KVCACHE_BUDGET_SPECULATIVE_MEMORY_H_
#define KVSIM_KVCACHE_BUDGET_SPECULATIVE_MEMORY_H_

#include <optional>
#include <string>
#include <vector>

#include "kvcache/budget/deployment_settings.h"
#include "kvcache/budget/weight_memory.h"
#include "kvcache/model/model_spec.h"
#include "kvcache/model/quantization.h"

namespace kvsim {

// The method, spelled as vLLM's SpeculativeConfig groups them.
enum class ProposerKind { kNone, kNgram, kEagle, kEagle3, kMtp, kDraftModel, kMedusa };
ProposerKind ClassifyProposer(const SpeculativeSettings& speculative);

struct DraftWeights {
  WeightMemory memory;   // on one GPU of the last stage
  std::string what;      // "EAGLE-3 head (1 layer, draft vocab 32,000)"
};

// REQUIRES: tp >= 1. `target_tensors` are EnumerateWeights(target); `quant` the target's, used for
// MTP layers (stored like the target's, e.g. FP8 blocks in DeepSeek-V3).
DraftWeights DraftWeightsOnGpu(const ModelSpec& target, const std::vector<WeightTensor>& target_tensors,
                               const SpeculativeSettings& speculative, const QuantizationSpec& quant,
                               NumericFormat dtype, int tp);

// The model one drafter pass runs, for timing it: EAGLE / EAGLE-3 heads and MTP layers as a model
// of their own layers over the target's (or the draft config's) shape, the draft model as it is.
// nullopt for proposers without a GPU forward (n-gram) or not timed (medusa).
std::optional<ModelSpec> ProposerModel(const ModelSpec& target, const SpeculativeSettings& speculative);

// Drafter forwards per step: k for EAGLE, EAGLE-3, MTP and draft models (eagle.py propose loops
// num_speculative_tokens times; MTP with one layer reuses it for every position), 0 otherwise.
int64_t ProposerPasses(const SpeculativeSettings& speculative);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_SPECULATIVE_MEMORY_H_
