#include "sim/run/speculation_setup.h"

#include <algorithm>
#include <utility>

#include "kvcache/base/check.h"
#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"
#include "kvcache/budget/release_rules.h"
#include "kvcache/budget/speculative_memory.h"
#include "sim/engine/speculation.h"
#include "sim/timing/drafting_prologue.h"
#include "sim/timing/lora_host.h"

namespace kvsim {

bool Speculating(const SpeculativeSettings& sp) { return !sp.method.empty() && sp.num_speculative_tokens > 0; }

std::vector<double> ResolveAcceptanceRates(const SpeculativeSettings& sp, const std::string& text, const std::string& command) {
  if (!Speculating(sp)) {
    if (!text.empty()) throw Error("--spec-acceptance: needs a --speculative-config with num_speculative_tokens > 0");
    return {};
  }
  if (text.empty())
    throw Error("--speculative-config: " + command +
                " needs --spec-acceptance (how often drafts are accepted depends on the "
                "drafter and the text; vLLM logs it as the per-position acceptance rate)");
  std::vector<double> given;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    given.push_back(ParseFiniteNumber(text.substr(start, comma - start), "--spec-acceptance"));
    start = comma + 1;
  }
  return AcceptanceRates(given, sp.num_speculative_tokens);
}

CapacityResult DrafterCapacity(const SpeculativeSettings& sp, const CapacityResult& cap) {
  KVSIM_CHECK(!cap.stages.empty(), "a capacity plan has at least one stage");
  CapacityResult c = cap;
  // vLLM v1 loads the drafter on the last pipeline stage with the target's TP; its attention layers
  // have KV cache tensors of their own (registered beside the target's, gpu_model_runner.py
  // initialize_kv_cache), which are all a drafter pass reads.
  StageCapacity st;
  st.layout.bytes_per_token = cap.stages.back().draft_kv_bytes_per_token;
  c.stages = {st};
  c.settings.pipeline_parallel_size = 1;
  // Stored as speculative_memory.h plans them: EAGLE heads unquantized, MTP layers like the target's,
  // a draft model in its checkpoint's format.
  const ProposerKind kind = ClassifyProposer(sp);
  if (kind == ProposerKind::kEagle || kind == ProposerKind::kEagle3) c.weight_quantization = QuantizationSpec{};
  if (kind == ProposerKind::kDraftModel && sp.draft) c.weight_quantization = sp.draft->checkpoint_quantization;
  return c;
}

DrafterPassLaunches DrafterPassLaunchesFor(const SpeculativeSettings& sp, int64_t drafter_layers) {
  DrafterPassLaunches l;
  // propose()'s loop body before the forward: the drafts cast to int32, positions + 1, the
  // max_model_len test and clamp, seq_lens + 1 and its masked_fill_, the slot mapping (block number,
  // block-table gather, block id x block size + offset: 3) and its masked_fill_, and the copies
  // into the input_ids / positions / hidden_states buffers the graph reads (3).
  l.input_updates = 15;
  // EAGLE-3 (llama_eagle3.py compute_logits): the draft vocabulary's logits scattered into the
  // target's, -inf elsewhere: arange, add, new_full, index_put_.
  if (ClassifyProposer(sp) == ProposerKind::kEagle3) l.input_updates += 4;
  // Outside the piecewise graph besides: each layer's attention op (KV write + attention) and
  // compute_logits' lm_head GEMM and the argmax.
  l.host_kernels = l.input_updates + 2 * drafter_layers + 2;
  l.graph_pieces = drafter_layers + 1;
  return l;
}

std::vector<ExtraGemm> DrafterExtraGemms(const ModelSpec& target, const ModelSpec& drafter, const SpeculativeSettings& sp,
                                         int tp) {
  const ProposerKind kind = ClassifyProposer(sp);
  if (kind == ProposerKind::kEagle) return {{"fc", drafter.hidden_size, 2 * target.hidden_size}};
  if (kind == ProposerKind::kMtp) return {{"eh_proj", target.hidden_size, 2 * target.hidden_size}};
  if (kind == ProposerKind::kEagle3) {
    const int64_t heads = drafter.num_attention_heads / tp, kv_heads = std::max<int64_t>(1, drafter.num_kv_heads / tp);
    return {{"qkv_proj_embeds", (heads + 2 * kv_heads) * drafter.head_dim, drafter.hidden_size}};
  }
  return {};
}

