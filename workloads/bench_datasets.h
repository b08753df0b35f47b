// The synthetic datasets of the serving benchmarks people run, by name, so that a published
// benchmark can be replayed as it was run (each generator follows the benchmark's own code; the
// token ids themselves do not matter to kvsim, only lengths and which prompt blocks repeat):
//
//   random            vllm bench serve --dataset-name random (vllm/benchmarks/datasets.py,
//                     RandomDataset): input and output lengths drawn uniformly from the integers in
//                     [floor(L(1-r)), ceil(L(1+r))] (output at least 1), after one random prefix of
//                     --random-prefix-len tokens that every request shares.
//   prefix_repetition vllm bench serve --dataset-name prefix_repetition
//                     (PrefixRepetitionRandomDataset): num_prefixes prefixes, N / num_prefixes prompts
//                     each (prefix + a random suffix), shuffled; a shortfall drawn again at random
//                     from them (maybe_oversample_requests).
//   shared_prefix     inference-perf's shared-prefix generator (inference_perf/datagen/
//                     shared_prefix_datagen.py): num_groups system prompts, num_prompts_per_group
//                     questions each (system prompt + question), shuffled, and sent round and round.
//
// The benchmarks count tokens with the model's tokenizer and subtract its special tokens from the
// random input length; kvsim has no tokenizer, so lengths are the requested token counts.
#ifndef KVSIM_WORKLOADS_BENCH_DATASETS_H_
#define KVSIM_WORKLOADS_BENCH_DATASETS_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "kvcache/base/enum_names.h"
#include "workloads/request_source.h"
#include "workloads/synthetic.h"

namespace kvsim {

enum class BenchDataset { kRandom, kPrefixRepetition, kSharedPrefix };
template <>
struct EnumNames<BenchDataset> {
  static constexpr EnumEntry<BenchDataset> kEntries[] = {{BenchDataset::kRandom, "random"},
                                                         {BenchDataset::kPrefixRepetition, "prefix_repetition"},
                                                         {BenchDataset::kSharedPrefix, "shared_prefix"}};
};

// The lengths each dataset reads; unset fields take the benchmark's defaults (BenchDatasetSpec).
struct BenchDatasetOptions {
  std::optional<BenchDataset> name;  // nullopt: no named dataset
  // random (vLLM's defaults 1024, 128, 0.0, 0)
  std::optional<int64_t> random_input_len, random_output_len, random_prefix_len;
  std::optional<double> random_range_ratio;
  // prefix_repetition (vLLM's defaults 256, 256, 10, 128)
  std::optional<int64_t> prefix_repetition_prefix_len, prefix_repetition_suffix_len, prefix_repetition_num_prefixes,
      prefix_repetition_output_len;
  // shared_prefix (inference-perf: every field required)
  std::optional<int64_t> num_groups, num_prompts_per_group, system_prompt_len, question_len, output_len;
  bool operator==(const BenchDatasetOptions&) const = default;
};

// Whether the dataset's prompts share blocks (a shared prefix), so requests carry block ids.
bool BenchDatasetHasBlockIds(const BenchDatasetOptions& options);

// Checks the options: a field of another dataset than the one named, or a length out of range, is
// refused naming its flag. Throws kvsim::Error.
void ValidateBenchDataset(const BenchDatasetOptions& options);

// `count` requests of the named dataset at the generator's arrival times. REQUIRES: options.name.
std::unique_ptr<RequestSource> MakeBenchDatasetSource(const BenchDatasetOptions& options, int64_t count,
                                                      ArrivalGenerator arrivals, uint64_t seed);

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_BENCH_DATASETS_H_
