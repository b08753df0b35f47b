#include "sim/stats/weighted_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "kvcache/base/check.h"

namespace kvsim {
namespace {

constexpr double kLowest = 1e-7;    // seconds: the first bucket's lower edge
constexpr double kGrowth = 1.01;    // each bucket 1% wider than the last
// To 10^8 s (three years): request latencies of an overloaded replay of a long trace run to days
// (a range ending at 10^4 s reported every latency past it as 10,001 s).
constexpr int kBuckets = 3472;      // log(10^8 / 10^-7) / log(1.01), rounded up
const double kLogGrowth = std::log(kGrowth);

double R6(double x) { return std::round(x * 1e6) / 1e6; }

}  // namespace

int WeightedHistogram::BucketOf(double seconds) {
  if (!(seconds >= kLowest)) return 0;  // [0, kLowest) and the buckets above it
  return std::min(kBuckets, 1 + static_cast<int>(std::log(seconds / kLowest) / kLogGrowth));
}

namespace {

// The smallest double BucketOf maps to `bucket` or above. Positive doubles order as their bit
// patterns; the edge is within a few units in the last place of kLowest·kGrowth^(bucket−1), so the
// bisection starts from that bracket, widened until it holds the edge.
double ComputeLowerEdge(int bucket) {
  const uint64_t lowest = std::bit_cast<uint64_t>(kLowest);
  const uint64_t guess = std::bit_cast<uint64_t>(kLowest * std::pow(kGrowth, static_cast<double>(bucket - 1)));
  uint64_t lo = std::max(lowest, guess - 8), hi = guess + 8;
  for (uint64_t widen = 16; lo > lowest && WeightedHistogram::BucketOf(std::bit_cast<double>(lo)) >= bucket; widen *= 2)
    lo = lo - lowest > widen ? lo - widen : lowest;
  for (uint64_t widen = 16; WeightedHistogram::BucketOf(std::bit_cast<double>(hi)) < bucket; widen *= 2) hi += widen;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (WeightedHistogram::BucketOf(std::bit_cast<double>(mid)) >= bucket) hi = mid;
    else lo = mid + 1;
  }
  return std::bit_cast<double>(lo);
}

// The smallest integer ns whose ns / 1e9 s BucketOf maps to `bucket` or above (monotone in ns):
// the lower edge in ns, corrected by the formula itself.
int64_t ComputeLowerEdgeNs(int bucket, double lower_edge) {
  auto bucket_of = [](int64_t ns) { return WeightedHistogram::BucketOf(static_cast<double>(ns) / 1e9); };
  int64_t ns = static_cast<int64_t>(std::ceil(lower_edge * 1e9));
  while (ns > 0 && bucket_of(ns - 1) >= bucket) --ns;
  while (bucket_of(ns) < bucket) ++ns;
  return ns;
}

// LocateBucket's cells: a double's exponent and its mantissa's top 7 bits, a span under 0.79% wide
// (1 + 2^-7), narrower than any bucket (1%), so a cell holds at most one bucket edge.
constexpr int kCellShift = 52 - 7;
uint64_t CellOf(double seconds) { return std::bit_cast<uint64_t>(seconds) >> kCellShift; }

// Every bucket's lower edge, [0, kBuckets + 1], in seconds and in integer ns, and the bucket of each
// cell's smallest value from kLowest up: immutable tables built once per process (a few thousand
// logarithms), shared by every histogram.
struct EdgeTables {
  std::vector<double> seconds;
  std::vector<int64_t> ns;
  std::vector<int16_t> cell_buckets;  // by CellOf(v) − CellOf(kLowest)
};
const EdgeTables& Edges() {
  static const EdgeTables tables = [] {
    EdgeTables t{std::vector<double>(kBuckets + 2), std::vector<int64_t>(kBuckets + 2), {}};
    for (int b = 1; b <= kBuckets; ++b) {
      t.seconds[static_cast<size_t>(b)] = ComputeLowerEdge(b);
      t.ns[static_cast<size_t>(b)] = ComputeLowerEdgeNs(b, t.seconds[static_cast<size_t>(b)]);
    }
    t.seconds[kBuckets + 1] = std::numeric_limits<double>::infinity();
    t.ns[kBuckets + 1] = std::numeric_limits<int64_t>::max();
    static_assert(kBuckets < std::numeric_limits<int16_t>::max());
    const uint64_t first = CellOf(kLowest), last = CellOf(t.seconds[kBuckets]);
    t.cell_buckets.resize(last - first + 1);
    for (uint64_t c = first; c <= last; ++c) {
      const double lowest = std::max(kLowest, std::bit_cast<double>(c << kCellShift));
      const auto above = std::upper_bound(t.seconds.begin(), t.seconds.end(), lowest);
      t.cell_buckets[c - first] = static_cast<int16_t>(above - t.seconds.begin() - 1);
    }
    return t;
  }();
  return tables;
}

}  // namespace

