#include "workloads/request_lengths.h"

#include <algorithm>

namespace kvsim {

RequestLengths MeasureRequestLengths(RequestSource& source, int64_t max_model_len) {
  RequestLengths l;
  double sum = 0;  // exact: fewer than 2^53 / 2^31 tokens' worth of requests would round
  while (std::optional<TraceRequest> r = source.Next()) {
    if (r->prompt_tokens >= max_model_len) {
      ++l.too_long;
      continue;
    }
    ++l.requests;
    sum += static_cast<double>(std::min(r->prompt_tokens + r->output_tokens, max_model_len));
  }
  if (l.requests > 0) l.mean_final_tokens = sum / static_cast<double>(l.requests);
  return l;
}

}  // namespace kvsim
