#include "kvcache/budget/all2all_backend.h"

namespace kvsim {
namespace {

constexpr int kFirstMinorWithoutNaive = 16;  // PR #33728: naive runs the all-gather manager
constexpr int kFirstMinorWithoutPplx = 16;   // PR #33724: the pplx backend removed
constexpr int kFirstMinorDefaultingToAgRs = 11;

// Backends of newer vLLM whose transports kvsim has no model of.
constexpr const char* kNotModelled[] = {"mori", "mori_high_throughput", "mori_low_latency", "nixl_ep", "deepep_v2",
                                        "flashinfer_nvlink_one_sided"};

}  // namespace

bool IsUnmodelledAll2AllBackend(const std::string& text) {
  for (const char* name : kNotModelled)
    if (text == name) return true;
  return false;
}

bool GathersEveryToken(All2AllBackend b) {
  return b == All2AllBackend::kNaive || b == All2AllBackend::kAllgatherReducescatter;
}

All2AllBackend DefaultAll2AllBackend(int vllm_minor) {
  return vllm_minor >= kFirstMinorDefaultingToAgRs ? All2AllBackend::kAllgatherReducescatter : All2AllBackend::kNaive;
}

All2AllBackend ReadAll2AllBackend(const std::string& text, int vllm_minor, int data_parallel_size,
                                  bool enable_expert_parallel) {
  if (text.empty()) return DefaultAll2AllBackend(vllm_minor);
  if (IsUnmodelledAll2AllBackend(text))
    throw Error("--all2all-backend: " + text + " is a vLLM backend kvsim does not model (its transport is not timed); "
                "modelled: " + EnumChoices<All2AllBackend>(", "));
  All2AllBackend b = ParseEnum<All2AllBackend>(text, "--all2all-backend");
  if (b == All2AllBackend::kPplx && vllm_minor >= kFirstMinorWithoutPplx)
    throw Error("--all2all-backend: pplx was removed from vLLM in 0.16 (PR #33724); the release modelled is 0." +
                std::to_string(vllm_minor) + " (--vllm-version)");
  if (b == All2AllBackend::kNaive && vllm_minor >= kFirstMinorWithoutNaive) b = All2AllBackend::kAllgatherReducescatter;
  if (data_parallel_size > 1 && !enable_expert_parallel && !GathersEveryToken(b))
    throw Error("--all2all-backend: " + text + " without --enable-expert-parallel at --data-parallel-size " +
                std::to_string(data_parallel_size) +
                ": vLLM's MoE layers then dispatch through the backend's naive path, which its " + text +
                " manager does not implement (vllm/distributed/device_communicators/all2all.py raises "
                "NotImplementedError); add --enable-expert-parallel or use allgather_reducescatter");
  return b;
}

}  // namespace kvsim
