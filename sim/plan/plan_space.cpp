#include "sim/plan/plan_space.h"

#include <map>

#include "kvcache/base/check.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/budget/capacity_planner.h"

namespace kvsim {

std::string PlanConfig::Label() const {
  std::string label = gpu + " tp" + std::to_string(tensor_parallel);
  if (pipeline_parallel != 1) label += " pp" + std::to_string(pipeline_parallel);
  label += " " + format;
  if (kv_cache_dtype != "auto") label += " kv=" + kv_cache_dtype;
  label += " seqs=" + std::to_string(max_num_seqs) + " tokens=" + std::to_string(max_num_batched_tokens);
  return label + PdSuffix();
}

std::string PlanConfig::PdSuffix() const {
  return Disaggregated() ? " P/D " + std::to_string(pd.prefill) + ":" + std::to_string(pd.decode) : std::string();
}

std::string PlanConfig::Family() const { return format + " on " + gpu + PdSuffix(); }

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
  if (Disaggregated()) o.insert(o.end(), {"--prefill-replicas", std::to_string(pd.prefill), "--decode-replicas", std::to_string(pd.decode)});
  return o;
}

void ScaleVariant(const PlanConfig& config, int64_t replicas, Variant& variant) {
  KVSIM_CHECK(config.Disaggregated() == variant.disagg.has_value(), "a P/D configuration's variant has two pools");
  if (variant.disagg) {
    variant.disagg->prefill_replicas = replicas * config.pd.prefill;
    variant.disagg->decode_replicas = replicas * config.pd.decode;
  } else {
    variant.replay.replicas = replicas;
  }
}

PlanSpace ExpandPlanSpace(const PlanAxes& axes, const ConfigVariantMaker& make, std::vector<Variant>* variants) {
  PlanSpace space;
  PlanConfig c;
  // Two --formats values that load the same weights (checkpoint and none for an unquantized model,
  // checkpoint and fp8 for an FP8 one) would search every configuration twice and list it twice.
  std::map<std::string, std::string> format_of_weights;  // configuration with the resolved format -> --formats value
  for (const std::string& gpu : axes.gpus)
    for (int tp : axes.tensor_parallel)
      for (int pp : axes.pipeline_parallel)
        for (const std::string& format : axes.formats)
          for (const std::string& kv : axes.kv_cache_dtypes)
            for (int64_t seqs : axes.max_num_seqs)
              for (int64_t tokens : axes.max_num_batched_tokens)
                for (size_t shape = 0; shape <= axes.pd_ratios.size(); ++shape) {  // aggregated, then each split
                  c = {gpu, tp, pp, format, kv, seqs, tokens, shape == 0 ? PdRatio{} : axes.pd_ratios[shape - 1]};
                  // Sized before anything is replayed: what vLLM refuses at start-up (settings the
                  // model cannot take, weights and activations past the memory) never runs.
                  std::string reason, duplicate;
                  Variant v;
                  try {
                    v = make(c);
                    const Deployment& d = v.deployment;
                    const CapacityResult cap = PlanCapacity(d.model, d.gpu, d.config);
                    const std::string key = gpu + "|" + std::to_string(tp) + "|" + std::to_string(pp) + "|" + kv + "|" +
                                            std::to_string(seqs) + "|" + std::to_string(tokens) + "|" +
                                            std::to_string(shape) + "|" + cap.settings.quantization;
                    const auto [seen, added] = format_of_weights.emplace(key, format);
                    if (!added && seen->second != format)
                      duplicate = "--formats: '" + seen->second + "' and '" + format + "' load the same weights (" +
                                  cap.settings.quantization + ") for " + d.model.name + "; list one of them";
                    reason = cap.does_not_fit;
                    if (reason.empty() && v.disagg)  // the decode pool: its own settings when they differ
                      reason = PlanCapacity(v.disagg->decode.model, v.disagg->decode.gpu, v.disagg->decode.config).does_not_fit;
                  } catch (const Error& e) {
                    reason = e.what();
                  }
                  if (!duplicate.empty()) throw Error(duplicate);
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
    std::string what = s.config.format + " on " + s.config.gpu + " tp" + std::to_string(s.config.tensor_parallel);
    if (s.config.pipeline_parallel != 1) what += " pp" + std::to_string(s.config.pipeline_parallel);
    what += s.config.PdSuffix();
    auto [it, added] = index.emplace(what, groups.size());
    if (added) groups.push_back({what, 0, s.reason});
    ++groups[it->second].count;
  }
  return groups;
}

}  // namespace kvsim
