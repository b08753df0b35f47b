// --all2all-backend as each vLLM release reads it: its default, the values it maps or no longer has,
// and the combinations vLLM cannot run (kvcache/budget/all2all_backend.h cites the code and PRs).
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "kvcache/budget/all2all_backend.h"

namespace kvsim {
namespace {

// VLLM_ALL2ALL_BACKEND defaulted to naive; envs.py of the 0.11 line and ParallelConfig since default
// to allgather_reducescatter.
TEST(All2AllBackendTest, DefaultByRelease) {
  EXPECT_EQ(ReadAll2AllBackend("", 10, 2, true), All2AllBackend::kNaive);
  EXPECT_EQ(ReadAll2AllBackend("", 11, 2, true), All2AllBackend::kAllgatherReducescatter);
  EXPECT_EQ(ReadAll2AllBackend("", 30, 2, false), All2AllBackend::kAllgatherReducescatter);
}

// PR #33728 (0.16): "naive" builds the all-gather manager. FlashInfer's all2allv was renamed
// flashinfer_nvlink_two_sided (config.py accepts both for the same kernels).
TEST(All2AllBackendTest, ReleasesMapNaiveAndTheFlashinferRename) {
  EXPECT_EQ(ReadAll2AllBackend("naive", 15, 2, true), All2AllBackend::kNaive);
  EXPECT_EQ(ReadAll2AllBackend("naive", 16, 2, true), All2AllBackend::kAllgatherReducescatter);
  EXPECT_EQ(ReadAll2AllBackend("flashinfer_nvlink_two_sided", 30, 4, true), All2AllBackend::kFlashinferAll2allv);
  EXPECT_EQ(ReadAll2AllBackend("deepep_low_latency", 30, 8, true), All2AllBackend::kDeepepLowLatency);
  EXPECT_TRUE(GathersEveryToken(All2AllBackend::kNaive));
  EXPECT_FALSE(GathersEveryToken(All2AllBackend::kDeepepHighThroughput));
}

TEST(All2AllBackendTest, RefusesWhatVllmOrKvsimCannotRun) {
  EXPECT_THROW(ReadAll2AllBackend("pplx", 16, 2, true), Error);      // removed, PR #33724
  EXPECT_NO_THROW(ReadAll2AllBackend("pplx", 11, 2, true));
  EXPECT_THROW(ReadAll2AllBackend("mori_low_latency", 30, 2, true), Error);  // not modelled
  EXPECT_THROW(ReadAll2AllBackend("nccl", 30, 2, true), Error);      // not a vLLM backend
  // DeepEP's manager has no naive dispatch, which the MoE layers use without EP.
  EXPECT_THROW(ReadAll2AllBackend("deepep_high_throughput", 30, 2, false), Error);
  EXPECT_NO_THROW(ReadAll2AllBackend("deepep_high_throughput", 30, 1, false));  // DP 1: never used
  try {
    ReadAll2AllBackend("mori", 30, 2, true);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--all2all-backend"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvsim
