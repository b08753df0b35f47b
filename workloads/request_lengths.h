// How long a trace's requests get: the mean context a request reaches when it finishes (prompt +
// output, capped at max_model_len as the server truncates the output), for `kvsim capacity --trace`'s
// max-concurrency row at the trace's own length.
#ifndef KVSIM_WORKLOADS_REQUEST_LENGTHS_H_
#define KVSIM_WORKLOADS_REQUEST_LENGTHS_H_

#include <cstdint>

#include "workloads/request_source.h"

namespace kvsim {

struct RequestLengths {
  int64_t requests = 0;          // that fit: prompt < max_model_len
  int64_t too_long = 0;          // prompt >= max_model_len: a server rejects them
  double mean_final_tokens = 0;  // over `requests`: min(prompt + output, max_model_len)
};

// Reads the whole source.
RequestLengths MeasureRequestLengths(RequestSource& source, int64_t max_model_len);

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_REQUEST_LENGTHS_H_
