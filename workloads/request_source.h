// Requests as the replay consumes them, and the streaming interface every trace reader and
// synthetic generator implements: one request at a time, in arrival order, so a trace of any size
// is replayed in memory proportional to the requests in flight.
#ifndef KVSIM_WORKLOADS_REQUEST_SOURCE_H_
#define KVSIM_WORKLOADS_REQUEST_SOURCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvsim {

// The largest prompt or output length a request may have (2^32 tokens): far past any model's
// context, small enough that sums over millions of requests stay inside int64.
inline constexpr int64_t kMaxRequestTokens = int64_t{1} << 32;
// Arrival times are below 2^62 ns (146 years), so sums of times and gaps cannot overflow.
inline constexpr int64_t kMaxArrivalNs = int64_t{1} << 62;

struct TraceRequest {
  uint64_t id = 0;              // position in the (possibly tiled) trace, from 0
  int64_t arrival_ns = 0;       // since the trace's first request
  int64_t prompt_tokens = 0;    // >= 1
  int64_t output_tokens = 0;    // >= 1
  std::vector<uint64_t> block_ids;  // prompt block ids (Mooncake hash_ids), empty when the trace has none
  int64_t block_id_tokens = 0;  // tokens per block id (512 for Mooncake)
  int64_t source_line = 0;      // line in the file, for messages (0 for synthetic requests)
  uint64_t session_id = 0;      // conversation / session (0: none); the session router keeps them together
  uint32_t adapter = 0;         // LoRA adapter, numbered from 1 in order of first appearance (0: the base model)
};

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  // The next request in arrival order, or nullopt at the end. Throws kvsim::Error naming file,
  // line and column for malformed input, unless the source was told to skip bad rows.
  virtual std::optional<TraceRequest> Next() = 0;
  // Rows skipped so far (bad rows under --skip-bad-rows, failed BurstGPT requests, filtered models).
  virtual int64_t skipped_rows() const { return 0; }
  // Warnings for skipped rows (the first few, with file and line).
  virtual std::vector<std::string> warnings() const { return {}; }
  // Progress through the underlying file in [0, 1], or -1 when unknown.
  virtual double progress() const { return -1.0; }
  virtual std::string Describe() const = 0;
};

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_REQUEST_SOURCE_H_
