// KvAllocator: the KV-cache memory a scheduler draws on, in token terms. Knows nothing of time.
// Two families implement it: PagedAllocator (vLLM PagedAttention) and ContiguousAllocator
// (Orca / FasterTransformer / static KV cache). A request never needs to know which one it is in.
//
// Every operation that can fail for lack of memory checks first and commits only on success: a
// failed call changes nothing.
//
// Accounting (the vLLM paper's categories, §3.1), in slots; a slot holds one token of one layer
// group (bytes = slots × bytes per slot). At every instant, for the GPU pool:
//
//   token_slots + reserved_slots + internal_fragmentation_slots + external_fragmentation_slots
//     + cached_slots + free_slots == capacity_slots
//
//   token_slots            slots holding computed tokens (a block shared by several requests counts once)
//   reserved_slots         allocated slots that their request will still fill before it finishes
//   internal_fragmentation allocated slots that will never be filled: over-reservation beyond the
//                          final length, the unfilled tail of a last block past the final length
//   external_fragmentation free memory that cannot serve an allocation: holes smaller than the
//                          next reservation (contiguous), buddy rounding, the paged pool's null block
//   cached_slots           evictable prefix-cache blocks (no running request holds them)
//   free_slots             allocatable memory
//
// Not part of the sum: shared_saved_slots, the slots that sharing (prefix hits) spared:
// Σ over blocks of (reference count − 1) × filled slots.
#ifndef KVSIM_KVCACHE_KV_ALLOCATOR_H_
#define KVSIM_KVCACHE_KV_ALLOCATOR_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "kvcache/base/enum_names.h"

namespace kvsim {

using RequestId = uint64_t;
using BlockKey = uint64_t;  // chained hash of a full block's content (see prefix_keys.h)
class HeldGrowth;

// The accounting categories, in the order every output lists them.
enum class WasteCategory { kTokenStates, kReserved, kInternalFragmentation, kExternalFragmentation, kCached, kFree };
inline constexpr int kNumWasteCategories = 6;
template <>
struct EnumNames<WasteCategory> {
  static constexpr EnumEntry<WasteCategory> kEntries[] = {
      {WasteCategory::kTokenStates, "token_states", "token states"},
      {WasteCategory::kReserved, "reserved", "reserved"},
      {WasteCategory::kInternalFragmentation, "internal_fragmentation", "internal fragmentation"},
      {WasteCategory::kExternalFragmentation, "external_fragmentation", "external fragmentation"},
      {WasteCategory::kCached, "cached", "cached (prefix)"},
      {WasteCategory::kFree, "free", "free"}};
};

struct KvAccounting {
  int64_t capacity_slots = 0;
  int64_t token_slots = 0;
  int64_t reserved_slots = 0;
  int64_t internal_fragmentation_slots = 0;
  int64_t external_fragmentation_slots = 0;
  int64_t cached_slots = 0;
  int64_t free_slots = 0;
  int64_t shared_saved_slots = 0;

  int64_t used_slots() const { return token_slots + reserved_slots + internal_fragmentation_slots; }
  int64_t slots(WasteCategory c) const {
    switch (c) {
      case WasteCategory::kTokenStates: return token_slots;
      case WasteCategory::kReserved: return reserved_slots;
      case WasteCategory::kInternalFragmentation: return internal_fragmentation_slots;
      case WasteCategory::kExternalFragmentation: return external_fragmentation_slots;
      case WasteCategory::kCached: return cached_slots;
      case WasteCategory::kFree: return free_slots;
    }
    return 0;
  }
  int64_t Sum() const {
    return token_slots + reserved_slots + internal_fragmentation_slots + external_fragmentation_slots +
           cached_slots + free_slots;
  }
};

struct AdmitRequest {
  RequestId id = 0;
  int64_t prompt_tokens = 0;
  // Length the request will reach when it finishes (prompt + output). The simulator knows it from
  // the trace; allocators use it to tell reserved slots from internal fragmentation, and the
  // contiguous `oracle` policy reserves exactly this.
  int64_t final_tokens = 0;
  // prompt + the request's max_tokens, for the contiguous `prompt+max_tokens` policy (0: unknown).
  int64_t max_tokens_limit = 0;
  // Keys of the prompt's full blocks at the allocator's block size, chained (prefix_keys.h);
  // empty when the trace carries no token or block ids. Copied by Admit.
  std::span<const BlockKey> prefix_keys = {};
  // The keys' structure, as their producer guarantees it: they come in runs of this many blocks in
  // which the key of a run's first block and a block's position in the run determine its key (a
  // trace block of several pool blocks: prefix_keys.h). Paged allocators index their cache by run
  // (kvcache/block_pool.h); 1 (no structure) is always right, only slower.
  int64_t prefix_key_group = 1;
  // Prompt tokens right after the GPU prefix hits that a transfer supplies (a lower KV tier, or a
  // prefill instance): they take new blocks, are marked computed without being computed, and their
  // full blocks become findable. A multiple of the block size; paged allocators only.
  int64_t loaded_tokens = 0;
};

// A request of `prompt` tokens that will end at `final_tokens`, with optional prefix keys.
inline AdmitRequest MakeAdmitRequest(RequestId id, int64_t prompt, int64_t final_tokens,
                                     std::span<const BlockKey> keys = {}) {
  AdmitRequest r;
  r.id = id;
  r.prompt_tokens = prompt;
  r.final_tokens = final_tokens;
  r.prefix_keys = keys;
  return r;
}

struct AdmitPlan {
  bool feasible = false;
  int64_t cached_tokens = 0;   // prompt tokens served from the prefix cache
  int64_t loaded_tokens = 0;   // prompt tokens a transfer supplies (AdmitRequest::loaded_tokens, capped)
  int64_t new_tokens = 0;      // tokens computed in this first step
  int64_t blocks_needed = 0;   // paged: blocks taken from the free pool; contiguous: 0
  int64_t slots_needed = 0;    // memory the admission takes, in slots
};

class KvAllocator {
 public:
  virtual ~KvAllocator() = default;

