// Allocator throughput. A "block operation" is one block taken from or returned to the pool.
//   BM_PagedChurn/C       admit a prompt, grow it 16 tokens at a time, free it; ~256 requests live
//                         (C = 1: prefix caching on, so the exact LRU free queue)
//   BM_PagedDecodeStep    one decode token per call (the scheduler's common case)
//   BM_PrefixLookup       PlanAdmit over a 64-block prompt whose blocks are all cached
//   BM_Contiguous*        free one region and place another among 10,000 live regions
#include <benchmark/benchmark.h>

#include <deque>
#include <random>

#include "kvcache/contiguous_allocator.h"
#include "kvcache/paged_allocator.h"
#include "kvcache/prefix_keys.h"
#include "kvcache/base/units.h"

namespace kvsim {
namespace {


// Arg 0: no prefix caching (LIFO free stack); 1: prefix caching on (vLLM's LRU free queue), no hits.
void BM_PagedChurn(benchmark::State& state) {
  PagedAllocatorOptions o;
  o.num_blocks = 65536;
  o.block_size = 16;
  o.enable_prefix_caching = state.range(0) != 0;
  PagedAllocator a(o);
  std::mt19937_64 rng(1);
  std::vector<int64_t> prompts(4096);
  for (auto& p : prompts) p = 64 + static_cast<int64_t>(rng() % 2000);
  std::deque<RequestId> live;
  RequestId next = 1;
  int64_t block_ops = 0;
  for (auto _ : state) {
    const int64_t prompt = prompts[next % prompts.size()];
    const RequestId id = next++;
    if (!a.Admit(MakeAdmitRequest(id, prompt, prompt + 256), prompt)) state.SkipWithError("pool too small");
    for (int i = 0; i < 8; ++i) a.Grow(id, 16);
    live.push_back(id);
    const int64_t blocks = CeilDiv(prompt + 128, 16);
    block_ops += blocks;
    if (live.size() > 256) {
      const RequestId old = live.front();
      live.pop_front();
      block_ops += CeilDiv(a.ComputedTokens(old), 16);
      a.Free(old);
    }
  }
  state.SetItemsProcessed(block_ops);
  state.counters["block_ops/s"] = benchmark::Counter(static_cast<double>(block_ops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PagedChurn)->Arg(0)->Arg(1);

void BM_PagedDecodeStep(benchmark::State& state) {
  PagedAllocatorOptions o;
  o.num_blocks = 65536;
  o.block_size = 16;
  PagedAllocator a(o);
  for (RequestId id = 1; id <= 256; ++id) a.Admit(MakeAdmitRequest(id, 1000, 1 << 30), 1000);
  RequestId id = 1;
  int64_t steps = 0;
  for (auto _ : state) {
    if (!a.Grow(id, 1)) {
      state.PauseTiming();
      for (RequestId r = 1; r <= 256; ++r) {
        a.Free(r);
        a.Admit(MakeAdmitRequest(r, 1000, 1 << 30), 1000);
      }
      state.ResumeTiming();
    }
    id = id % 256 + 1;
    ++steps;
  }
  state.SetItemsProcessed(steps);
}
BENCHMARK(BM_PagedDecodeStep);

void BM_PrefixLookup(benchmark::State& state) {
  PagedAllocatorOptions o;
  o.num_blocks = 4096;
  o.block_size = 16;
  o.enable_prefix_caching = true;
  PagedAllocator a(o);
  std::vector<uint64_t> ids(64);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i * 7919 + 1;
  const auto keys = KeysFromTraceBlocks(ids, 16, 64 * 16 + 1, 16);
  AdmitRequest q = MakeAdmitRequest(1, 64 * 16 + 1, 64 * 16 + 1);
  q.prefix_keys = keys;
  a.Admit(q, 1 << 20);
  a.Free(1);
  q.id = 2;
  int64_t lookups = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.PlanAdmit(q, 1 << 20));
    lookups += 64;
  }
  state.SetItemsProcessed(lookups);
}
BENCHMARK(BM_PrefixLookup);

void BM_Contiguous(benchmark::State& state, Placement placement) {
  constexpr int kLive = 10000;
  std::mt19937_64 rng(7);
  auto size = [&] { return 64 + static_cast<int64_t>(rng() % 2000); };
  ContiguousAllocatorOptions o;
  o.capacity_slots = int64_t{kLive} * 1100 * 2;
  o.max_model_len = 4096;
  o.reservation = Reservation::kOracle;
  o.placement = placement;
  ContiguousAllocator a(o);
  std::vector<RequestId> live;
  RequestId next = 1;
  while (static_cast<int>(live.size()) < kLive) {
    const int64_t s = size();
    if (a.Admit(MakeAdmitRequest(next, s, s), s)) live.push_back(next);
    ++next;
  }
  int64_t ops = 0;
  for (auto _ : state) {
    const size_t victim = rng() % live.size();
    a.Free(live[victim]);
    const int64_t s = size();
    if (a.Admit(MakeAdmitRequest(next, s, s), s)) {
      live[victim] = next;
    } else {
      live[victim] = live.back();
      live.pop_back();
    }
    ++next;
    ops += 2;
  }
  state.SetItemsProcessed(ops);
  state.counters["live_regions"] = static_cast<double>(live.size());
}
BENCHMARK_CAPTURE(BM_Contiguous, first_fit, Placement::kFirstFit);
BENCHMARK_CAPTURE(BM_Contiguous, best_fit, Placement::kBestFit);
BENCHMARK_CAPTURE(BM_Contiguous, buddy, Placement::kBuddy);

}  // namespace
}  // namespace kvsim
