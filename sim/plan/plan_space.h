// The space `kvsim plan` searches: GPU type x tensor parallel x pipeline parallel x weight format x
// KV-cache dtype x max-num-seqs x max-num-batched-tokens x aggregated or prefill/decode split (P:D
// ratios), one configuration per combination (the replica count, or for a P/D configuration the
// number of P:D units, is searched per configuration, sim/plan/plan_search.h). Every configuration is
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

// A prefill/decode split: P prefill and D decode instances make one unit; k units run k x P
// prefill and k x D decode instances (sim/disagg/), so the unit count grows the fleet the way the
// replica count grows an aggregated one.
struct PdRatio {
  int64_t prefill = 0;
  int64_t decode = 0;
  bool operator==(const PdRatio&) const = default;
};

struct PlanAxes {
  std::vector<std::string> gpus;               // GPU ids of the GPU table
  std::vector<int> tensor_parallel = {1, 2, 4, 8};
  std::vector<int> pipeline_parallel = {1};
  std::vector<std::string> formats = {kCheckpointFormat};  // or --quantization values (fp8, awq, ...)
  std::vector<std::string> kv_cache_dtypes = {"auto"};
  std::vector<int64_t> max_num_seqs = {64, 256};
  std::vector<int64_t> max_num_batched_tokens = {2048, 8192};
  // Each adds a P/D configuration next to every aggregated one; the decode pool runs the prefill
  // pool's settings (same GPU, TP, PP, format, KV dtype and batch caps).
  std::vector<PdRatio> pd_ratios;
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
  PdRatio pd;  // {0, 0}: aggregated

  bool Disaggregated() const { return pd.prefill > 0; }
  // The instances of one searched unit: 1 aggregated, P + D for a P/D configuration.
  int64_t InstancesPerReplica() const { return Disaggregated() ? pd.prefill + pd.decode : 1; }
  // A "replica" of the search is one unit: its GPUs are those of every instance in it.
  int64_t GpusPerReplica() const { return InstancesPerReplica() * tensor_parallel * pipeline_parallel; }
  // "h100 tp2 fp8 seqs=256 tokens=8192" (pp and the KV dtype only when not the defaults; " P/D 1:2"
  // for a split).
  std::string Label() const;
  // What the rejected-families summary groups by: "fp8 on h100" ("fp8 on h100 P/D 1:2").
  std::string Family() const;
  // " P/D 1:2" for a split, "" aggregated.
  std::string PdSuffix() const;
  // The kvsim options that set this configuration on top of the shared command line (a P/D one at
  // one unit: the search sets the pools' instance counts per unit count).
  std::vector<std::string> Overrides() const;
};

// Sets a configuration's variant (built at one replica or unit) to `replicas`: the replica count of
// an aggregated one, or `replicas` units of a P/D one (replicas x P prefill, replicas x D decode).
void ScaleVariant(const PlanConfig& config, int64_t replicas, Variant& variant);

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
