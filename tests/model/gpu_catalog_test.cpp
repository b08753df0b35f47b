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

// A --gpu-file row naming a generation kvsim has no compute capability for ("pascal", a typo such as
// "hoper") was read as "unknown", and vLLM's check of the weight format against the GPU passed without a
// word: FP8 weights on a Pascal card were planned. The generations of data/gpus.csv are all known.
TEST(GpuCatalogTest, AGenerationWithoutAComputeCapabilityIsRefused) {
  const std::string path = ::testing::TempDir() + "/gpus_unknown_generation.csv";
  for (const char* generation : {"pascal", "hoper"}) {
    {
      std::ofstream out(path);
      out << "id,name,aliases,marketed_gb,cuda_total_gib,mem_bandwidth_TB_per_s,bf16_dense_tflops,fp8_dense_tflops,"
             "int8_dense_tops,fp16_dense_tflops,sm_count,interconnect,source,generation\n"
          << "x1,X One,,16,15.9,0.732,,,,,56,pcie,datasheet," << generation << "\n";
    }
    try {
      GpuCatalog::Load(path);
      ADD_FAILURE() << "accepted " << generation;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ":2: column generation: '" + generation +
                                           "' is not a generation kvsim knows the compute capability of"),
                std::string::npos)
          << e.what();
    }
  }
  std::remove(path.c_str());
  const GpuCatalog table = GpuCatalog::Load(DataDirectory() + "/gpus.csv");
  for (const GpuSpec& g : table.gpus())
    EXPECT_GT(ComputeCapability(g), 0) << g.id;
}

// A row's figures are decimals within the bounds of the flags that override them: "0x10" was read as 16
// GiB (std::stod's hexadecimal), and a tensor peak or a link rate of 1e30 was taken, making step times and
// transfers vanish where --gpu-tflops 1e30 is refused.
TEST(GpuCatalogTest, HexadecimalAndBoundlessFiguresAreRefused) {
  const std::string path = ::testing::TempDir() + "/gpus_bad_figures.csv";
  const std::string header =
      "id,name,aliases,marketed_gb,cuda_total_gib,mem_bandwidth_TB_per_s,bf16_dense_tflops,fp8_dense_tflops,"
      "int8_dense_tops,fp16_dense_tflops,sm_count,interconnect,source,host_link_GB_per_s,nvlink_GB_per_s,nic_Gb_per_s\n";
  struct Case { const char* row; const char* expect; };
  for (const Case& c : {Case{"x1,X,,80,0x10,3.35,989,1979,1979,989,132,nvls,s,64,450,400", "column cuda_total_gib: '0x10'"},
                        Case{"x1,X,,80,79.1,3.35,1e30,1979,1979,989,132,nvls,s,64,450,400",
                             "column bf16_dense_tflops: '1e30' is not a dense tensor peak (at most 1e+07)"},
                        Case{"x1,X,,80,79.1,3.35,989,1979,1979,989,132,nvls,s,1e30,450,400",
                             "column host_link_GB_per_s: '1e30' is not a link rate"},
                        Case{"x1,X,,80,79.1,3.35,989,1979,1979,989,132,nvls,s,64,450,1e300",
                             "column nic_Gb_per_s: '1e300' is not a link rate"}}) {
    {
      std::ofstream out(path);
      out << header << c.row << "\n";
    }
    try {
      GpuCatalog::Load(path);
      ADD_FAILURE() << "accepted " << c.row;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ":2: " + c.expect), std::string::npos) << e.what();
    }
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kvsim
