// The GPU table: each GPU's architecture, as its datasheet names it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "kvcache/base/error.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/model_catalog.h"

namespace kvsim {
namespace {

// NVIDIA's datasheets: A100 is Ampere, L4 Ada Lovelace, H100 and H200 Hopper, B200 Blackwell.
TEST(GpuCatalogTest, EachGpuNamesItsArchitecture) {
  const GpuCatalog catalog = GpuCatalog::Load(DataDirectory() + "/gpus.csv");
  auto generation = [&](const std::string& id) {
    const GpuSpec* g = catalog.TryFind(id);
    return g ? g->generation : std::string("(missing)");
  };
  EXPECT_EQ(generation("a100-80gb"), "ampere");
  EXPECT_EQ(generation("l4"), "ada");
  EXPECT_EQ(generation("h100"), "hopper");
  EXPECT_EQ(generation("h200"), "hopper");
  EXPECT_EQ(generation("b200"), "blackwell");
}

TEST(GpuCatalogTest, AMalformedGenerationNamesTheFileLineAndColumn) {
  const std::string path = ::testing::TempDir() + "/gpus_bad_generation.csv";
  {
    std::ofstream out(path);
    out << "id,name,aliases,marketed_gb,cuda_total_gib,mem_bandwidth_TB_per_s,bf16_dense_tflops,fp8_dense_tflops,"
           "int8_dense_tops,fp16_dense_tflops,sm_count,interconnect,source,generation\n"
        << "x1,X One,,80,79.1,3.35,989,1979,1979,989,132,nvls,datasheet,Hopper!\n";
  }
  try {
    GpuCatalog::Load(path);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2: column generation"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kvsim
