// Storage bytes per weight, from the formats' definitions (serving-memory-facts §7).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/model/quantization.h"

namespace kvsim {
namespace {

double BytesPerParam(const QuantizationSpec& q, int64_t out = 4096, int64_t in = 4096) {
  return LinearWeightBytes(q, out, in, 2.0) / static_cast<double>(out * in);
}

TEST(QuantizationTest, GroupwiseInt4CostsScalesAndZeros) {
  const QuantizationSpec awq = ParseQuantizationFlag("awq", {});
  EXPECT_DOUBLE_EQ(BytesPerParam(awq), 0.5 + 2.0 / 128 + 0.5 / 128);  // 0.51953125 B (4.156 bits)
  const QuantizationSpec gptq = ParseQuantizationFlag("gptq", {});
  EXPECT_DOUBLE_EQ(BytesPerParam(gptq), 0.5 + 2.0 / 128 + 0.5 / 128 + 4.0 / 4096);  // + int32 g_idx per input
}

TEST(QuantizationTest, BitsAndBytesBlocksOf64) {
  QuantizationSpec nf4;
  nf4.method = QuantMethod::kBitsAndBytes4;
  EXPECT_DOUBLE_EQ(BytesPerParam(nf4), 0.5625);  // 4 + 32/64 bits
  nf4.double_quant = true;                        // QLoRA: 8/64 + 32/(64·256) bits of constants
  EXPECT_NEAR(BytesPerParam(nf4) * 8, 4.0 + 8.0 / 64 + 32.0 / (64 * 256), 1e-12);
  // vLLM's in-flight quantization is nf4 with double quantization.
  EXPECT_TRUE(ParseQuantizationFlag("bitsandbytes", {}).double_quant);
}

TEST(QuantizationTest, Mxfp4AndFp8) {
  QuantizationSpec mx;
  mx.method = QuantMethod::kMxfp4;
  EXPECT_DOUBLE_EQ(BytesPerParam(mx), 0.5 + 1.0 / 32);  // 4.25 bits
  const QuantizationSpec fp8 = ParseQuantizationFlag("fp8", {});
  EXPECT_DOUBLE_EQ(LinearWeightBytes(fp8, 4096, 4096, 2.0), 4096.0 * 4096 + 4);  // per-tensor scale
  const QuantizationSpec int8 = ParseQuantizationFlag("int8", {});
  EXPECT_DOUBLE_EQ(LinearWeightBytes(int8, 4096, 1024, 2.0), 4096.0 * 1024 + 4096 * 4);  // per-channel
}

// NVFP4 as vLLM's ModelOptNvFp4LinearMethod allocates it for a [4096, 4096] linear: the packed
// e2m1 weight 4096 x 2048 B, an fp8 scale per 16 weights 4096 x 256 B, and two fp32 per tensor.
TEST(QuantizationTest, Nvfp4FromTheFlagAndAModelOptCheckpoint) {
  const QuantizationSpec flag = ParseQuantizationFlag("nvfp4", {});
  EXPECT_DOUBLE_EQ(LinearWeightBytes(flag, 4096, 4096, 2.0), 4096.0 * 2048 + 4096.0 * 256 + 8);
  EXPECT_EQ(ParseQuantizationFlag("modelopt_fp4", {}).method, QuantMethod::kNvfp4);
  const auto modelopt = ParseQuantizationConfig(
      nlohmann::json::parse(R"({"quant_method":"modelopt","quant_algo":"NVFP4","group_size":16})"), "c.json");
  EXPECT_EQ(modelopt.method, QuantMethod::kNvfp4);
  EXPECT_EQ(ParseQuantizationConfig(nlohmann::json::parse(R"({"quant_method":"modelopt","quant_algo":"FP8"})"), "c.json").method,
            QuantMethod::kFp8);
  EXPECT_THROW(ParseQuantizationConfig(nlohmann::json::parse(R"({"quant_method":"modelopt","quant_algo":"W4A8_AWQ"})"), "c.json"),
               Error);
}

TEST(QuantizationTest, ReadsCheckpointConfigs) {
  const auto block = ParseQuantizationConfig(nlohmann::json::parse(
      R"({"quant_method":"fp8","weight_block_size":[128,128],"activation_scheme":"dynamic"})"), "c.json");
  EXPECT_EQ(block.fp8_scales, ScaleGranularity::kBlock);
  EXPECT_DOUBLE_EQ(LinearWeightBytes(block, 256, 384, 2.0), 256.0 * 384 + 2 * 3 * 4);
  const auto awq = ParseQuantizationConfig(nlohmann::json::parse(
      R"({"quant_method":"awq","bits":4,"group_size":64,"zero_point":true})"), "c.json");
  EXPECT_EQ(awq.group_size, 64);
  EXPECT_THROW(ParseQuantizationConfig(nlohmann::json::parse(R"({"quant_method":"magic"})"), "c.json"), Error);
  EXPECT_THROW(ParseQuantizationFlag("int3", {}), Error);
}

// A GPTQ or AWQ quantization_config without its bits is refused (vLLM's config reader refuses it too):
// it was planned as 4 bits, half the weights of an 8-bit GPTQ checkpoint.
TEST(QuantizationTest, GroupIntegerConfigWithoutBitsIsRefused) {
  for (const char* config : {R"({"quant_method":"gptq","group_size":128})", R"({"quant_method":"awq","group_size":128,"bits":null})"}) {
    try {
      ParseQuantizationConfig(nlohmann::json::parse(config), "c.json");
      ADD_FAILURE() << "accepted " << config;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("c.json: quantization_config.bits: missing"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(ParseQuantizationConfig(nlohmann::json::parse(R"({"quant_method":"gptq","bits":8,"group_size":128})"), "c.json").bits, 8);
  EXPECT_EQ(ParseQuantizationConfig(nlohmann::json::parse(R"({"quant_method":"awq","w_bit":4,"q_group_size":128})"), "c.json").bits, 4);
}

}  // namespace
}  // namespace kvsim
