#include "cli/server_environment.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "kvcache/base/error.h"
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
  // Layers per pipeline stage (vllm/distributed/utils.py get_pp_indices): each stage's weights and KV layers.
  if (name == "VLLM_PP_LAYER_PARTITION") {
    // Set but empty is not unset to vLLM (os.getenv gives ""), and int("") fails.
    if (value.empty())
      throw Error(assignment + ": vLLM reads each comma-separated item with int(), and an empty value has none "
                  "(\"Invalid partition string\"): give the layers per stage, or leave the variable out");
    cmd.kvsim_args.insert(cmd.kvsim_args.end(), {"--pp-layer-partition", value});
    return;
  }
  if (name == "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS") {
    cmd.kvsim_args.insert(cmd.kvsim_args.end(), {"--cuda-graph-estimate", on ? "on" : "off"});
    return;
  }
  // VLLM_USE_V2_MODEL_RUNNER picks the GPU model runner (vllm/envs.py: "Flag to control the v2 model
  // runner. If unset, use config defaults"; read as bool(int(value))). The runners' profiles differ
  // (kvcache/budget/model_runner.h), so it becomes --model-runner.
  if (name == "VLLM_USE_V2_MODEL_RUNNER") {
    int64_t number = 0;
    try {
      size_t used = 0;
      number = std::stoll(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::exception&) {
      throw Error(assignment + ": vLLM reads VLLM_USE_V2_MODEL_RUNNER as an integer (bool(int(value)), vllm/envs.py), "
                  "and '" + value + "' is not one: give 0 or 1");
    }
    cmd.kvsim_args.insert(cmd.kvsim_args.end(), {"--model-runner", number != 0 ? "v2" : "v1"});
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
      "VLLM_SERVER_DEV_MODE", "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH", "VLLM_ALLOW_RUNTIME_LORA_UPDATING",
      // torch.distributed's rendezvous and tensorpipe's RPC interface: where processes meet, not what they hold.
      "MASTER_ADDR", "MASTER_PORT", "TP_SOCKET_IFNAME"};
  for (const char* known : kNoEffect)
    if (name == known) return Note(cmd.accepted_no_effect, name);
  // What changes memory in a way kvsim does not model, each with why.
  struct Explained {
    const char* name;
    const char* why;
  };
  static const Explained kChangeMemory[] = {
      // Every start compiles cold; a cold torch.compile cache holds compilation workspace a warm one does
      // not (0.53 GiB more outside the weights on the development set's R170 against R169).
      {"VLLM_DISABLE_COMPILE_CACHE", "every start compiles without the cache, and a cold compile holds workspace kvsim does not count"},
      {"PYTORCH_CUDA_ALLOC_CONF", "the caching allocator's segments and fragmentation, which kvsim does not model"},
      // NCCL's own buffers are non-torch memory: NVLink SHARP buffers, and the per-peer channel buffers.
      {"NCCL_NVLS_ENABLE", "NVLink SHARP buffers, non-torch memory kvsim does not size"},
      {"NCCL_BUFFSIZE", "NCCL's per-peer buffers, non-torch memory kvsim does not size"},
      // The older spelling of --attention-backend, which kvsim does not model either.
      {"VLLM_ATTENTION_BACKEND", "as --attention-backend: a backend can set the KV block size and layout"}};
  for (const Explained& e : kChangeMemory)
    if (name == e.name) return Note(cmd.not_modelled, name + " (" + e.why + ")");
  // Transport settings of the collective and KV-transfer libraries.
  for (const char* prefix : {"NCCL_", "GLOO_", "UCX_", "VLLM_NIXL_"})
    if (StartsWith(name, prefix)) return Note(cmd.accepted_no_effect, name);
  // Kernel choices (vllm/envs.py): which GEMM, attention or MoE kernels run, and the fp32 matmul
  // precision. They allocate nothing kvsim counts; kvsim's step times do not tell the kernels apart.
  static const char* const kKernelPrefixes[] = {"VLLM_USE_DEEP_GEMM", "VLLM_ROCM_USE_AITER", "VLLM_USE_TRITON_FLASH_ATTN",
                                                "VLLM_FLOAT32_MATMUL_PRECISION", "VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT",
                                                "VLLM_USE_FLASHINFER_MOE", "VLLM_MARLIN_USE_ATOMIC_ADD"};
  for (const char* prefix : kKernelPrefixes)
    if (StartsWith(name, prefix)) return Note(cmd.kernel_choices, name);
  // Anything else: kvsim does not know what it does, and says so rather than guess.
  Note(cmd.unknown_environment, name);
}

}  // namespace kvsim
