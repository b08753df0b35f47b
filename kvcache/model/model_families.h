// What a config.json leaves implicit, by model family: the defaults of the family's Hugging Face
// config class (tied embeddings, MLP width, context length) and the tensor shapes its vLLM model
// class builds (norm kind, biases, plain or gated MLP, RoPE or learned positions, which layers are
// MoE, which attend over a window and which keep no per-token KV at all).
//
// Families with rules here (by model_type): llama, llama4, mistral, mixtral, qwen2, qwen2_moe,
// qwen3, qwen3_moe, qwen3_next, qwen3_5(_moe), gemma, gemma2, gemma3, cohere, cohere2, phi, phi3, gpt_oss,
// deepseek_v2/v3/v32 and anything with DeepSeek-style MoE fields (kimi_k2, glm4_moe, glm_moe_dsa, ...),
// minimax_m2, ernie4_5_moe,
// gpt2, gpt_bigcode, gpt_neox, falcon, starcoder2, nemotron, opt. Other types read as a Llama-style
// decoder with the usual field names.
#ifndef KVSIM_KVCACHE_MODEL_MODEL_FAMILIES_H_
#define KVSIM_KVCACHE_MODEL_MODEL_FAMILIES_H_

#include <string>

#include "kvcache/model/config_field_reader.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

// Qwen3-Next and Qwen3.5 (text and MoE): Gated DeltaNet linear-attention layers beside gated full
// attention, whose query projection also yields a sigmoid gate per channel (vLLM's qwen3_next.py and
// qwen3_5.py; Qwen3.5 splits in_proj_qkvz / in_proj_ba into four projections of the same total width).
bool UsesGatedDeltaNet(const std::string& model_type);

// A nemotron_h config that lists its blocks (layers_block_type) without num_hidden_layers: the list's
// length, as transformers v5's NemotronHConfig derives it.
void FillDepthFromBlockList(nlohmann::json& text);

// Whether the family's config class ties input and output embeddings when the file does not say.
bool TiesEmbeddingsByDefault(const std::string& model_type);

// Fills what a multimodal wrapper's text_config leaves to its config class: LlamaConfig's defaults
// for llava-style wrappers, Gemma3TextConfig's for gemma3 (the published gemma-3 configs state only
// the fields that differ: no vocab_size, max_position_embeddings, and head_dim only for 27B).
// `root_type` is the wrapper's model_type. Fields the file states are kept.
void FillConfigClassDefaults(nlohmann::json& text, const std::string& root_type);

// Fields some families omit from config.json because their config class has a default.
int64_t DefaultIntermediateSize(const std::string& model_type, int64_t hidden_size);  // 0: required
int64_t DefaultMaxPositions(const std::string& model_type);                           // 0: required

// KV heads as the family's vLLM model class derives them (Falcon: new_decoder_architecture and
// multi_query decide). Leaves spec.num_kv_heads alone for other families.
void ReadFamilyKvHeads(const FieldReader& r, const std::string& model_type, ModelSpec& spec);

// Norm kind and count, biases, MLP kind, learned positions, RoPE width. REQUIRES: the common
// shape fields of `spec` are filled.
void ReadFamilyShape(const FieldReader& r, const std::string& model_type, ModelSpec& spec);

// Routed and shared experts and which layers are MoE.
void ReadMoe(const FieldReader& r, const std::string& model_type, ModelSpec& spec);

// DeepSeek multi-head latent attention, when the config has kv_lora_rank.
void ReadMla(FieldReader& r, const std::string& model_type, ModelSpec& spec);

// Nemotron-H's hybrid_override_pattern: one character per layer, each layer one block -- 'M' a
// Mamba2 mixer, '*' attention, '-' an MLP, 'E' an MoE (vLLM's nemotron_h.py ALL_DECODER_LAYER_TYPES).
// A config in transformers v5's layout lists them instead (layers_block_type: mamba, attention, mlp,
// moe), read as the same characters. Empty when the config has neither; throws kvsim::Error when it
// does not describe `layers` blocks.
std::string HybridPattern(const FieldReader& r, const std::string& type, int64_t layers);

// Per-layer attention kind (layer_attention.cpp): full, sliding window, chunked local, or state-only (linear attention
// and SSM layers, which keep a fixed-size state per request and no per-token KV); and which layers
// read another layer's KV (num_kv_shared_layers, Gemma 3n) instead of keeping their own.
void ReadLayerAttention(const FieldReader& r, const std::string& model_type, ModelSpec& spec);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_MODEL_FAMILIES_H_
