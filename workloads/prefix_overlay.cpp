#include "workloads/prefix_overlay.h"

#include <cmath>
#include <queue>
#include <random>
#include <vector>

#include "kvcache/base/check.h"
#include "workloads/id_mix.h"

namespace kvsim {
namespace {

// One conversation's state between turns.
struct Conversation {
  uint64_t session = 0;
  int64_t system_prompt = -1;  // -1: none
  int64_t history_tokens = 0;  // every previous turn's prompt and output
  int64_t text_tokens = 0, output_tokens = 0;
  int64_t turns_left = 0;
};

struct Pending {
  int64_t arrival_ns;
  uint64_t order;
  Conversation conv;
  bool operator>(const Pending& o) const { return arrival_ns != o.arrival_ns ? arrival_ns > o.arrival_ns : order > o.order; }
};

class OverlaySource final : public RequestSource {
 public:
  OverlaySource(std::unique_ptr<RequestSource> inner, PrefixOverlayOptions o, uint64_t seed)
      : inner_(std::move(inner)), o_(o), rng_(seed ^ 0x5eedULL) {
    ahead_ = inner_->Next();
  }

  std::optional<TraceRequest> Next() override {
    // Every request of the source starts a conversation (of one turn without --conversations).
    while (ahead_ && (pending_.empty() || ahead_->arrival_ns <= pending_.top().arrival_ns)) {
      Conversation c;
      c.session = ++sessions_;
      if (o_.shared_prompts > 0)
        c.system_prompt = std::uniform_int_distribution<int64_t>(0, o_.shared_prompts - 1)(rng_);
      c.text_tokens = ahead_->prompt_tokens;
      c.output_tokens = ahead_->output_tokens;
      c.turns_left = std::max<int64_t>(1, o_.turns);
      line_ = ahead_->source_line;
      pending_.push({ahead_->arrival_ns, order_++, c});
      ahead_ = inner_->Next();
    }
    if (pending_.empty()) return std::nullopt;
    Pending p = pending_.top();
    pending_.pop();
    TraceRequest r = Turn(p.conv, p.arrival_ns);
    Conversation& c = p.conv;
    c.history_tokens += c.text_tokens + c.output_tokens;
    if (--c.turns_left > 0) {
      const double think = o_.think_s > 0 ? std::exponential_distribution<double>(1.0 / o_.think_s)(rng_) : 0.0;
      pending_.push({p.arrival_ns + static_cast<int64_t>(std::llround(think * 1e9)), order_++, c});
    }
    return r;
  }
  int64_t skipped_rows() const override { return inner_->skipped_rows(); }
  std::vector<std::string> warnings() const override { return inner_->warnings(); }
  double progress() const override { return inner_->progress(); }
  std::string Describe() const override {
    std::string d = inner_->Describe();
    if (o_.shared_prompts > 0)
      d += ", " + std::to_string(o_.shared_prompts) + " shared prompts of " + std::to_string(o_.shared_prompt_tokens) + " tokens";
    if (o_.turns > 0) d += ", conversations of " + std::to_string(o_.turns) + " turns";
    return d;
  }

 private:
  // The turn's request: the system prompt, the history, then its new text; ids over the stream.
  TraceRequest Turn(const Conversation& c, int64_t arrival_ns) {
    TraceRequest r;
    r.id = next_id_++;
    r.arrival_ns = arrival_ns;
    const int64_t system = c.system_prompt >= 0 ? o_.shared_prompt_tokens : 0;
    r.prompt_tokens = system + c.history_tokens + c.text_tokens;
    r.output_tokens = c.output_tokens;
    r.session_id = o_.turns > 0 ? c.session : 0;
    r.block_id_tokens = kOverlayBlockTokens;
    r.source_line = line_;
    const int64_t blocks = (r.prompt_tokens + kOverlayBlockTokens - 1) / kOverlayBlockTokens;
    const int64_t shared_blocks = system / kOverlayBlockTokens;  // full blocks of the system prompt only
    r.block_ids.reserve(static_cast<size_t>(blocks));
    for (int64_t j = 0; j < blocks; ++j)
      r.block_ids.push_back(j < shared_blocks ? MixIds(0x5157ULL + static_cast<uint64_t>(c.system_prompt), static_cast<uint64_t>(j))
                                              : MixIds(0xc0417ULL + c.session, static_cast<uint64_t>(j)));
    return r;
  }

  std::unique_ptr<RequestSource> inner_;
  PrefixOverlayOptions o_;
  std::mt19937_64 rng_;
  std::optional<TraceRequest> ahead_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
  uint64_t sessions_ = 0, order_ = 0, next_id_ = 0;
  int64_t line_ = 0;
};

}  // namespace

std::unique_ptr<RequestSource> ApplyPrefixOverlay(std::unique_ptr<RequestSource> source, const PrefixOverlayOptions& o,
                                                  uint64_t seed) {
  KVSIM_CHECK(o.shared_prompts >= 0 && o.turns >= 0 && o.think_s >= 0 && (o.shared_prompts == 0 || o.shared_prompt_tokens >= 1),
              "prefix overlay options out of range (the CLI checks them)");
  if (!o.active()) return source;
  return std::make_unique<OverlaySource>(std::move(source), o, seed);
}

}  // namespace kvsim
