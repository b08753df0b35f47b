// The space `kvsim plan` searches: GPU type x tensor parallel x pipeline parallel x weight format x
// KV-cache dtype x max-num-seqs x max-num-batched-tokens, one configuration per combination (the
// replica count is searched per configuration, sim/plan/plan_search.h). Every configuration is
// sized by the capacity planner before anything is replayed: one that would not start (does not fit,
// TP not dividing the heads, a setting the model refuses) is skipped with vLLM's reason.
#ifndef KVSIM_SIM_PLAN_PLAN_SPACE_H_
#define KVSIM_SIM_PLAN_PLAN_SPACE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/sweep/variant.h"

namespace kvsim {

// The checkpoint's own weight format (no --quantization flag).
inline constexpr const char* kCheckpointFormat = "checkpoint";

struct PlanAxes {
  std::vector<std::string> gpus;               // GPU ids of the GPU table
  std::vector<int> tensor_parallel = {1, 2, 4, 8};
  std::vector<int> pipeline_parallel = {1};
  std::vector<std::string> formats = {kCheckpointFormat};  // or --quantization values (fp8, awq, ...)
  std::vector<std::string> kv_cache_dtypes = {"auto"};
  std::vector<int64_t> max_num_seqs = {64, 256};
  std::vector<int64_t> max_num_batched_tokens = {2048, 8192};
};

// One configuration: a replica's settings (the replica count is searched).
struct PlanConfig {
  std::string gpu;
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  std::string format = kCheckpointFormat;
  std::string kv_cache_dtype = "auto";
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;

  int64_t GpusPerReplica() const { return static_cast<int64_t>(tensor_parallel) * pipeline_parallel; }
  // "h100 tp2 fp8 seqs=256 tokens=8192" (pp and the KV dtype only when not the defaults).
  std::string Label() const;
  // What the rejected-families summary groups by: "fp8 on h100".
  std::string Family() const;
  // The kvsim options that set this configuration on top of the shared command line.
  std::vector<std::string> Overrides() const;
};

struct SkippedConfig {
  PlanConfig config;
  std::string reason;  // why it would not start
};

struct PlanSpace {
  std::vector<PlanConfig> configs;     // every configuration that starts, in axis order
  std::vector<SkippedConfig> skipped;  // and those that do not, with the reason
};

// Builds a configuration's variant at one replica; throws kvsim::Error when vLLM would refuse it.
using ConfigVariantMaker = std::function<Variant(const PlanConfig&)>;

// Every combination of the axes (the GPU outermost), each sized: a variant the maker refuses or the
// capacity planner says does not fit is skipped with the reason. `variants` (optional) receives the
// variant of every configuration that starts, in the order of `configs`.
PlanSpace ExpandPlanSpace(const PlanAxes& axes, const ConfigVariantMaker& make, std::vector<Variant>* variants = nullptr);

// The skipped configurations grouped by format, GPU and parallelism ("fp8 on l4 tp1"), in axis
// order: the batch settings seldom change whether a model fits, so one reason speaks for the group.
struct SkipGroup {
  std::string what;
  int64_t count = 0;
  std::string reason;  // the first configuration's
};
std::vector<SkipGroup> SummariseSkipped(const std::vector<SkippedConfig>& skipped);

}  // namespace kvsim

#endif  // KVSIM_SIM_PLAN_PLAN_SPACE_H_
