// ReplayEngine's LoRA adapters (lora_adapters.h): which adapters run, their loads and the kernels'
// time of a step.
#include <algorithm>
#include <cmath>

#include "kvcache/base/check.h"
#include "sim/engine/replay_engine.h"

namespace kvsim {

void ReplayEngine::AdapterJoins(uint32_t a) {
  if (a >= adapter_running_.size()) adapter_running_.resize(static_cast<size_t>(a) + 1, 0);
  if (adapter_running_[a]++ == 0) ++running_adapters_;
  KVSIM_CHECK(running_adapters_ <= o_.lora.max_loras, "more adapters run than there are LoRA slots");
}

void ReplayEngine::AdapterLeaves(uint32_t a) {
  KVSIM_DCHECK(a < adapter_running_.size() && adapter_running_[a] > 0);
  if (--adapter_running_[a] == 0) {
    --running_adapters_;
    lora_set_aside_ = 0;  // a slot may be free: requests set aside may run
  }
}

// The adapters of the step's batch are made resident before the forward (loads, synchronous), then
// the punica kernels run over the tokens on adapters, with the host's metadata and, without a
// graph, the kernels' launches from the CPU (lora_host.h).
int64_t ReplayEngine::LoraStepNs(const std::vector<Scheduled>& scheduled, const StepWork& work, int64_t base_ns) {
  lora_quiet_batch_of_[0] = -1;
  LoraStepWork w;
  if (!OrderStepAdapters(scheduled, w)) WalkStepAdapters(scheduled, w, step_adapters_);
  KVSIM_DCHECK(LoraBatchMatchesWalk(scheduled, w));
  if (step_adapters_.empty()) return 0;
  KVSIM_CHECK(w.adapters <= o_.lora.max_loras, "a step runs more adapters than there are LoRA slots");
  lora_step_work_ = w;
  lora_step_kernel_ = o_.lora.kernels ? lora_kernel_memo_.Of(*o_.lora.kernels, w) : LoraKernelMemo::Time{};
  return LoraBatchNs(work, base_ns);
}

// The batch as stepping every request schedules it: pass 1 in running order, admissions last, the
// lazy decoders a token each; the adapters in the order the batch first touches them, which is the
// order the caches are touched in.
void ReplayEngine::WalkStepAdapters(const std::vector<Scheduled>& scheduled, LoraStepWork& w,
                                    std::vector<uint32_t>& adapters) const {
  adapters.clear();
  w = LoraStepWork{};
  auto add = [&](Slot slot, int64_t tokens) {
    w.batch_tokens += tokens;
    const uint32_t a = slots_[slot].req.adapter;
    if (a == 0) return;
    w.lora_tokens += tokens;
    ++w.lora_rows;
    if (std::find(adapters.begin(), adapters.end(), a) == adapters.end()) adapters.push_back(a);
  };
  size_t i = 0;
  if (lazy_count_ != 0) {
    for (const auto [order, slot] : running_) {
      for (; i < scheduled.size() && slots_[scheduled[i].slot].order < order; ++i) add(scheduled[i].slot, scheduled[i].tokens);
      if (slots_[slot].lazy) add(slot, 1);
    }
  }
  for (; i < scheduled.size(); ++i) add(scheduled[i].slot, scheduled[i].tokens);
  w.adapters = static_cast<int64_t>(adapters.size());
}

// The same batch from the lazy decoders' adapter set (lazy_adapters_) and the scheduled requests:
// in running order an adapter is first touched by its earliest request. False when the scheduled
// requests are not in running order (the walk then decides).
bool ReplayEngine::OrderStepAdapters(const std::vector<Scheduled>& scheduled, LoraStepWork& w) {
  std::vector<std::pair<int64_t, uint32_t>>& firsts = step_adapter_firsts_;
  firsts.clear();
  w = LoraStepWork{};
  w.batch_tokens = lazy_count_;
  w.lora_tokens = w.lora_rows = lazy_adapters_.rows();
  for (const uint32_t a : lazy_adapters_.adapters()) {
    if (lazy_adapters_.Stale(a)) {
      for (const auto [order, slot] : running_) {
        if (slots_[slot].lazy && slots_[slot].req.adapter == a) {
          lazy_adapters_.SetEarliest(a, order);
          break;
        }
      }
    }
    firsts.push_back({lazy_adapters_.Earliest(a), a});
  }
  int64_t previous = -1;
  for (const Scheduled& s : scheduled) {
    const Live& l = slots_[s.slot];
    if (l.order <= previous) return false;
    previous = l.order;
    w.batch_tokens += s.tokens;
    const uint32_t a = l.req.adapter;
    if (a == 0) continue;
    w.lora_tokens += s.tokens;
    ++w.lora_rows;
    auto it = std::find_if(firsts.begin(), firsts.end(), [a](const auto& f) { return f.second == a; });
    if (it == firsts.end()) firsts.push_back({l.order, a});
    else it->first = std::min(it->first, l.order);
  }
  std::sort(firsts.begin(), firsts.end());
  step_adapters_.clear();
  for (const auto& f : firsts) step_adapters_.push_back(f.second);
  w.adapters = static_cast<int64_t>(step_adapters_.size());
  return true;
}

bool ReplayEngine::LoraBatchMatchesWalk(const std::vector<Scheduled>& scheduled, const LoraStepWork& w) const {
  LoraStepWork walked;
  std::vector<uint32_t> adapters;
  WalkStepAdapters(scheduled, walked, adapters);
  return adapters == step_adapters_ && walked.batch_tokens == w.batch_tokens && walked.lora_tokens == w.lora_tokens &&
         walked.lora_rows == w.lora_rows && walked.adapters == w.adapters;
}

// The batch of a quiet step: every running request decodes one token (all are lazy).
// speed: kept while the running set stays (a quiet run ends at every arrival).
void ReplayEngine::LoraQuietBatch() {
  const std::array<int64_t, 3> of = {static_cast<int64_t>(running_.size()), next_order_, counters_.preemptions};
  if (of == lora_quiet_batch_of_) return;
  lora_quiet_batch_of_ = of;
  KVSIM_DCHECK(lazy_count_ == static_cast<int64_t>(running_.size()));
  static const std::vector<Scheduled> kNone;
  LoraStepWork w;
  const bool ordered = OrderStepAdapters(kNone, w);
  KVSIM_DCHECK(ordered && LoraBatchMatchesWalk(kNone, w));
  (void)ordered;
  if (step_adapters_.empty()) return;
  KVSIM_CHECK(w.adapters <= o_.lora.max_loras, "a step runs more adapters than there are LoRA slots");
  lora_step_work_ = w;
  lora_step_kernel_ = o_.lora.kernels ? lora_kernel_memo_.Of(*o_.lora.kernels, w) : LoraKernelMemo::Time{};
}

// LoRA's time in a quiet step of lazy_count_ decoders whose step without LoRA lasts base_ns.
int64_t ReplayEngine::QuietLoraStepNs(int64_t base_ns) {
  if (step_adapters_.empty()) return 0;
  StepWork w;  // what LoraBatchNs reads of it: a decode-only step of the batch
  w.Add(1, 0, lazy_count_);
  return LoraBatchNs(w, base_ns);
}

// speed: a step of an explicit decode run runs the requests of the run's previous step with the
// same tokens each, so its adapters, their LoraStepWork and the kernels' time are that step's (the
// run ends after any preemption); only the loads (none once the batch is resident) and the host's
// share, which may depend on the base step's time, are taken again.
int64_t ReplayEngine::RepeatLoraStepNs(const StepWork& work, int64_t base_ns) {
  if (step_adapters_.empty()) return 0;
  return LoraBatchNs(work, base_ns);
}

// The step's loads, kernels and host work for the batch in step_adapters_, lora_step_work_ and
// lora_step_kernel_.
int64_t ReplayEngine::LoraBatchNs(const StepWork& work, int64_t base_ns) {
  LoraCounters& c = counters_.lora;
  const AdapterSlots::Loads loads = adapter_slots_->Activate(step_adapters_);
  const int64_t load_ns = loads.gpu * o_.lora.gpu_load_ns + loads.disk * o_.lora.disk_load_ns;
  const int64_t kernel_ns = lora_step_kernel_.ns;
  int64_t host_ns = 0;
  if (o_.lora.host) {
    const LoraHostStep step{work.new_tokens, work.sequences, work.DecodeOnly()};
    const double kernel_s = lora_step_kernel_.seconds;
    const double added = o_.lora.host->AddedSeconds(static_cast<double>(base_ns) * 1e-9, kernel_s, step);
    host_ns = std::max<int64_t>(0, std::llround(added * 1e9) - kernel_ns);
  }
  c.gpu_loads += loads.gpu;
  c.disk_loads += loads.disk;
  c.load_ns += load_ns;
  c.kernel_ns += kernel_ns;
  c.host_ns += host_ns;
  ++c.lora_steps;
  c.max_step_adapters = std::max(c.max_step_adapters, lora_step_work_.adapters);
  return load_ns + kernel_ns + host_ns;
}

}  // namespace kvsim
