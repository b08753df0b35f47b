// Workloads that make prefix caching matter on traces without block ids: an overlay on any
// request source (a synthetic workload or a lengths-only trace) that gives requests content, as
// block ids of 16 tokens (the shape of Mooncake's hash_ids, read the same way by the replay).
//
//   --shared-prefix K:LEN   every request starts with one of K system prompts of LEN tokens, chosen
//                           uniformly at random (seeded); its own text follows (prompt + LEN tokens).
//   --conversations T:THINK every request of the source starts a conversation of T turns; turn t+1
//                           arrives THINK seconds (exponential, mean THINK) after turn t's arrival
//                           (a lower bound on a real user, who waits for the answer too), and its
//                           prompt is every previous turn (prompts and outputs) plus new text as long
//                           as the first turn's. Turns carry their conversation as session id.
// A conversation is an append-only token stream, so block j of its stream has one id whatever the
// turn: turn t+1 finds turn t's full blocks in the cache if they are still there.
#ifndef KVSIM_WORKLOADS_PREFIX_OVERLAY_H_
#define KVSIM_WORKLOADS_PREFIX_OVERLAY_H_

#include <cstdint>
#include <memory>

#include "workloads/request_source.h"

namespace kvsim {

struct PrefixOverlayOptions {
  int64_t shared_prompts = 0;        // K; 0: no shared system prompts
  int64_t shared_prompt_tokens = 0;  // LEN
  int64_t turns = 0;                 // T; 0: no conversations
  double think_s = 0;                // mean think time
  bool active() const { return shared_prompts > 0 || turns > 0; }
  bool operator==(const PrefixOverlayOptions&) const = default;
};

// Tokens per block id the overlay writes.
inline constexpr int64_t kOverlayBlockTokens = 16;

// The system prompts and think times are drawn from `seed`. REQUIRES: the counts and LEN >= 1 where
// set, think_s >= 0 (the CLI's parser checks them, cli/replay_flags.cpp).
std::unique_ptr<RequestSource> ApplyPrefixOverlay(std::unique_ptr<RequestSource> source, const PrefixOverlayOptions& options,
                                                  uint64_t seed);

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_PREFIX_OVERLAY_H_