std::unique_ptr<DraftingTimer> MakeProposerTimer(const Deployment& d, const CapacityResult& cap,
                                                 const StepModelOptions& target) {
  const std::optional<ModelSpec> model = ProposerModel(d.model, d.config.speculative);
  const int64_t passes = ProposerPasses(d.config.speculative);
  if (!model || target.fixed_step_ms > 0 || passes == 0) return nullptr;
  StepModelOptions options = target;
  // The drafter runs without CUDA graphs under --enforce-eager, with its own "enforce_eager", and on
  // V1 releases before its passes were put under torch.compile and graphs (ReleaseRule::
  // kDrafterCudaGraphs): every kernel of a pass is then launched from Python.
  const VllmVersion version = ParseVllmVersion(d.config.vllm_version);
  options.enforce_eager = target.enforce_eager || d.config.speculative.enforce_eager ||
                          (version.era() != VllmEra::kV0 && !HasRule(version, ReleaseRule::kDrafterCudaGraphs));
  // A pass's host work is its launches alone (the step's scheduling and input handling are the
  // target's, counted once): with graphs, the kernels outside the captured pieces and the pieces
  // beyond the one the step model replays; eagerly, the input updates besides the forward's own.
  const DrafterPassLaunches l = DrafterPassLaunchesFor(d.config.speculative, model->num_layers);
  const KernelEfficiency& e = target.efficiency;
  const double host_us = options.enforce_eager ? static_cast<double>(l.input_updates) * e.launch_us
                                              : static_cast<double>(l.host_kernels) * e.launch_us +
                                                    static_cast<double>(l.graph_pieces - 1) * e.graph_launch_us;
  options.efficiency.step_overhead_ms = host_us * 1e-3;
  options.input_update_kernels = l.input_updates;
  options.extra_gemms = DrafterExtraGemms(d.model, *model, d.config.speculative, cap.settings.tensor_parallel_size);
  // propose() issues every pass without waiting for the GPU (the drafts stay on the device until
  // the step ends), so a pass's launches overlap the previous one's kernels.
  options.overlap_host = true;
  auto pass = std::make_unique<StepModel>(*model, DrafterCapacity(d.config.speculative, cap), d.gpu, options);
  // One pass's preparation per step runs with the GPU idle (DraftingTimer): all of its host work,
  // the launches above and, with graphs, the replay the pass model's overhead adds for the first
  // piece; eagerly, the forward's own kernels too, each launched from Python.
  const double prepare_us = host_us + (options.enforce_eager ? pass->EagerLaunchSeconds() * 1e6 : e.graph_launch_us);
  // Before that, the step's drafting prologue: the drafter's inputs built after the accepted tokens
  // are read back, and propose()'s two scalar reads (drafting_prologue.h).
  const bool eagle3 = ClassifyProposer(d.config.speculative) == ProposerKind::kEagle3;
  const double prologue_s = EagleDraftingPrologue(eagle3).Seconds(e, LoraHostCosts{}.triton_launch_s);
  return std::make_unique<DraftingTimer>(std::move(pass), d.config.speculative.num_speculative_tokens, passes,
                                         prepare_us * 1e-6, prologue_s);
}

std::string UntimedProposerNote(const SpeculativeSettings& sp) {
  if (!Speculating(sp) || ProposerPasses(sp) > 0) return "";
  return "--speculative-config: the " + sp.method + " proposer's own time is not modelled" +
         (ClassifyProposer(sp) == ProposerKind::kNgram ? " (n-gram matching runs on the CPU)" : "");
}

}  // namespace kvsim
