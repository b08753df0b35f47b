#include "sim/stats/offload_summary.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/units.h"

namespace kvsim {
namespace {

double Round(double v, double scale) { return std::round(v * scale) / scale; }

}  // namespace

OffloadSummary SummarizeOffload(const std::string& connector, const std::vector<const OffloadStats*>& replicas,
                                int64_t chunk_tokens) {
  OffloadSummary o;
  o.connector = connector;
  o.chunk_tokens = chunk_tokens;
  int64_t wait_ns = 0;
  for (const OffloadStats* r : replicas) {
    o.queried_tokens += r->queried_tokens;
    o.gpu_hit_tokens += r->gpu_hit_tokens;
    wait_ns += r->load_wait_ns;
    o.loads += r->loads;
    if (o.tiers.size() < r->tiers.size()) o.tiers.resize(r->tiers.size());
    for (size_t t = 0; t < r->tiers.size(); ++t) {
      TierStats& sum = o.tiers[t].stats;
      const TierStats& x = r->tiers[t];
      sum.kind = x.kind;
      sum.capacity_chunks = x.capacity_chunks;  // per replica
      sum.chunk_tokens = x.chunk_tokens;
      sum.capacity_bytes = x.capacity_bytes;
      sum.hit_tokens += x.hit_tokens;
      sum.loads += x.loads;
      sum.chunks_stored += x.chunks_stored;
      sum.chunks_evicted += x.chunks_evicted;
      sum.peak_chunks = std::max(sum.peak_chunks, x.peak_chunks);
      sum.bytes_read += x.bytes_read;
      sum.bytes_written += x.bytes_written;
      sum.transfer_ns += x.transfer_ns;
    }
  }
  const double q = static_cast<double>(std::max<int64_t>(1, o.queried_tokens));
  o.gpu_hit_rate = Round(static_cast<double>(o.gpu_hit_tokens) / q, 1e6);
  int64_t hits = o.gpu_hit_tokens;
  for (OffloadSummary::Tier& t : o.tiers) {
    const TierStats& s = t.stats;
    hits += s.hit_tokens;
    t.hit_rate = Round(static_cast<double>(s.hit_tokens) / q, 1e6);
    t.capacity_gib = Round(BytesToGiB(s.capacity_bytes), 1e4);
    t.read_gib = Round(BytesToGiB(s.bytes_read), 1e4);
    t.written_gib = Round(BytesToGiB(s.bytes_written), 1e4);
    t.transfer_s = Round(static_cast<double>(s.transfer_ns) * 1e-9, 1e6);
    t.peak_used_fraction = s.capacity_chunks > 0 ? Round(static_cast<double>(s.peak_chunks) / static_cast<double>(s.capacity_chunks), 1e6) : 0;
    if (s.kind == TierKind::kHost) o.pinned_host_gib = t.capacity_gib;
  }
  o.total_hit_rate = Round(static_cast<double>(hits) / q, 1e6);
  o.mean_load_wait_s = o.loads > 0 ? Round(static_cast<double>(wait_ns) * 1e-9 / static_cast<double>(o.loads), 1e6) : 0;
  return o;
}

}  // namespace kvsim
