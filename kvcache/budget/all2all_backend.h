// vLLM's --all2all-backend: how the MoE layers of a data-parallel deployment move tokens between
// ranks (vllm/config/parallel.py ParallelConfig.all2all_backend; before the flag, the environment
// variable VLLM_ALL2ALL_BACKEND of vllm/envs.py; PR #26732 made it a flag, PR #33535 removed the
// variable). The manager it names is built for the EP group whenever --data-parallel-size > 1
// (vllm/distributed/device_communicators/base_device_communicator.py: use_all2all), EP or not.
//
// Two ways of moving tokens, which is what the timing side needs:
//   gather   naive, allgather_reducescatter: every rank receives every other rank's tokens
//            (all-gather; naive broadcasts each rank's chunk) and the outputs go back by
//            reduce-scatter (naive: an all-reduce of the whole gathered buffer, then a slice).
//   routed   pplx, deepep_high_throughput, deepep_low_latency, flashinfer_all2allv (renamed
//            flashinfer_nvlink_two_sided): a token goes only to the ranks holding its top-k experts.
//
// Default by release: "naive" while the variable's default was naive (0.10 and before), then
// "allgather_reducescatter" (envs.py of the 0.11 line; ParallelConfig's default since). From 0.16
// vLLM builds the all-gather manager for "naive" too (PR #33728) and no longer has pplx (PR #33724);
// both landed in February 2026, after 0.15 was cut, which is taken as the release boundary.
#ifndef KVSIM_KVCACHE_BUDGET_ALL2ALL_BACKEND_H_
#define KVSIM_KVCACHE_BUDGET_ALL2ALL_BACKEND_H_

#include <string>

#include "kvcache/base/enum_names.h"

namespace kvsim {

enum class All2AllBackend { kNaive, kAllgatherReducescatter, kPplx, kDeepepHighThroughput, kDeepepLowLatency, kFlashinferAll2allv };
template <>
struct EnumNames<All2AllBackend> {
  static constexpr EnumEntry<All2AllBackend> kEntries[] = {
      {All2AllBackend::kNaive, "naive"},
      {All2AllBackend::kAllgatherReducescatter, "allgather_reducescatter"},
      {All2AllBackend::kPplx, "pplx"},
      {All2AllBackend::kDeepepHighThroughput, "deepep_high_throughput"},
      {All2AllBackend::kDeepepLowLatency, "deepep_low_latency"},
      {All2AllBackend::kFlashinferAll2allv, "flashinfer_all2allv"},
      {All2AllBackend::kFlashinferAll2allv, "flashinfer_nvlink_two_sided"}};
};

// Whether every rank receives every token (naive, allgather_reducescatter) rather than only the
// tokens routed to its experts.
bool GathersEveryToken(All2AllBackend backend);

// vLLM 0.<vllm_minor>'s default.
All2AllBackend DefaultAll2AllBackend(int vllm_minor);

// A backend of newer vLLM releases whose transport kvsim does not time (mori, nixl_ep, deepep_v2,
// flashinfer_nvlink_one_sided). A pasted server line naming one is planned with a warning (memory
// does not depend on it); kvsim's own --all2all-backend refuses it (ReadAll2AllBackend).
bool IsUnmodelledAll2AllBackend(const std::string& text);

// The backend vLLM 0.<vllm_minor> runs for `text` (empty: its default): "naive" becomes
// allgather_reducescatter from 0.16. Throws kvsim::Error (exit 2) for a value vLLM does not know,
// one the release no longer has (pplx from 0.16), one kvsim does not model (mori, nixl_ep,
// deepep_v2, flashinfer_nvlink_one_sided: their transports are not modelled), and a routed backend
// at --data-parallel-size > 1 without --enable-expert-parallel: the MoE layer then dispatches through
// the manager's naive path, which vLLM's DeepEP and pplx managers do not implement (all2all.py:
// dispatch raises NotImplementedError).
All2AllBackend ReadAll2AllBackend(const std::string& text, int vllm_minor, int data_parallel_size,
                                  bool enable_expert_parallel);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_ALL2ALL_BACKEND_H_
