#include "kvcache/offload/offload_tiers.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/check.h"

namespace kvsim {

OffloadTiers::OffloadTiers(const OffloadConfig& config, int64_t gpu_block_size, double bytes_per_token)
    : chunk_tokens_(config.chunk_tokens > 0 ? config.chunk_tokens : gpu_block_size),
      factor_(chunk_tokens_ / gpu_block_size),
      chunk_bytes_(static_cast<double>(chunk_tokens_) * bytes_per_token),
      specs_(config.tiers) {
  KVSIM_CHECK(specs_.size() <= kMaxTiers, "at most 4 offload tiers");
  KVSIM_CHECK(gpu_block_size >= 1 && chunk_tokens_ % gpu_block_size == 0 && factor_ >= 1,
              "the offload chunk must be a whole number of GPU blocks");
  for (const TierSpec& t : specs_) {
    // vLLM's CPU backend sizes its blocks as whole chunks: cpu_bytes_to_use // chunk bytes.
    const int64_t chunks = chunk_bytes_ > 0 ? static_cast<int64_t>(std::floor(t.capacity_bytes / chunk_bytes_)) : 0;
    lru_.emplace_back(chunks);
    TierStats s;
    s.kind = t.kind;
    s.capacity_chunks = chunks;
    s.chunk_tokens = chunk_tokens_;
    s.capacity_bytes = t.capacity_bytes;
    stats_.tiers.push_back(s);
  }
}

OffloadTiers::Match OffloadTiers::Find(std::span<const BlockKey> keys, int64_t gpu_cached_tokens,
                                        int64_t prompt_tokens) const {
  Match m;
  // The chunks a load may bring: past the GPU hits, up to the last full chunk before the last token.
  const int64_t start = gpu_cached_tokens / chunk_tokens_;
  const int64_t end = std::min(static_cast<int64_t>(keys.size()) / factor_, (prompt_tokens - 1) / chunk_tokens_);
  for (int64_t c = start; c < end; ++c) {
    const BlockKey key = keys[static_cast<size_t>((c + 1) * factor_ - 1)];
    size_t t = 0;
    while (t < lru_.size() && !lru_[t].Contains(key)) ++t;
    if (t == lru_.size()) break;
    // The first chunk may be partly computed already (the GPU hits end inside it).
    const int64_t add = (c + 1) * chunk_tokens_ - std::max(c * chunk_tokens_, gpu_cached_tokens);
    m.per_tier[t] += add;
    m.tokens += add;
  }
  if (m.tokens < chunk_tokens_) return Match{};  // less than a chunk is not loaded
  return m;
}

int64_t OffloadTiers::Commit(std::span<const BlockKey> keys, const Match& m, int64_t gpu_cached_tokens,
                             int64_t prompt_tokens, int64_t now_ns) {
  const int64_t block = chunk_tokens_ / factor_;
  // touch: every chunk of the request, in reverse, so that its first chunk is the most recent.
  for (int64_t c = static_cast<int64_t>(keys.size()) / factor_; c-- > 0;)
    for (TierLru& t : lru_) t.Touch(keys[static_cast<size_t>((c + 1) * factor_ - 1)]);
  stats_.queried_tokens += std::min<int64_t>(static_cast<int64_t>(keys.size()), (prompt_tokens - 1) / block) * block;
  stats_.gpu_hit_tokens += gpu_cached_tokens;
  if (m.tokens == 0) return now_ns;
  int64_t transfer = 0;
  const double bytes_per_token = chunk_bytes_ / static_cast<double>(chunk_tokens_);
  for (size_t t = 0; t < lru_.size(); ++t) {
    if (m.per_tier[t] == 0) continue;
    const double bytes = static_cast<double>(m.per_tier[t]) * bytes_per_token;
    const int64_t ns = specs_[t].latency_ns + static_cast<int64_t>(std::llround(bytes / specs_[t].read_bytes_per_s * 1e9));
    TierStats& s = stats_.tiers[t];
    s.hit_tokens += m.per_tier[t];
    s.bytes_read += bytes;
    s.transfer_ns += ns;
    ++s.loads;
    transfer += ns;
  }
  // Loads queue on the replica's copy stream.
  const int64_t ready = std::max(now_ns, link_free_ns_) + transfer;
  link_free_ns_ = ready;
  ++stats_.loads;
  stats_.load_wait_ns += ready - now_ns;
  return ready;
}

void OffloadTiers::StoreChunk(BlockKey key) {
  for (size_t t = 0; t < lru_.size(); ++t) {
    if (lru_[t].capacity() <= 0 || lru_[t].Contains(key)) continue;
    TierStats& s = stats_.tiers[t];
    s.chunks_evicted += lru_[t].Insert(key);
    ++s.chunks_stored;
    s.bytes_written += chunk_bytes_;
    s.peak_chunks = std::max(s.peak_chunks, lru_[t].size());
  }
}

void OffloadTiers::StorePrompt(std::span<const BlockKey> keys, int64_t from_tokens, int64_t to_tokens) {
  const int64_t keyed_chunks = static_cast<int64_t>(keys.size()) / factor_;
  const int64_t last = std::min(keyed_chunks, to_tokens / chunk_tokens_);
  for (int64_t c = from_tokens / chunk_tokens_; c < last; ++c)
    StoreChunk(keys[static_cast<size_t>((c + 1) * factor_ - 1)]);
}

void OffloadTiers::StoreUnkeyed(int64_t chunks) {
  for (int64_t i = 0; i < chunks; ++i) {
    // splitmix64 of a counter: names no prompt chunk can carry (those are chained hashes of content).
    uint64_t z = ++unkeyed_ * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    StoreChunk(z ^ (z >> 31) ^ 0x6f7574707574ULL);
  }
}

}  // namespace kvsim