  // Could `request` be admitted now, computing at most `token_budget` new tokens this step?
  virtual AdmitPlan PlanAdmit(const AdmitRequest& request, int64_t token_budget) const = 0;
  // Admits: looks the prompt up in the prefix cache, takes memory for the cached tokens plus the
  // first chunk, and marks them computed. Returns nullopt (and changes nothing) when it does not fit.
  // REQUIRES: request.id not live; prompt_tokens >= 1; final_tokens >= prompt_tokens.
  virtual std::optional<AdmitPlan> Admit(const AdmitRequest& request, int64_t token_budget) = 0;
  // False when the request could not be admitted even into an empty pool.
  virtual bool CanEverFit(const AdmitRequest& request) const = 0;

  // Slots for `tokens` more computed tokens (a prefill chunk or a decode step). False, with no
  // side effect, when memory is short. REQUIRES: `id` live.
  virtual bool CanGrow(RequestId id, int64_t tokens) const = 0;
  // How many tokens Grow can add to `id`, one call at a time, that only fill slots it already holds
  // (no block taken, released or copied). The replay advances decoding requests lazily within it.
  virtual int64_t GrowRoom(RequestId id) const = 0;
  virtual bool Grow(RequestId id, int64_t tokens) = 0;
  // Grow, then GrowRoom after it; −1, with no side effect, when memory is short. speed: an allocator
  // may look the request up once (a replay's decode run asks for both at every block it enters).
  virtual int64_t GrowThenRoom(RequestId id, int64_t tokens) { return Grow(id, tokens) ? GrowRoom(id) : -1; }

  // The held-growth fast path (kvcache/held_growth.h), or null when blocks are not interchangeable.
  virtual HeldGrowth* held_growth() { return nullptr; }

  // Releases a finished or preempted request. REQUIRES: `id` live.
  virtual void Free(RequestId id) = 0;
  // Releases a preempted request, which will be admitted again under the same id and may find what
  // is left of its blocks in the prefix cache. REQUIRES: `id` live.
  virtual void FreePreempted(RequestId id) { Free(id); }

  virtual bool IsLive(RequestId id) const = 0;
  virtual int64_t ComputedTokens(RequestId id) const = 0;
  virtual int64_t live_requests() const = 0;

  virtual KvAccounting Accounting() const = 0;
  // Accounting() into *out with `filled` of the slots it counts as reserved counted as token states
  // (tokens the caller decoded into held slots and has not handed over yet).
  // speed: written field by field where it lands, so a caller that reads the result right away does
  // not stall loading it whole from the stores that built it.
  virtual void FillAccounting(KvAccounting* out, int64_t filled) const {
    *out = Accounting();
    out->token_slots += filled;
    out->reserved_slots -= filled;
  }
  // Memory held by requests in blocks: paged, the blocks in use; contiguous, the slots its regions
  // occupy divided by the block size the options give (for side-by-side reports).
  virtual int64_t UsedBlocks() const = 0;

  // Walks every structure and throws InternalError describing the first broken invariant:
  // conservation, reference counts, free-list and hash-map consistency, no double ownership.
  // O(pool size): for tests and debug runs (CheckedAllocator calls it after every operation).
  virtual void CheckInvariants() const = 0;

  virtual std::string name() const = 0;
  // True when Grow(id, a + b) always has the same effect as Grow(id, a) then Grow(id, b) (false
  // when sliding windows release blocks based on the length before each call).
  virtual bool GrowsCompose() const { return true; }
  // Slots one token occupies: one per layer group (hybrid paged models have several).
  virtual int64_t slots_per_token() const { return 1; }
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_KV_ALLOCATOR_H_
