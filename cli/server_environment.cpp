#include "cli/server_environment.h"

#include <algorithm>

#include "kvcache/base/text_format.h"
#include "kvcache/budget/all2all_backend.h"

namespace kvsim {
namespace {

void Note(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

}  // namespace

void ReadServerEnvironment(const std::string& assignment, ServeCommandLine& cmd) {
  const size_t eq = assignment.find('=');
  const std::string name = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  const bool on = value == "1" || value == "true" || value == "True";
  if (name == "VLLM_ALLOW_LONG_MAX_MODEL_LEN") {
    if (on) cmd.kvsim_args.push_back("--allow-long-max-model-len");
    return;
  }
  if (name == "VLLM_USE_V1") {  // 0.8-0.10 kept the V0 engine behind VLLM_USE_V1=0; 0.11 removed it
    if (!on) cmd.kvsim_args.insert(cmd.kvsim_args.end(), {"--vllm-version", "v0"});
    return;
  }
  // Before --all2all-backend (PR #26732) the backend was this variable; where both are given the
  // flag wins, as in vLLM (ParallelConfig reads the variable only when the flag is unset).
  if (name == "VLLM_ALL2ALL_BACKEND") {
    if (IsUnmodelledAll2AllBackend(value)) return Note(cmd.not_modelled, assignment);
    if (std::find(cmd.kvsim_args.begin(), cmd.kvsim_args.end(), "--all2all-backend") == cmd.kvsim_args.end())
      cmd.kvsim_args.insert(cmd.kvsim_args.end(), {"--all2all-backend", value});
    return;
  }
  if (name == "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS") {
    cmd.kvsim_args.insert(cmd.kvsim_args.end(), {"--cuda-graph-estimate", on ? "on" : "off"});
    return;
  }
  // Devices, credentials, caches, logging, ports and process plumbing: no effect on memory or time.
  static const char* const kNoEffect[] = {
      "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "HF_TOKEN",
      "HUGGING_FACE_HUB_TOKEN", "HF_HOME", "HF_HUB_OFFLINE", "HF_HUB_ENABLE_HF_TRANSFER", "TRANSFORMERS_OFFLINE",
      "HF_DATASETS_OFFLINE", "VLLM_LOGGING_LEVEL", "VLLM_CONFIGURE_LOGGING", "VLLM_LOG_STATS_INTERVAL",
      "VLLM_WORKER_MULTIPROC_METHOD", "VLLM_USE_MODELSCOPE", "VLLM_HOST_IP", "VLLM_PORT", "VLLM_API_KEY",
      "VLLM_CACHE_ROOT", "VLLM_NO_USAGE_STATS", "VLLM_DO_NOT_TRACK", "DO_NOT_TRACK", "VLLM_RPC_TIMEOUT",
      "VLLM_ENGINE_ITERATION_TIMEOUT_S", "VLLM_SKIP_P2P_CHECK", "NCCL_DEBUG", "NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME",
      "OMP_NUM_THREADS", "TOKENIZERS_PARALLELISM", "PYTHONUNBUFFERED", "PYTHONPATH", "SAFETENSORS_FAST_GPU",
      "VLLM_SERVER_DEV_MODE", "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH", "VLLM_DISABLE_COMPILE_CACHE",
      "VLLM_ALLOW_RUNTIME_LORA_UPDATING"};
  for (const char* known : kNoEffect)
    if (name == known) return Note(cmd.accepted_no_effect, name);
  // Transport settings of the collective and KV-transfer libraries.
  for (const char* prefix : {"NCCL_", "GLOO_", "UCX_", "VLLM_NIXL_"})
    if (StartsWith(name, prefix)) return Note(cmd.accepted_no_effect, name);
  Note(cmd.not_modelled, name);  // kernels, allocator, engine version, graph capture: they can change the answer
}

}  // namespace kvsim
