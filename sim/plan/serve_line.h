// The `vllm serve` line that launches one replica of a planned configuration: the model and every
// setting the plan chose or the shared command line set away from vLLM's defaults.
#ifndef KVSIM_SIM_PLAN_SERVE_LINE_H_
#define KVSIM_SIM_PLAN_SERVE_LINE_H_

#include <string>

#include "kvcache/budget/deployment_settings.h"

namespace kvsim {

// "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 --max-num-seqs 256 --max-num-batched-tokens 8192".
std::string VllmServeLine(const Deployment& deployment);

// The KV connector kvsim's P/D replay models (sim/disagg/: NixlConnector, the decode instance pulling
// the prefill instance's KV), as vLLM's NixlConnector guide launches both pools
// (https://docs.vllm.ai/en/stable/features/nixl_connector_usage.html: kv_role kv_both on each side).
inline constexpr const char* kPdKvTransferConfig = R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})";

// A P/D pool's instance: its `vllm serve` line with --kv-transfer-config.
std::string VllmServeLineWithKvTransfer(const Deployment& deployment);

}  // namespace kvsim

#endif  // KVSIM_SIM_PLAN_SERVE_LINE_H_
