#include "sim/disagg/kv_link.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"

namespace kvsim {

KvLinkSpec ParseKvLink(const std::string& text) {
  KvLinkSpec s;
  s.name = text;
  // Per-GPU figures: NVLink 4 is 900 GB/s per H100 (both directions; NVIDIA H100 datasheet); an
  // H100 node's compute NICs are one ConnectX-7 400 Gb/s per GPU (DGX H100 user guide).
  if (text == "nvlink") s.bytes_per_s = 450e9;
  else if (text == "ib-400g") s.bytes_per_s = 400e9 / 8;
  else if (text == "roce-200g") s.bytes_per_s = 200e9 / 8;
  else {
    const size_t comma = text.find(',');
    if (comma == std::string::npos)
      throw Error("--kv-link: '" + text + "' is not nvlink, ib-400g, roce-200g or GB/s,LATENCY_US");
    const double gbps = ParseFiniteNumber(text.substr(0, comma), "--kv-link GB/s");
    const double us = ParseFiniteNumber(text.substr(comma + 1), "--kv-link latency (us)");
    if (!(gbps > 0) || us < 0) throw Error("--kv-link: GB/s must be positive and the latency not negative");
    s.bytes_per_s = gbps * 1e9;
    s.latency_ns = static_cast<int64_t>(std::llround(us * 1e3));
  }
  return s;
}

KvLinks::KvLinks(KvLinkSpec spec, int64_t p, int64_t d, double bytes_per_token)
    : spec_(std::move(spec)),
      bytes_per_token_(bytes_per_token),
      prefill_free_(static_cast<size_t>(p), 0),
      decode_free_(static_cast<size_t>(d), 0) {}

int64_t KvLinks::TransferNs(int64_t tokens) const {
  return spec_.latency_ns + static_cast<int64_t>(std::llround(static_cast<double>(tokens) * bytes_per_token_ / spec_.bytes_per_s * 1e9));
}

int64_t KvLinks::Transfer(int64_t p, int64_t d, int64_t tokens, int64_t now_ns) {
  int64_t& pf = prefill_free_[static_cast<size_t>(p)];
  int64_t& df = decode_free_[static_cast<size_t>(d)];
  const int64_t start = std::max({now_ns, pf, df});
  const int64_t ns = TransferNs(tokens);
  pf = df = start + ns;
  ++transfers_;
  busy_ns_ += ns;
  wait_ns_ += start - now_ns;
  bytes_ += static_cast<double>(tokens) * bytes_per_token_;
  return start + ns;
}

}  // namespace kvsim
