#include "cli/disagg_flags.h"

#include "kvcache/base/error.h"

namespace kvsim {
namespace po = boost::program_options;

void AddDisaggOptions(po::options_description& desc, DisaggFlags& f) {
  desc.add_options()
      ("prefill-replicas", po::value(&f.prefill_replicas),
       "prefill/decode disaggregation: P prefill instances (the deployment flags above), with --decode-replicas")
      ("decode-replicas", po::value(&f.decode_replicas), "D decode instances (the deployment flags with --decode-* applied)")
      ("decode-gpu", po::value(&f.decode_gpu), "the decode pool's GPU (default: --gpu)")
      ("decode-tp", po::value(&f.decode_tp), "the decode pool's tensor parallel size (default: --tensor-parallel-size)")
      ("decode-max-num-seqs", po::value(&f.decode_max_num_seqs), "the decode pool's max-num-seqs (default: --max-num-seqs)")
      ("decode-max-num-batched-tokens", po::value(&f.decode_max_num_batched_tokens),
       "the decode pool's max-num-batched-tokens (default: --max-num-batched-tokens)")
      ("kv-link", po::value(&f.kv_link)->default_value(f.kv_link),
       "prefill -> decode KV link, per GPU: nvlink (450 GB/s each way) | ib-400g (50 GB/s) | roce-200g (25 GB/s) | "
       "GB/s,LATENCY_US (GB/s = 10^9 B/s)")
      ("kv-connector", po::value(&f.kv_connector)->default_value(f.kv_connector),
       "the connector that pulls the prompt's KV: nixl (the decode worker posts each read before its step's forward, "
       "6.7 ms per 1,785 descriptors, vllm#50913) | push (the prefill side sends or writes the KV, as P2pNcclConnector "
       "and Dynamo's vLLM patch: the link alone)");
}

std::optional<DisaggDeployment> ResolveDisaggFlags(const DisaggFlags& f, const DeploymentOptions& prefill, int64_t replicas,
                                                   const std::string& data_dir) {
  if (!f.given()) {
    if (!f.decode_gpu.empty() || f.decode_tp != 0 || !f.decode_max_num_seqs.empty() || !f.decode_max_num_batched_tokens.empty())
      throw Error("--decode-*: only with --prefill-replicas and --decode-replicas");
    return std::nullopt;
  }
  if (f.prefill_replicas < 1 || f.decode_replicas < 1)
    throw Error("--prefill-replicas/--decode-replicas: give both, each at least 1");
  if (replicas != 1) throw Error("--replicas: not with --prefill-replicas/--decode-replicas (the pools set the instance count)");
  DisaggDeployment d;
  d.prefill_replicas = f.prefill_replicas;
  d.decode_replicas = f.decode_replicas;
  d.link = ParseKvLink(f.kv_link);
  d.connector = ParseKvConnector(f.kv_connector);
  d.prefill = ResolveDeployment(prefill, data_dir);
  DeploymentOptions decode = prefill;
  if (!f.decode_gpu.empty()) decode.gpu = f.decode_gpu;
  if (f.decode_tp < 0) throw Error("--decode-tp: must be positive");
  if (f.decode_tp > 0) decode.tensor_parallel_size = f.decode_tp;
  if (!f.decode_max_num_seqs.empty()) decode.max_num_seqs = f.decode_max_num_seqs;
  if (!f.decode_max_num_batched_tokens.empty()) decode.max_num_batched_tokens = f.decode_max_num_batched_tokens;
  d.decode = ResolveDeployment(decode, data_dir);
  return d;
}

}  // namespace kvsim
