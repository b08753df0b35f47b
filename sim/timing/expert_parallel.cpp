#include "sim/timing/expert_parallel.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/check.h"

namespace kvsim {

AllToAllBytes SplitAllToAll(double copies, double bytes_per_copy, int ranks, const ExpertParallelLinks& links) {
  KVSIM_DCHECK(ranks >= 1 && links.domain_gpus >= 1);
  const double r = static_cast<double>(ranks);
  const double in_domain = static_cast<double>(std::min(ranks, links.domain_gpus));
  const double bytes = copies * bytes_per_copy;
  AllToAllBytes out;
  out.nvlink = bytes * (in_domain - 1) / r;
  out.rdma = bytes * (r - in_domain) / r;
  return out;
}

double AllToAllSeconds(const AllToAllBytes& bytes, const ExpertParallelLinks& links) {
  if (bytes.total() <= 0) return 0;
  auto over = [&](double b, double rate) { return b > 0 ? b / (rate * links.efficiency) : 0.0; };
  KVSIM_DCHECK((bytes.nvlink <= 0 || links.nvlink_bytes_per_s > 0) && (bytes.rdma <= 0 || links.nic_bytes_per_s > 0));
  return links.latency_s + std::max(over(bytes.nvlink, links.nvlink_bytes_per_s), over(bytes.rdma, links.nic_bytes_per_s));
}

double DispatchBytesPerToken(double hidden, bool fp8, double activation_bytes) {
  return fp8 ? hidden + 4.0 * std::ceil(hidden / 128.0) : hidden * activation_bytes;
}

double ExpectedDestinationRanks(double experts, double top_k, int ranks) {
  KVSIM_DCHECK(ranks >= 1 && experts >= top_k && top_k >= 1);
  const double elsewhere = experts - experts / ranks;  // experts not on a given rank
  double missed = 1.0;                                 // P(none of the k experts is on that rank)
  for (double i = 0; i < top_k; ++i) missed *= std::max(0.0, elsewhere - i) / (experts - i);
  return static_cast<double>(ranks) * (1.0 - missed);
}

}  // namespace kvsim
