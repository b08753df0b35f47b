// LoRA slot buffers, byte for byte against vLLM's create_lora_weights (vllm/lora/layers/
// base_linear.py, column_parallel_linear.py, vocal_parallel_embedding.py, logits_processor.py; the
// v0.11 line), derived by hand from Llama-3.1-8B's config.json:
//   h 4096, 32 heads x 128 (q 4096), 8 KV heads (k, v 1024), intermediate 14336, 32 layers,
//   vocab 128256, untied lm_head; bf16 (2 B); --max-loras 4 --max-lora-rank 64; extra vocab 256.
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/budget/lora_memory.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/weight_tensors.h"

namespace kvsim {
namespace {

DeploymentOptions Llama8bLora(int tp = 1) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.gpu = "a100-80gb";
  o.tensor_parallel_size = tp;
  o.enable_lora = true;
  o.max_loras = "4";
  o.max_lora_rank = "64";
  o.vllm_version = "0.11";  // the release with lora_extra_vocab_size (0.12 removed it)
  return o;
}

CapacityResult Plan(const DeploymentOptions& o) {
  const Deployment d = ResolveDeployment(o, DataDirectory());
  return PlanCapacity(d.model, d.gpu, d.config);
}

const LoraModuleBytes& Module(const LoraMemory& m, const std::string& name) {
  for (const auto& x : m.modules)
    if (x.module == name) return x;
  throw Error("no module " + name);
}

const LoraKernelShape& Kernel(const LoraMemory& m, const std::string& name) {
  for (const auto& x : m.kernels)
    if (x.module == name) return x;
  throw Error("no kernel shape " + name);
}

// What the punica kernels see per layer and adapter, at TP 2 (the replay's LoRA step time): qkv's
// three slices (q 4096 / 2 = 2048 rows, k and v 1024 / 2 = 512 each) over the whole input 4096;
// down_proj's A over this rank's half of the intermediate (14336 / 2 = 7168), B the whole 4096.
TEST(LoraMemoryTest, KernelShapesPerLayerAndAdapter) {
  const LoraMemory m = Plan(Llama8bLora(2)).lora;
  const LoraKernelShape& qkv = Kernel(m, "qkv_proj");
  EXPECT_EQ(qkv.layers, 32);
  EXPECT_EQ(qkv.slices, 3);
  EXPECT_EQ(qkv.rank, 64);
  EXPECT_EQ(qkv.in, 4096);
  EXPECT_EQ(qkv.out_total, 2048 + 512 + 512);
  EXPECT_EQ(qkv.a_elements, 3 * 64 * 4096);
  EXPECT_EQ(qkv.b_elements, 3072 * 64);
  const LoraKernelShape& gate_up = Kernel(m, "gate_up_proj");
  EXPECT_EQ(gate_up.slices, 2);
  EXPECT_EQ(gate_up.out_total, 14336);  // 2 x 7168
  const LoraKernelShape& down = Kernel(m, "down_proj");
  EXPECT_EQ(down.slices, 1);
  EXPECT_EQ(down.in, 7168);
  EXPECT_EQ(down.out_total, 4096);
  EXPECT_TRUE(Kernel(m, "lm_head").per_sequence);
  EXPECT_TRUE(Kernel(m, "embed_tokens").gather);
  // The adapter's slot holds the same elements, summed over the layers, times the 4 slots.
  EXPECT_DOUBLE_EQ(Module(m, "qkv_proj").a_bytes, 4.0 * 32 * static_cast<double>(qkv.a_elements) * 2);
  EXPECT_DOUBLE_EQ(Module(m, "qkv_proj").b_bytes, 4.0 * 32 * static_cast<double>(qkv.b_elements) * 2);
}

TEST(LoraMemoryTest, Llama8bFourSlotsRank64ModuleByModule) {
  const CapacityResult r = Plan(Llama8bLora());
  const LoraMemory& m = r.lora;
  // qkv_proj (MergedQKVParallelLinearWithLoRA, 3 slices): A 3 x [4, 1, 64, 4096] x 2 B = 6,291,456;
  // B [4, 1, 4096|1024|1024, 64] x 2 B = 4 x 6144 x 64 x 2 = 3,145,728; x 32 layers.
  EXPECT_EQ(Module(m, "qkv_proj").layers, 32);
  EXPECT_DOUBLE_EQ(Module(m, "qkv_proj").a_bytes, 32.0 * 6291456);
  EXPECT_DOUBLE_EQ(Module(m, "qkv_proj").b_bytes, 32.0 * 3145728);
  // o_proj (RowParallel): A [4, 1, 64, 4096], B [4, 1, 4096, 64]: 2,097,152 each per layer.
  EXPECT_DOUBLE_EQ(Module(m, "o_proj").a_bytes, 32.0 * 2097152);
  EXPECT_DOUBLE_EQ(Module(m, "o_proj").b_bytes, 32.0 * 2097152);
  // gate_up_proj (MergedColumnParallel, 2 slices): A 2 x [4, 1, 64, 4096] = 4,194,304;
  // B 2 x [4, 1, 14336, 64] = 14,680,064.
  EXPECT_DOUBLE_EQ(Module(m, "gate_up_proj").a_bytes, 32.0 * 4194304);
  EXPECT_DOUBLE_EQ(Module(m, "gate_up_proj").b_bytes, 32.0 * 14680064);
  // down_proj (RowParallel): A [4, 1, 64, 14336] = 7,340,032; B [4, 1, 4096, 64] = 2,097,152.
  EXPECT_DOUBLE_EQ(Module(m, "down_proj").a_bytes, 32.0 * 7340032);
  EXPECT_DOUBLE_EQ(Module(m, "down_proj").b_bytes, 32.0 * 2097152);
  // embed_tokens: A [4, 128256 + 256, 64] = 65,798,144; B [4, 1, 4096, 64] = 2,097,152;
  // embeddings_tensors [4, 256, 4096] = 8,388,608.
  EXPECT_DOUBLE_EQ(Module(m, "embed_tokens").a_bytes, 65798144);
  EXPECT_DOUBLE_EQ(Module(m, "embed_tokens").b_bytes, 2097152);
  EXPECT_DOUBLE_EQ(Module(m, "embed_tokens").other_bytes, 8388608);
  // lm_head (LogitsProcessorWithLoRA): A [4, 1, 64, 4096] = 2,097,152; B [4, 1, 128512 (a multiple
  // of 256 already), 64] = 65,798,144; embeddings_tensors [4, 256, 4096] = 8,388,608.
  EXPECT_DOUBLE_EQ(Module(m, "lm_head").a_bytes, 2097152);
  EXPECT_DOUBLE_EQ(Module(m, "lm_head").b_bytes, 65798144);
  EXPECT_DOUBLE_EQ(Module(m, "lm_head").other_bytes, 8388608);
  // The base embedding and lm_head each gain 256 rows x 4096 x 2 B = 2,097,152.
  EXPECT_DOUBLE_EQ(m.extra_vocab_weight_bytes, 4194304);
  // Layers 41,943,040 x 32 = 1,342,177,280; embed 76,283,904; lm_head 76,283,904; rows 4,194,304.
  EXPECT_DOUBLE_EQ(m.gpu_bytes(), 1498939392.0);
}

TEST(LoraMemoryTest, NoExtraVocabularyFromVllm012) {
  DeploymentOptions o = Llama8bLora();
  o.vllm_version = "0.19";
  const LoraMemory m = Plan(o).lora;
  // A [4, 128256, 64] x 2 B = 65,667,072; no embeddings_tensors, no extra rows.
  EXPECT_DOUBLE_EQ(Module(m, "embed_tokens").a_bytes, 65667072);
  EXPECT_DOUBLE_EQ(Module(m, "embed_tokens").other_bytes, 0);
  EXPECT_DOUBLE_EQ(m.extra_vocab_weight_bytes, 0);
}

TEST(LoraMemoryTest, SlotsComeOutOfTheKvBudget) {
  DeploymentOptions plain = Llama8bLora();
  plain.enable_lora = false;
  plain.max_loras.clear();
  plain.max_lora_rank.clear();
  const CapacityResult without = Plan(plain), with = Plan(Llama8bLora());
  EXPECT_DOUBLE_EQ(with.weights_bytes - without.weights_bytes, 1498939392.0);
  EXPECT_NEAR(without.kv_cache_bytes - with.kv_cache_bytes, 1498939392.0, 1.0);
}

TEST(LoraMemoryTest, TensorParallelShardsOutputsOfColumnAndInputsOfRowLayers) {
  const LoraMemory m = Plan(Llama8bLora(2)).lora;
  // TP 2: qkv B over 2048 + 512 + 512 rows = 4 x 3072 x 64 x 2 = 1,572,864; A whole (6,291,456).
  EXPECT_DOUBLE_EQ(Module(m, "qkv_proj").a_bytes, 32.0 * 6291456);
  EXPECT_DOUBLE_EQ(Module(m, "qkv_proj").b_bytes, 32.0 * 1572864);
  // o_proj: A over 2048 inputs = 1,048,576; B whole (2,097,152).
  EXPECT_DOUBLE_EQ(Module(m, "o_proj").a_bytes, 32.0 * 1048576);
  EXPECT_DOUBLE_EQ(Module(m, "o_proj").b_bytes, 32.0 * 2097152);
  // The vocabulary buffers are not split (the LoRA logits are added after the gather).
  EXPECT_DOUBLE_EQ(Module(m, "lm_head").b_bytes, 65798144);
}

TEST(LoraMemoryTest, FullyShardedSplitsTheRankOfColumnParallelA) {
  DeploymentOptions o = Llama8bLora(2);
  o.fully_sharded_loras = true;
  const LoraMemory m = Plan(o).lora;
  // A [4, 1, 64 / 2, 4096] x 3 slices = 3,145,728; row-parallel B over 4096 / 2 rows = 1,048,576.
  EXPECT_DOUBLE_EQ(Module(m, "qkv_proj").a_bytes, 32.0 * 3145728);
  EXPECT_DOUBLE_EQ(Module(m, "o_proj").b_bytes, 32.0 * 1048576);
}

TEST(LoraMemoryTest, HostCacheHoldsWholeAdapters) {
  DeploymentOptions o = Llama8bLora();
  o.max_cpu_loras = "8";
  const LoraMemory m = Plan(o).lora;
  // One rank-64 adapter over q, k, v, o, gate, up, down (PEFT's seven modules), per layer:
  // 64 x [(4096 + 4096) + (1024 + 4096) x 2 + (4096 + 4096) + (14336 + 4096) x 2 + (4096 + 14336)]
  // = 64 x 81,920 = 5,242,880 elements x 2 B = 10,485,760; x 32 layers = 335,544,320 B.
  EXPECT_DOUBLE_EQ(m.host_bytes_per_adapter, 335544320.0);
  EXPECT_DOUBLE_EQ(m.host_bytes, 8 * 335544320.0);
}

TEST(LoraMemoryTest, RefusesWhatVllmRefuses) {
  DeploymentOptions o = Llama8bLora();
  o.max_lora_rank = "48";  // not in vLLM's MaxLoRARanks
  EXPECT_THROW(Plan(o), Error);
  o = Llama8bLora();
  o.max_cpu_loras = "2";  // below --max-loras 4
  EXPECT_THROW(Plan(o), Error);
  o = DeploymentOptions();
  o.max_loras = "4";  // without --enable-lora vLLM builds no LoRA config: refused, not ignored
  EXPECT_THROW(Plan(o), Error);
}

}  // namespace
}  // namespace kvsim
