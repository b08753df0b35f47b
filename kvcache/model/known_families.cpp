#include "kvcache/model/known_families.h"

#include <algorithm>
#include <iterator>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"

namespace kvsim {
namespace {

// Families with their own rules in model_families.cpp / model_config_parser.cpp, and the multimodal
// wrappers whose text_config kvsim reads.
constexpr const char* kFamiliesWithRules[] = {
    "bloom", "cohere", "cohere2", "deepseek_v2", "deepseek_v3", "deepseek_v32", "ernie4_5_moe", "falcon", "gemma",
    "gemma2", "gemma3", "gemma3_text", "gemma3n", "gemma3n_text", "glm4_moe", "glm4v_moe", "glm4v_moe_text",
    "glm_moe_dsa", "gpt2", "gpt_bigcode", "gpt_neox", "gpt_oss", "granitemoehybrid", "kimi_k2", "kimi_k25", "kimi_vl",
    "llama", "llama4", "llama4_text", "llava", "llava_next", "minimax_m2", "mistral", "mistral3", "mixtral", "mpt",
    "nemotron", "nemotron_h", "opt", "phi", "phi3", "qwen", "qwen2", "qwen2_5_vl", "qwen2_5_vl_text", "qwen2_moe",
    "qwen2_vl", "qwen2_vl_text", "qwen3", "qwen3_5", "qwen3_5_moe", "qwen3_5_moe_text", "qwen3_5_text", "qwen3_moe",
    "qwen3_next", "qwen3_vl", "qwen3_vl_moe", "qwen3_vl_moe_text", "qwen3_vl_text", "starcoder2"};

// Families whose vLLM model class reads the Llama field names with Llama's meaning (hidden_size,
// intermediate_size of one gated-MLP half, num_attention_heads, num_key_value_heads,
// num_hidden_layers, head_dim or hidden/heads), checked against the model files in vllm/model_executor/
// models/ (v0.11): granite.py (adds only scalar multipliers), granitemoe.py (Mixtral's expert
// fields), internlm2.py, olmo.py and olmo2.py (norms without weights or with QK norms), minicpm.py,
// baichuan.py (multi-head attention, no num_key_value_heads), stablelm.py (partial_rotary_factor),
// exaone.py (num_layers, which kvsim reads as an alias), glm4.py and glm.py (partial rotary), phimoe.py
// (Mixtral's layout); InternLM, InternLM3, Aquila, XVERSE, ERNIE 4.5 (dense) and SmolLM3 run on llama.py.
constexpr const char* kLlamaLayoutFamilies[] = {
    "aquila", "baichuan", "ernie4_5", "exaone", "exaone4", "glm", "glm4", "granite", "granitemoe",
    "granitemoeshared", "internlm", "internlm2", "internlm3", "minicpm", "olmo", "olmo2", "olmo3", "phimoe",
    "smollm3", "stablelm", "xverse"};

// Families vLLM serves that kvsim refuses, with the reason: what their layers hold that kvsim cannot size.
struct RefusedFamily {
  const char* model_type;
  const char* reason;
};
constexpr RefusedFamily kRefusedFamilies[] = {
    {"kimi_linear",
     "Kimi-Linear's Kimi Delta Attention layers keep per-request short-convolution and recurrent states of their "
     "own shapes (vLLM's kda.py KimiDeltaAttention.get_state_shape), a state layout kvsim does not model beside "
     "its MLA layers"},
    {"diffusion_gemma",
     "DiffusionGemma is a block-diffusion language model: it denoises a fixed-length canvas of tokens over several "
     "steps (canvas_length) instead of decoding one token per step, which kvsim's autoregressive prefill/decode "
     "model does not describe"},
    {"minimax_m3",
     "MiniMax-M3's MSA sparse attention (sparse_attention_config: index heads that pick sparse_topk_blocks blocks "
     "of sparse_block_size tokens per query, on the layers sparse_attention_freq marks) keeps a cache layout kvsim "
     "does not model"},
};

}  // namespace

std::vector<std::string> KnownModelFamilies() {
  std::vector<std::string> all(std::begin(kFamiliesWithRules), std::end(kFamiliesWithRules));
  all.insert(all.end(), std::begin(kLlamaLayoutFamilies), std::end(kLlamaLayoutFamilies));
  std::sort(all.begin(), all.end());
  return all;
}

bool IsKnownModelFamily(const std::string& model_type) {
  const auto same = [&](const char* known) { return model_type == known; };
  return std::any_of(std::begin(kFamiliesWithRules), std::end(kFamiliesWithRules), same) ||
         std::any_of(std::begin(kLlamaLayoutFamilies), std::end(kLlamaLayoutFamilies), same);
}

void RequireKnownModelFamily(const std::string& model_type, const std::string& architecture, const std::string& source) {
  if (IsKnownModelFamily(model_type)) return;
  for (const RefusedFamily& f : kRefusedFamilies)
    if (model_type == f.model_type)
      throw Error(source + ": model_type '" + model_type + "'" + (architecture.empty() ? "" : " (" + architecture + ")") +
                  " is not modelled: " + f.reason);
  const std::string what = model_type.empty() || model_type == "unknown" ? "a config without model_type"
                                                                         : "model_type '" + model_type + "'";
  throw Error(source + ": " + what + (architecture.empty() ? "" : " (" + architecture + ")") +
              " is not a family kvsim knows; its fields may not mean what they mean for Llama, so kvsim does not "
              "guess. If its layout is Llama's (gated MLP, intermediate_size per half, num_key_value_heads), say so "
              "with --hf-overrides '{\"model_type\": \"llama\"}'. Known: " + Join(KnownModelFamilies(), ", "));
}

}  // namespace kvsim
