// Weight quantization: what a checkpoint (or a --quantization flag) stores per weight.
//
// Byte formulas per linear weight of shape [out, in] (reference/serving-memory-facts.md §7):
//   none           elements × dtype bytes
//   fp8 / int8     elements × 1 + scales (per tensor: 4 B; per channel: out × 4 B;
//                  128×128 blocks: ceil(out/128) × ceil(in/128) × 4 B)
//   gptq / awq     elements × bits/8 + (in/G) × out × (2 B scale + bits/8 zero) (+ in × 4 B g_idx, gptq)
//   w4a16 (compressed-tensors, symmetric)  elements/2 + (in/G) × out × 2 B
//   bnb nf4/fp4    elements/2 + elements/64 × 4 B absmax; double quant: elements/64 × 1 B +
//                  elements/16384 × 4 B
//   bnb int8       elements + out × 4 B
//   mxfp4          elements/2 + elements/32 × 1 B (one E8M0 scale per 32)
//   nvfp4          elements/2 + elements/16 × 1 B (one E4M3 scale per 16) + 2 × 4 B (weight_scale_2,
//                  input_scale), as vLLM's ModelOptNvFp4LinearMethod.create_weights allocates them
// Embeddings, lm_head, norms, biases and MoE routers stay in the model dtype.
#ifndef KVSIM_KVCACHE_MODEL_QUANTIZATION_H_
#define KVSIM_KVCACHE_MODEL_QUANTIZATION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kvsim {

enum class QuantMethod {
  kNone,
  kFp8,            // fp8 weights (e4m3), dynamic or static activations
  kInt8,           // int8 weights with per-channel scales (w8a8, SmoothQuant-style)
  kGptq,           // int-N weights, group scales and packed zeros, g_idx
  kAwq,            // int-N weights, group scales and packed zeros
  kInt4Symmetric,  // compressed-tensors w4a16: group scales, no zeros
  kBitsAndBytes4,  // nf4 / fp4 with blocks of 64
  kBitsAndBytes8,  // LLM.int8
  kMxfp4,          // OCP microscaling fp4 (gpt-oss experts)
  kNvfp4,          // NVIDIA fp4 (ModelOpt / Blackwell): e2m1 weights, an fp8 scale per 16, two fp32 per tensor
};

enum class ScaleGranularity { kPerTensor, kPerChannel, kBlock };

struct QuantizationSpec {
  QuantMethod method = QuantMethod::kNone;
  int bits = 16;
  int64_t group_size = 128;          // gptq/awq/w4a16; -1 = one group per column
  ScaleGranularity fp8_scales = ScaleGranularity::kPerChannel;
  int64_t block_rows = 128;          // fp8 block scales
  int64_t block_cols = 128;
  bool double_quant = false;         // bitsandbytes 4-bit nested absmax
  bool experts_only = false;         // mxfp4 in gpt-oss: attention stays 16-bit
  bool attention_unquantized = false;  // ModelOpt's exclude_modules keeps self_attn 16-bit (NVIDIA's DeepSeek FP4)
  // Layers whose mixer projections ModelOpt's exclude_modules names one by one ("backbone.layers.5.mixer.q_proj",
  // NVIDIA's Nemotron-3 recipe: the attention layers and the Mamba layer before each): their attention or SSM
  // projections stay 16-bit while the rest of the model is quantized. Sorted, no duplicates.
  std::vector<int64_t> unquantized_mixer_layers;
  // ModelOpt MIXED_PRECISION (modelopt_mixed_precision.h): the attention and mixer projections in fp8
  // with per-tensor scales while the MLPs and experts are in `method`, and the lm_head quantized too.
  bool attention_fp8 = false;
  bool lm_head_quantized = false;
  // The KV-cache format a ModelOpt checkpoint was calibrated for (hf_quant_config's kv_cache_quant_algo,
  // as --kv-cache-dtype spells it: "fp8"); empty when it names none.
  std::string kv_cache_dtype;
  std::string name = "none";         // as vLLM spells it
};

// Storage bytes of `copies` linear weights of shape [out, in] under `spec`, where the weights would
// be `dtype_bytes` wide unquantized.
double LinearWeightBytes(const QuantizationSpec& spec, int64_t out, int64_t in, double dtype_bytes);

// bitsandbytes NF4 with double quantization, blocks of 64: vLLM's in-flight --quantization
// bitsandbytes and QLoRA's frozen base.
QuantizationSpec BitsAndBytesNf4();
// NVIDIA fp4 in blocks of 16 (ModelOpt's NVFP4, --quantization modelopt_fp4 / nvfp4).
QuantizationSpec Nvfp4();

// The format `spec` stores the attention and mixer projections in: its own, or fp8 with per-tensor
// scales for a ModelOpt MIXED_PRECISION checkpoint (attention_fp8).
QuantizationSpec AttentionFormat(const QuantizationSpec& spec);

// Reads a Hugging Face `quantization_config` object. Throws kvsim::Error naming `source` and the
// field for a method kvsim does not know.
QuantizationSpec ParseQuantizationConfig(const nlohmann::json& config, const std::string& source);

// Reads a --quantization value as vLLM spells it (awq, gptq, fp8, bitsandbytes, mxfp4,
// compressed-tensors, awq_marlin, gptq_marlin, ...) plus the what-ifs int8, int4 and none.
// `checkpoint` is what the config declared; methods that only say "use the checkpoint's format"
// (compressed-tensors, *_marlin) keep its parameters. Throws kvsim::Error for unknown names.
QuantizationSpec ParseQuantizationFlag(std::string_view flag, const QuantizationSpec& checkpoint);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_QUANTIZATION_H_
