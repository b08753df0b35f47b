#include "sim/run/replay_setup.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/speculative_memory.h"
#include "kvcache/contiguous_allocator.h"
#include "kvcache/paged_allocator.h"
#include "sim/run/request_sources.h"
#include "sim/run/speculation_setup.h"
#include "sim/stats/cost.h"

namespace kvsim {

int64_t SchedulerBlockSize(const CapacityResult& cap) {
  return cap.settings.block_size * cap.settings.decode_context_parallel_size;
}

std::unique_ptr<KvAllocator> MakeAllocator(const Deployment& d, const ReplayOptions& r, const CapacityResult& cap) {
  const StageCapacity& stage = cap.stages[cap.bottleneck_stage];
  if (r.allocator == AllocatorKind::kPaged) {
    PagedAllocatorOptions po;
    // The allocator keeps block 0 back as vLLM v1's null block; an engine without one (V0 on a model
    // with no sliding window) gets that id on top, so requests hold all of its blocks.
    po.num_blocks = cap.usable_gpu_blocks + 1;
    po.block_size = SchedulerBlockSize(cap);
    // Prefix keys come from a trace's block ids (Mooncake hash_ids); without them nothing can hit
    // and the pool may hand out any free block, but a preempted request, which keeps its own block
    // hashes, still finds what is left of its blocks.
    po.enable_prefix_caching = d.config.enable_prefix_caching && TraceHasBlockIds(r);
    po.find_preempted_prefixes = d.config.enable_prefix_caching && !po.enable_prefix_caching;
    po.groups = stage.layout.groups;
    if (r.scheduler == SchedulerKind::kVllmV0) po.watermark_fraction = 0.01;
    if (po.num_blocks < 2) throw Error("the KV pool has fewer than 2 blocks");
    return std::make_unique<PagedAllocator>(po);
  }
  ContiguousAllocatorOptions co;
  co.capacity_slots = static_cast<int64_t>(cap.kv_cache_bytes / stage.layout.bytes_per_token) * cap.settings.decode_context_parallel_size;
  co.max_model_len = cap.settings.max_model_len;
  co.reservation = r.reservation;
  co.placement = r.placement;
  co.block_size = SchedulerBlockSize(cap);
  return std::make_unique<ContiguousAllocator>(co);
}

// Memory, the run's counters and the configuration: the summary sections the statistics do not own.
void FillRunSections(const CapacityResult& cap, const ReplayOptions& r, const EngineCounters& counters, double wall_s,
                     int64_t peak_used_blocks, const StepTimer& timer, ReplaySummary& s) {
  auto r4 = [](double bytes) { return std::round(BytesToGiB(bytes) * 1e4) / 1e4; };
  const double kv_peak = static_cast<double>(peak_used_blocks) *
                         static_cast<double>(cap.stages[cap.bottleneck_stage].layout.block_bytes);
  s.memory_gib = {r4(cap.weights_bytes), r4(cap.activation_peak_bytes), r4(cap.non_torch_bytes), r4(cap.kv_cache_bytes),
                  r4(kv_peak), r4(cap.weights_bytes + cap.activation_peak_bytes + cap.non_torch_bytes + kv_peak)};
  s.sim.wall_s = std::round((r.omit_wall_time ? 0.0 : wall_s) * 1e4) / 1e4;
  s.sim.events = counters.events;
  s.sim.steps = counters.steps;
  s.sim.draft_tokens = counters.draft_tokens;
  s.sim.accepted_tokens = counters.accepted_tokens;
  s.sim.verify_steps = counters.verify_steps;
  s.sim.drafting_s = static_cast<double>(counters.drafting_ns) * 1e-9;
  s.sim.stepping = r.stepping;  // exact_quantiles: the statistics' (FillSummary)
  s.config.settings = cap.settings;
  s.config.scheduler = r.scheduler;
  s.config.step_time_model = timer.Describe();
  s.config.seed = r.seed;
  s.config.window = r.window;
}

StepModelOptions TimerOptions(const Deployment& d, const ReplayOptions& r) {
  StepModelOptions timer_options = r.timer;
  // No graphs captured (-O0, cudagraph_mode NONE): every kernel is launched from the CPU, as eager.
  timer_options.enforce_eager = timer_options.enforce_eager || d.config.enforce_eager ||
                                d.config.cuda_graphs.mode == CudaGraphMode::kNone;
  timer_options.overlap_host = r.async_scheduling && r.scheduler == SchedulerKind::kVllmV1;
  return timer_options;
}

ReplayStatsOptions StatsOptions(const ReplayOptions& r, const CapacityResult& cap, const StepModelOptions& t) {
  const bool paged = r.allocator == AllocatorKind::kPaged;
  return {paged ? cap.num_gpu_blocks : 0, paged ? cap.usable_gpu_blocks : 0, SchedulerBlockSize(cap), r.slo_ttft_s, r.slo_tpot_s,
          t.efficiency.client_ttft_ms * 1e-3, t.efficiency.tokenize_us_per_token * 1e-6, r.exact_quantiles};
}

EngineOptions MakeEngineOptions(const Deployment& d, const ReplayOptions& r, const CapacityResult& cap) {
  EngineOptions eo;
  eo.max_num_seqs = cap.settings.max_num_seqs;
  eo.max_num_batched_tokens = cap.settings.max_num_batched_tokens;
  eo.max_model_len = cap.settings.max_model_len;
  eo.block_size = SchedulerBlockSize(cap);
  eo.prefix_caching = d.config.enable_prefix_caching && r.allocator == AllocatorKind::kPaged;
  eo.stepping = r.stepping;
  eo.scheduler = r.scheduler;
  const SpeculativeSettings& sp = d.config.speculative;
  std::vector<double> accepted_at = ResolveAcceptanceRates(sp, r.spec_acceptance, "replay");
  if (!accepted_at.empty()) {
    if (r.scheduler != SchedulerKind::kVllmV1)
      throw Error("--speculative-config: replayed with the v1 scheduler only (--scheduler vllm)");
    eo.speculation.tokens = sp.num_speculative_tokens;
    eo.speculation.accepted_at = std::move(accepted_at);
    eo.speculation.seed = r.seed;
    eo.speculation.proposer_passes = ProposerPasses(sp);
  }
  eo.async_scheduling = r.async_scheduling && r.scheduler == SchedulerKind::kVllmV1;
  eo.scheduler_recv_interval = r.scheduler_recv_interval;
  // A step with nothing to compute costs the host's per-step work only (no kernel is launched).
  eo.idle_step_ns = static_cast<int64_t>(std::llround(r.timer.efficiency.step_overhead_ms * 1e6));
  return eo;
}

void FinishSummary(const ReplayOptions& r, const RequestSource& source, const std::string& allocator_name,
                   const std::string& gpu_id, ReplaySummary& s) {
  s.config.trace = source.Describe();
  s.config.allocator = r.allocator == AllocatorKind::kPaged ? "paged" : allocator_name;
  s.trace_skipped_rows = source.skipped_rows();
  s.warnings = source.warnings();
  const double price = GpuHourlyCost(r, gpu_id);
  if (price > 0) s.cost = ComputeCost(s, price, r.replicas);
}

void AddFeatureWarnings(const Deployment& d, const ReplayOptions& r, const CapacityResult& cap, const StepModelOptions& timer,
                        ReplaySummary& s) {
  if (d.config.lora.enabled) {
    if (r.adapters == 0 && r.reader.adapter_column.empty())
      s.warnings.push_back("--enable-lora: no request names an adapter (give --adapters N or --adapter-column NAME); "
                           "the slots take memory and every request runs on the base model");
    if (cap.lora.skipped_expert_elements > 0)
      s.warnings.push_back("--enable-lora: the routed experts carry no adapter here (no slots, loads or LoRA kernels "
                           "for them), as in the memory model");
    if (timer.fixed_step_ms > 0)
      s.warnings.push_back("--enable-lora: under a fixed step time the LoRA kernels' time is not added (adapter loads are)");
  }
  if (const std::string note = UntimedProposerNote(d.config.speculative); !note.empty()) s.warnings.push_back(note);
  else if (Speculating(d.config.speculative) && timer.fixed_step_ms > 0)
    s.warnings.push_back("--step-time-ms: every step takes the fixed time, so the " + d.config.speculative.method +
                         " drafter's passes add nothing to it (the per-operator step model times them)");
  for (const TierSpec& t : r.offload.tiers)
    if (t.kind == TierKind::kDisk)
      s.warnings.push_back("--kv-disk: the disk tier's write bandwidth is not used: stores to the tiers are not timed "
                           "(a chunk is there as soon as it is computed); reads and their latency are");
}

}  // namespace kvsim
