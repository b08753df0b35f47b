#include "sim/plan/plan_space.h"

#include <map>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/budget/capacity_planner.h"

namespace kvsim {

std::string PlanConfig::Label() const {
  std::string label = gpu + " tp" + std::to_string(tensor_parallel);
  if (pipeline_parallel != 1) label += " pp" + std::to_string(pipeline_parallel);
  label += " " + format;
  if (kv_cache_dtype != "auto") label += " kv=" + kv_cache_dtype;
  return label + " seqs=" + std::to_string(max_num_seqs) + " tokens=" + std::to_string(max_num_batched_tokens);
}

std::string PlanConfig::Family() const { return format + " on " + gpu; }

std::vector<std::string> PlanConfig::Overrides() const {
  std::vector<std::string> o = {"--gpu", gpu, "--tensor-parallel-size", std::to_string(tensor_parallel),
                                "--pipeline-parallel-size", std::to_string(pipeline_parallel),
                                "--kv-cache-dtype", kv_cache_dtype,
                                "--max-num-seqs", std::to_string(max_num_seqs),
                                "--max-num-batched-tokens", std::to_string(max_num_batched_tokens)};
  if (format != kCheckpointFormat) {
    o.push_back("--quantization");
    o.push_back(format);
  }
  return o;
}

PlanSpace ExpandPlanSpace(const PlanAxes& axes, const ConfigVariantMaker& make, std::vector<Variant>* variants) {
  PlanSpace space;
  PlanConfig c;
  for (const std::string& gpu : axes.gpus)
    for (int tp : axes.tensor_parallel)
      for (int pp : axes.pipeline_parallel)
        for (const std::string& format : axes.formats)
          for (const std::string& kv : axes.kv_cache_dtypes)
            for (int64_t seqs : axes.max_num_seqs)
              for (int64_t tokens : axes.max_num_batched_tokens) {
                c = {gpu, tp, pp, format, kv, seqs, tokens};
                // Sized before anything is replayed: what vLLM refuses at start-up (settings the
                // model cannot take, weights and activations past the memory) never runs.
                std::string reason;
                Variant v;
                try {
                  v = make(c);
                  const Deployment& d = v.deployment;
                  reason = PlanCapacity(d.model, d.gpu, d.config).does_not_fit;
                } catch (const Error& e) {
                  reason = e.what();
                }
                if (!reason.empty()) {
                  space.skipped.push_back({c, reason});
                  continue;
                }
                space.configs.push_back(c);
                if (variants) variants->push_back(std::move(v));
              }
  return space;
}

std::vector<SkipGroup> SummariseSkipped(const std::vector<SkippedConfig>& skipped) {
  std::vector<SkipGroup> groups;
  std::map<std::string, size_t> index;
  for (const SkippedConfig& s : skipped) {
    std::string what = s.config.Family() + " tp" + std::to_string(s.config.tensor_parallel);
    if (s.config.pipeline_parallel != 1) what += " pp" + std::to_string(s.config.pipeline_parallel);
    auto [it, added] = index.emplace(what, groups.size());
    if (added) groups.push_back({what, 0, s.reason});
    ++groups[it->second].count;
  }
  return groups;
}

}  // namespace kvsim