WeightedHistogram::WeightedHistogram()
    : buckets_(kBuckets + 1, 0),
      edges_(Edges().seconds.data()),
      ns_edges_(Edges().ns.data()),
      cell_buckets_(Edges().cell_buckets.data()) {}

double WeightedHistogram::LowerEdge(int bucket) const {
  return edges_[static_cast<size_t>(std::clamp(bucket, 0, kBuckets + 1))];
}

// BucketOf without a logarithm: the bucket of the value's cell (its exponent and top mantissa bits),
// then one compare with the edge that may lie inside the cell: BucketOf's answer bit for bit.
int WeightedHistogram::LocateBucket(double seconds) const {
  if (!(seconds >= kLowest)) return 0;
  if (seconds >= edges_[kBuckets]) return kBuckets;
  int b = cell_buckets_[CellOf(seconds) - CellOf(kLowest)];
  b += static_cast<int>(seconds >= edges_[b + 1]);
  KVSIM_DCHECK(b == BucketOf(seconds));
  return b;
}

void WeightedHistogram::Add(double seconds, int64_t weight) {
  if (weight <= 0) return;
  int bucket = last_bucket_;
  if (!(seconds >= last_lo_ && seconds < last_hi_)) {
    bucket = LocateBucket(seconds);
    last_bucket_ = bucket;
    last_lo_ = LowerEdge(bucket);
    last_hi_ = LowerEdge(bucket + 1);
  }
  buckets_[static_cast<size_t>(bucket)] += weight;
  count_ += weight;
  sum_ += seconds * static_cast<double>(weight);
}

void WeightedHistogram::SetLastNs(int64_t ns) {
  last_ns_bucket_ = LocateBucket(static_cast<double>(ns) / 1e9);
  last_lo_ns_ = ns_edges_[last_ns_bucket_];
  last_hi_ns_ = ns_edges_[last_ns_bucket_ + 1];
}

// speed: a decode run's steps mostly share a bucket; only a change of bucket costs more than a compare.
void WeightedHistogram::AddRunNs(const int64_t* ns, int64_t n, int64_t weight) {
  if (weight <= 0 || n <= 0) return;
  int64_t in_bucket = 0, sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t v = ns[j];
    if (v < last_lo_ns_ || v >= last_hi_ns_) {
      buckets_[static_cast<size_t>(last_ns_bucket_)] += in_bucket * weight;
      in_bucket = 0;
      SetLastNs(v);
    }
    ++in_bucket;
    sum += v;
  }
  buckets_[static_cast<size_t>(last_ns_bucket_)] += in_bucket * weight;
  count_ += n * weight;
  sum_ns_ += static_cast<Int128>(sum) * weight;
}

void WeightedHistogram::AddSortedRunNs(const int64_t* ns, int64_t n, int64_t weight, int64_t sum) {
  if (weight <= 0 || n <= 0) return;
  KVSIM_DCHECK(std::is_sorted(ns, ns + n));
  for (int64_t i = 0; i < n;) {
    if (ns[i] < last_lo_ns_ || ns[i] >= last_hi_ns_) SetLastNs(ns[i]);
    // The steps from i on still in this bucket: up to the first at or above its upper edge.
    const int64_t end = ns[n - 1] < last_hi_ns_ ? n : std::lower_bound(ns + i, ns + n, last_hi_ns_) - ns;
    buckets_[static_cast<size_t>(last_ns_bucket_)] += (end - i) * weight;
    i = end;
  }
  count_ += n * weight;
  sum_ns_ += static_cast<Int128>(sum) * weight;
}

void WeightedHistogram::Merge(const WeightedHistogram& other) {
  KVSIM_DCHECK(buckets_.size() == other.buckets_.size());
  for (size_t b = 0; b < buckets_.size(); ++b) buckets_[b] += other.buckets_[b];
  count_ += other.count_;
  sum_ += other.sum_;
  sum_ns_ += other.sum_ns_;
}

double WeightedHistogram::Quantile(double p) const {
  if (count_ == 0) return 0;
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(p * static_cast<double>(count_))));
  int64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= rank) {
      if (b == 0) return 0;
      // The bucket's geometric centre: within half a bucket (0.5%) of every value in it.
      return kLowest * std::pow(kGrowth, static_cast<double>(b) - 0.5);
    }
  }
  return kLowest * std::pow(kGrowth, kBuckets);
}

LatencySummary WeightedHistogram::Summary() const {
  if (count_ == 0) return {};
  const double sum = sum_ + ToDouble(sum_ns_) / 1e9;
  return {count_, R6(sum / static_cast<double>(count_)), R6(Quantile(0.5)), R6(Quantile(0.9)), R6(Quantile(0.99)),
          R6(Quantile(0.999))};
}

}  // namespace kvsim
