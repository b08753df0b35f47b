// The KV tiers' flags (kvcache/offload/offload_config.h), shared by replay, compare and sweep:
// kvsim's --kv-offload cpu=SIZE[,disk=SIZE] with the links' figures, and vLLM's own spellings
// (--kv-offloading-size / --kv-offloading-backend, --kv-transfer-config naming OffloadingConnector
// or LMCacheConnectorV1).
#ifndef KVSIM_CLI_OFFLOAD_FLAGS_H_
#define KVSIM_CLI_OFFLOAD_FLAGS_H_

#include <string>

#include <boost/program_options.hpp>

#include "kvcache/offload/offload_config.h"

namespace kvsim {

struct OffloadFlags {
  std::string tiers;             // --kv-offload
  int64_t chunk_tokens = 0;      // --kv-offload-chunk-tokens
  std::string host_link;         // --kv-host-link GBPS[,LATENCY_US]
  std::string disk;              // --kv-disk READ_GBPS,WRITE_GBPS,LATENCY_US
  std::string offloading_size;   // --kv-offloading-size (vLLM, GiB)
  std::string offloading_backend;  // --kv-offloading-backend (vLLM)
  std::string transfer_config;   // --kv-transfer-config (vLLM, JSON)
};

void AddOffloadOptions(boost::program_options::options_description& desc, OffloadFlags& flags);
// The tiers the flags configure (none when no flag is given). Throws kvsim::Error naming the flag.
OffloadConfig ResolveOffloadFlags(const OffloadFlags& flags);

}  // namespace kvsim

#endif  // KVSIM_CLI_OFFLOAD_FLAGS_H_
