#include "sim/replay_engine.h"

#include <algorithm>
#include <cassert>

#include "kvcache/paged_allocator.h"
#include "kvcache/prefix_keys.h"

namespace kvsim {

ReplayEngine::ReplayEngine(EngineOptions o, KvAllocator& allocator, const StepTimer& timer, ReplayRecorder& recorder,
                           RequestSource& source)
    : o_(o), alloc_(allocator), timer_(timer), recorder_(recorder), source_(source) {
  if (o_.v0_scheduler) o_.lazy_decode = false;
  paged_ = dynamic_cast<const PagedAllocator*>(&alloc_);
}

void ReplayEngine::Reject(TraceRequest r, const std::string& reason) {
  RequestRecord rec;
  rec.id = r.id;
  rec.arrival_ns = r.arrival_ns;
  rec.prompt_tokens = r.prompt_tokens;
  rec.output_tokens = r.output_tokens;
  rec.rejected_reason = reason;
  recorder_.OnRequestDone(rec);
}

void ReplayEngine::Arrive(TraceRequest r) {
  ++counters_.events;
  if (r.prompt_tokens >= o_.max_model_len) {
    Reject(std::move(r), "prompt_tokens >= max_model_len");
    return;
  }
  Live l;
  // vLLM's default max_tokens leaves room for the prompt within max_model_len.
  l.target = std::min(r.output_tokens, o_.max_model_len - r.prompt_tokens);
  if (o_.prefix_caching && !r.block_ids.empty())
    l.keys = KeysFromTraceBlocks(r.block_ids, r.block_id_tokens, r.prompt_tokens, o_.block_size);
  l.record.id = r.id;
  l.record.arrival_ns = r.arrival_ns;
  l.record.prompt_tokens = r.prompt_tokens;
  l.req = std::move(r);
  l.req.block_ids.clear();
  l.req.block_ids.shrink_to_fit();
  if (!alloc_.CanEverFit(AdmissionFor(l))) {
    Reject(std::move(l.req), "needs more KV cache than the whole pool");
    return;
  }
  const RequestId id = l.req.id;
  live_.emplace(id, std::move(l));
  waiting_.push_back(id);
}

void ReplayEngine::PullArrivals() {
  while (pending_ && pending_->arrival_ns <= now_ns_) {
    Arrive(std::move(*pending_));
    pending_ = source_.Next();
  }
}

AdmitRequest ReplayEngine::AdmissionFor(const Live& l) const {
  AdmitRequest q;
  q.id = l.req.id;
  q.prompt_tokens = l.req.prompt_tokens + l.generated;  // a resumed request recomputes what it generated
  q.final_tokens = l.req.prompt_tokens + l.target - 1;  // the last sampled token never enters the KV cache
  q.max_tokens_limit = l.req.prompt_tokens + std::max<int64_t>(1, o_.max_model_len - l.req.prompt_tokens);
  q.prefix_keys = l.keys;
  return q;
}

int64_t ReplayEngine::LazyContextBeforeStep() const {
  return lazy_sum_computed_ + lazy_count_ * (step_ - 1) - lazy_sum_sync_;
}

void ReplayEngine::MakeLazy(Live& l) {
  l.lazy = true;
  l.sync_step = step_;
  ++lazy_count_;
  lazy_sum_computed_ += l.computed;
  lazy_sum_sync_ += step_;
  explicit_.erase(l.order);
  const int64_t room = alloc_.GrowRoom(l.req.id);
  const int64_t remaining = l.target - l.generated;
  events_.push({step_ + std::min(room + 1, remaining), l.order, l.req.id, ++l.version});
}

void ReplayEngine::MakeExplicit(Live& l) {
  // Bring the request up to the end of the previous step: the tokens it decoded lazily.
  const int64_t lag = (step_ - 1) - l.sync_step;
  lazy_count_ -= 1;
  lazy_sum_computed_ -= l.computed;
  lazy_sum_sync_ -= l.sync_step;
  if (lag > 0) {
    const bool grown = alloc_.Grow(l.req.id, lag);
    assert(grown && "lazy tokens fit in memory the request already held");
    (void)grown;
    l.computed += lag;
    l.generated += lag;
  }
  l.lazy = false;
  ++l.version;
  explicit_.insert(l.order);
}

void ReplayEngine::Preempt(RequestId id) {
  Live& l = live_.at(id);
  if (l.lazy) MakeExplicit(l);
  alloc_.Free(id);
  l.computed = 0;
  ++l.record.preemptions;
  ++counters_.preemptions;
  ++counters_.events;
  running_.erase(l.order);
  explicit_.erase(l.order);
  l.order = -1;
  waiting_.push_front(id);
  preempted_this_step_ = true;
}

void ReplayEngine::Finish(RequestId id) {
  Live& l = live_.at(id);
  alloc_.Free(id);
  l.record.finished_ns = now_ns_;
  l.record.output_tokens = l.generated;
  recorder_.OnRequestDone(l.record);
  running_.erase(l.order);
  explicit_.erase(l.order);
  live_.erase(id);
  ++counters_.events;
}

bool ReplayEngine::AdmitWaiting(int64_t& budget, std::vector<Scheduled>& scheduled, bool whole_prompt) {
  bool any = false;
  while (budget > 0 && static_cast<int64_t>(running_.size()) < o_.max_num_seqs && !waiting_.empty()) {
    const RequestId id = waiting_.front();
    Live& l = live_.at(id);
    const AdmitRequest q = AdmissionFor(l);
    if (whole_prompt && q.prompt_tokens > budget) break;
    const std::optional<AdmitPlan> plan = alloc_.Admit(q, budget);
    if (!plan) break;
    waiting_.pop_front();
    l.order = next_order_++;
    running_.emplace(l.order, id);
    explicit_.insert(l.order);
    if (l.record.admitted_ns < 0) {
      l.record.admitted_ns = now_ns_;
      l.record.cached_tokens = plan->cached_tokens;
      recorder_.OnPrefixLookup(l.req.prompt_tokens, plan->cached_tokens);
    }
    l.computed = plan->cached_tokens + plan->new_tokens;
    budget -= plan->new_tokens;
    scheduled.push_back({id, plan->new_tokens, plan->cached_tokens});
    ++counters_.events;
    any = true;
  }
  return any;
}

bool ReplayEngine::StepV1(std::vector<Scheduled>& scheduled) {
  int64_t budget = o_.max_num_batched_tokens;
  // Lazy requests whose event is due this step are processed explicitly.
  while (!events_.empty() && events_.top().step <= step_) {
    const Event e = events_.top();
    events_.pop();
    auto it = live_.find(e.id);
    if (it != live_.end() && it->second.lazy && it->second.version == e.version) MakeExplicit(it->second);
  }
  int64_t demand = lazy_count_;
  for (int64_t order : explicit_) demand += PendingTokens(live_.at(running_.at(order)));
  if (!o_.lazy_decode || demand > budget) {
    // Not everyone can be served: process every running request in order.
    for (auto& [order, id] : running_) {
      Live& l = live_.at(id);
      if (l.lazy) MakeExplicit(l);
    }
  }
  budget -= lazy_count_;
  const std::vector<int64_t> orders(explicit_.begin(), explicit_.end());
  for (int64_t order : orders) {
    auto run = running_.find(order);
    if (run == running_.end()) continue;  // preempted earlier in this step
    if (budget <= 0) break;
    const RequestId id = run->second;
    Live& l = live_.at(id);
    const int64_t tokens = std::min(PendingTokens(l), budget);
    bool self_preempted = false;
    while (!alloc_.Grow(id, tokens)) {
      const RequestId victim = running_.rbegin()->second;
      Preempt(victim);
      if (victim == id) {
        self_preempted = true;
        break;
      }
    }
    if (self_preempted) break;
    scheduled.push_back({id, tokens, l.computed});
    l.computed += tokens;
    budget -= tokens;
    ++counters_.events;
  }
  if (!preempted_this_step_) AdmitWaiting(budget, scheduled, /*whole_prompt=*/false);
  return !scheduled.empty() || lazy_count_ > 0;
}

bool ReplayEngine::StepV0(std::vector<Scheduled>& scheduled) {
  int64_t budget = o_.max_num_batched_tokens;
  // Prefill steps first (whole prompts); otherwise decode every running request.
  if (AdmitWaiting(budget, scheduled, /*whole_prompt=*/true)) return true;
  for (auto it = running_.begin(); it != running_.end();) {
    const int64_t order = it->first;
    const RequestId id = it->second;
    Live& l = live_.at(id);
    bool self_preempted = false;
    while (!alloc_.Grow(id, 1)) {
      const RequestId victim = running_.rbegin()->second;
      Preempt(victim);
      if (victim == id) {
        self_preempted = true;
        break;
      }
    }
    if (self_preempted) break;
    scheduled.push_back({id, 1, l.computed});
    l.computed += 1;
    ++counters_.events;
    it = running_.upper_bound(order);
  }
  return !scheduled.empty();
}

void ReplayEngine::AfterStep(const std::vector<Scheduled>& scheduled) {
  for (const Scheduled& s : scheduled) {
    auto it = live_.find(s.id);
    if (it == live_.end() || it->second.order < 0) continue;
    Live& l = it->second;
    if (l.computed < l.req.prompt_tokens + l.generated) continue;  // prefill continues next step
    ++l.generated;
    if (l.record.first_token_ns < 0) l.record.first_token_ns = now_ns_;
    if (l.generated >= l.target) {
      Finish(s.id);
    } else if (o_.lazy_decode) {
      MakeLazy(l);
    }
  }
  // Lazy requests sampled one token each this step; those that finished are due as events.
}

KvAccounting ReplayEngine::CorrectedAccounting() const {
  KvAccounting a = alloc_.Accounting();
  // Tokens decoded lazily since each request's last sync filled slots that were reserved.
  const int64_t lag = (lazy_count_ * step_ - lazy_sum_sync_) * alloc_.slots_per_token();
  a.token_slots += lag;
  a.reserved_slots -= lag;
  return a;
}

EngineCounters ReplayEngine::Run(const std::function<bool(int64_t)>& on_step) {
  pending_ = source_.Next();
  std::vector<Scheduled> scheduled;
  while (true) {
    PullArrivals();
    if (running_.empty() && waiting_.empty()) {
      if (!pending_) break;
      now_ns_ = std::max(now_ns_, pending_->arrival_ns);  // idle until the next arrival
      continue;
    }
    ++step_;
    preempted_this_step_ = false;
    scheduled.clear();
    const bool work = o_.v0_scheduler ? StepV0(scheduled) : StepV1(scheduled);
    if (!work && running_.empty()) {
      // Nothing runs and the head of the queue cannot be admitted into an empty pool: it never will.
      const RequestId id = waiting_.front();
      waiting_.pop_front();
      Live l = std::move(live_.at(id));
      live_.erase(id);
      --step_;
      Reject(std::move(l.req), "cannot be admitted into an empty pool");
      continue;
    }
    StepWork w;
    for (const Scheduled& s : scheduled) {
      w.new_tokens += s.tokens;
      w.context_tokens += s.context;
      w.attended += s.tokens * s.context + s.tokens * (s.tokens + 1) / 2;
    }
    const int64_t lazy_context = LazyContextBeforeStep();
    w.new_tokens += lazy_count_;
    w.context_tokens += lazy_context;
    w.attended += lazy_context + lazy_count_;
    const int64_t start = now_ns_;
    const int64_t dt = timer_.StepNs(w);
    now_ns_ += dt;
    AfterStep(scheduled);
    ++counters_.steps;

    StepSample sample;
    sample.start_ns = start;
    sample.duration_ns = dt;
    sample.running = static_cast<int64_t>(running_.size());
    sample.waiting = static_cast<int64_t>(waiting_.size());
    sample.kv = CorrectedAccounting();
    sample.used_blocks = o_.paged_used_blocks_divisor > 0
                             ? (sample.kv.capacity_slots - sample.kv.free_slots - sample.kv.cached_slots -
                                sample.kv.external_fragmentation_slots) / o_.paged_used_blocks_divisor
                             : 0;
    if (paged_) sample.used_blocks = paged_->num_used_blocks();
    sample.preemptions_total = counters_.preemptions;
    recorder_.OnStep(sample);
    if (on_step && !on_step(now_ns_)) break;
  }
  return counters_;
}

}  // namespace kvsim
