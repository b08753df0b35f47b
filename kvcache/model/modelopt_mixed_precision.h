// A ModelOpt MIXED_PRECISION checkpoint: NVIDIA's NVFP4 releases of Qwen3.5/3.6 and Nemotron-3.5 name a
// format per module in quantization_config.quantized_layers (hf_quant_config.json's "quantization"
// block, or the config.json's quantization_config): W4A16_NVFP4 for the MLPs, experts and lm_head, FP8
// for the attention and linear-attention / Mamba projections; a module it does not name stays in the
// model dtype. kvsim sizes one format per class of module, so a checkpoint whose modules of one class
// disagree is refused rather than sized by one of them.
#ifndef KVSIM_KVCACHE_MODEL_MODELOPT_MIXED_PRECISION_H_
#define KVSIM_KVCACHE_MODEL_MODELOPT_MIXED_PRECISION_H_

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace kvsim {

struct MixedPrecisionFormats {
  bool main_fp8 = false;              // the MLPs' and experts' format: fp8 (true) or nvfp4 (false)
  bool attention_fp8 = false;         // attention and mixer projections in fp8 while the rest is nvfp4
  bool attention_unquantized = false;  // none of them named: the model dtype
  bool experts_only = false;          // only the routed experts named
  bool lm_head_quantized = false;     // lm_head named, in the main format
};

// Reads quantized_layers. Throws kvsim::Error naming `source` and the field for a module kvsim cannot
// place, a format other than FP8 / NVFP4 / W4A16_NVFP4, or one class of modules in two formats.
MixedPrecisionFormats ReadModelOptMixedPrecision(const nlohmann::json& config, const std::string& source);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_MODELOPT_MIXED_PRECISION_H_
