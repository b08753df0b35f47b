// Which layers of a DeepSeek-sparse-attention model run a top-k indexer of their own. GLM-5.2's
// IndexShare (arXiv 2603.12201) builds the indexer, its weights and its key cache on some layers only;
// the others reuse the top-k of the last layer that ran one. vLLM decides per layer in its DSA
// attention (models/deepseek_v32/attention.py, where GlmMoeDsaForCausalLM is served):
//   skip_topk = max(layer - index_skip_topk_offset + 1, 0) % index_topk_freq != 0
// (offset 2 and frequency 1 when absent: every layer runs one), or, when the config gives
// index_topk_pattern, a layer runs one unless its letter is 'S'. A config's indexer_types list
// ("full" or "shared" per layer) states the same schedule; one that disagrees with it is refused.
#ifndef KVSIM_KVCACHE_MODEL_INDEXER_SCHEDULE_H_
#define KVSIM_KVCACHE_MODEL_INDEXER_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "kvcache/model/config_field_reader.h"

namespace kvsim {

// Per layer of `layers`, whether it runs an indexer of its own; empty when every layer does. Throws
// kvsim::Error naming the field for a schedule vLLM could not build (a frequency below 1, a list or
// pattern of another length, a layer kind other than full or shared, lists that disagree).
std::vector<bool> ReadIndexerSchedule(const FieldReader& r, int64_t layers);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_INDEXER_SCHEDULE_H_
