#include "sim/stats/binding.h"

#include <vector>

#include "kvcache/base/text_format.h"

namespace kvsim {

std::string LoadCheckViolation(const LoadCheck& c) {
  if (c.served) return "";
  std::string v = Format("offered load not served: %.3g of %.3g req/s finished over the second half of the arrivals (%.1f%%%s)",
                         c.finished_rps, c.offered_rps, 100 * c.served_ratio, c.served_ratio < 0.99 ? " < 99%" : "");
  if (c.queue_growing) v += Format(", waiting queue growing (mean %.1f -> %.1f at the end)", c.waiting_before, c.waiting_end);
  if (c.backlog_fraction > 0.01)
    v += Format(", %.0f requests still waiting at the end (%.1f%% of the arrivals > 1%%)", c.waiting_end, 100 * c.backlog_fraction);
  return v;
}

std::string WhatBinds(const ReplaySummary& s) {
  std::vector<std::string> why;
  const auto& rq = s.requests;
  auto too_long = rq.rejected_by_reason.find(kPromptTooLongReason);
  if (too_long != rq.rejected_by_reason.end())
    why.push_back(Format("prompt-length limit: %lld of %lld requests rejected (prompt >= max-model-len %lld)",
                         static_cast<long long>(too_long->second), static_cast<long long>(rq.total),
                         static_cast<long long>(s.config.settings.max_model_len)));
  if (!s.load_check.served) why.push_back(LoadCheckViolation(s.load_check));
  const double finished = static_cast<double>(std::max<int64_t>(1, rq.finished));
  if (rq.preemptions > 0 || s.kv.peak_used_fraction >= 0.98)
    why.push_back(Format("memory: KV pool peak %.1f%% used, %lld preemptions (%.3f per finished request)",
                         100 * s.kv.peak_used_fraction, static_cast<long long>(rq.preemptions),
                         static_cast<double>(rq.preemptions) / finished));
  if (why.empty() || (rq.finished > 0 && rq.preemptions == 0 && s.kv.peak_used_fraction < 0.98))
    why.push_back(Format("compute: step time (inter-token latency p50 %.1f ms, p99 %.1f ms) at %.1f running on average",
                         1e3 * s.latency_s.itl.p50, 1e3 * s.latency_s.itl.p99, s.concurrency.mean_running));
  return Join(why, "; ");
}

}  // namespace kvsim
