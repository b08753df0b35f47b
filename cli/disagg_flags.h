// Prefill/decode disaggregation's flags (sim/disagg/disagg_runner.h) for `kvsim replay`: the pool
// sizes, the decode pool's own deployment flags (the prefill pool takes the ordinary ones) and the
// KV link.
#ifndef KVSIM_CLI_DISAGG_FLAGS_H_
#define KVSIM_CLI_DISAGG_FLAGS_H_

#include <optional>
#include <string>

#include <boost/program_options.hpp>

#include "kvcache/budget/deployment.h"
#include "sim/disagg/disagg_runner.h"

namespace kvsim {

struct DisaggFlags {
  int64_t prefill_replicas = 0, decode_replicas = 0;
  std::string kv_link = "ib-400g";
  std::string kv_connector = "nixl";
  std::string decode_gpu, decode_max_num_seqs, decode_max_num_batched_tokens;
  int decode_tp = 0;
  bool given() const { return prefill_replicas > 0 || decode_replicas > 0; }
};

void AddDisaggOptions(boost::program_options::options_description& desc, DisaggFlags& flags);
// nullopt without --prefill-replicas/--decode-replicas. `prefill` is the deployment the ordinary
// flags give; the decode pool is it with the --decode-* flags applied. Throws kvsim::Error naming the flag.
std::optional<DisaggDeployment> ResolveDisaggFlags(const DisaggFlags& flags, const DeploymentOptions& prefill,
                                                   int64_t replicas, const std::string& data_dir);

}  // namespace kvsim

#endif  // KVSIM_CLI_DISAGG_FLAGS_H_
