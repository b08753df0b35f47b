#include "kvcache/model/config_limits.h"

namespace kvsim {
namespace {

struct NamedRange {
  std::string_view key;
  FieldRange range;
};

constexpr int64_t kKi = 1024;

// Sizes are at most 2^18 wide, layers 4096, vocabularies 2^24, positions 2^32: with these the
// widest product the parser forms (vocab x hidden, experts x hidden x intermediate) stays < 2^60.
constexpr NamedRange kRanges[] = {
    {"hidden_size", {1, 256 * kKi}},          {"n_embd", {1, 256 * kKi}},
    {"d_model", {1, 256 * kKi}},              {"embed_dim", {1, 256 * kKi}},
    {"width", {1, 256 * kKi}},                {"num_hidden_layers", {1, 4 * kKi}},
    {"n_layer", {1, 4 * kKi}},                {"num_layers", {1, 4 * kKi}},
    {"depth", {1, 4 * kKi}},                  {"layers", {1, 4 * kKi}},
    {"num_attention_heads", {1, 16 * kKi}},   {"n_head", {1, 16 * kKi}},
    {"num_heads", {1, 16 * kKi}},             {"num_key_value_heads", {1, 16 * kKi}},
    {"num_kv_heads", {1, 16 * kKi}},          {"n_head_kv", {1, 16 * kKi}},
    {"head_dim", {1, 64 * kKi}},              {"vocab_size", {1, 16 * kKi * kKi}},
    {"padded_vocab_size", {1, 16 * kKi * kKi}}, {"draft_vocab_size", {1, 16 * kKi * kKi}},
    {"num_nextn_predict_layers", {0, 64}},    {"mtp_num_hidden_layers", {0, 64}},
    {"max_position_embeddings", {1, int64_t{1} << 32}}, {"n_positions", {1, int64_t{1} << 32}},
    {"max_seq_len", {1, int64_t{1} << 32}},   {"seq_length", {1, int64_t{1} << 32}},
    {"max_sequence_length", {1, int64_t{1} << 32}},
    {"original_max_position_embeddings", {1, int64_t{1} << 32}},
    {"intermediate_size", {1, 2 * kKi * kKi}}, {"ffn_hidden_size", {1, 2 * kKi * kKi}},
    {"n_inner", {1, 2 * kKi * kKi}},          {"ffn_dim", {1, 2 * kKi * kKi}},
    {"mlp_dim", {1, 2 * kKi * kKi}},          {"moe_intermediate_size", {1, 2 * kKi * kKi}},
    {"intermediate_size_mlp", {1, 2 * kKi * kKi}},   {"moe_latent_size", {1, 256 * kKi}},
    {"shared_expert_intermediate_size", {0, 2 * kKi * kKi}},
    {"num_local_experts", {0, 4 * kKi}},      {"num_experts", {0, 4 * kKi}},
    {"n_routed_experts", {0, 4 * kKi}},       {"moe_num_experts", {0, 4 * kKi}},
    {"num_experts_per_tok", {0, 4 * kKi}},    {"experts_per_token", {0, 4 * kKi}},
    {"moe_topk", {0, 4 * kKi}},               {"moe_k", {0, 4 * kKi}},
    {"n_shared_experts", {0, 4 * kKi}},       {"moe_num_shared_experts", {0, 4 * kKi}},
    {"sliding_window", {1, int64_t{1} << 32}}, {"sliding_window_size", {1, int64_t{1} << 32}},
    {"attention_chunk_size", {1, int64_t{1} << 32}},
    {"sliding_window_pattern", {1, 4 * kKi}}, {"full_attention_interval", {1, 4 * kKi}},
    {"num_kv_shared_layers", {0, 4 * kKi}},
    {"kv_lora_rank", {1, 64 * kKi}},          {"q_lora_rank", {0, 64 * kKi}},
    {"qk_nope_head_dim", {1, 64 * kKi}},      {"qk_rope_head_dim", {1, 64 * kKi}},
    {"v_head_dim", {1, 64 * kKi}},            {"index_n_heads", {0, 16 * kKi}},
    {"index_head_dim", {0, 64 * kKi}},        {"patch_size", {1, 64 * kKi}},
    {"index_topk_freq", {1, 4 * kKi}},        {"index_skip_topk_offset", {-4 * kKi, 4 * kKi}},
    {"image_size", {0, 64 * kKi}},            {"num_channels", {1, 64 * kKi}},
    {"in_channels", {1, 64 * kKi}},           {"in_chans", {1, 64 * kKi}},
    {"out_hidden_size", {1, 256 * kKi}},      {"vision_output_dim", {1, 256 * kKi}},
    {"projection_dim", {1, 256 * kKi}},       {"rotary_dim", {0, 64 * kKi}},
    {"rotary_emb_base", {0, int64_t{1} << 40}}, {"rope_theta", {0, int64_t{1} << 40}},
    {"moe_layer_freq", {1, 4 * kKi}},         {"moe_layer_interval", {1, 4 * kKi}},
    {"interleave_moe_layer_step", {1, 4 * kKi}}, {"decoder_sparse_step", {1, 4 * kKi}},
};

}  // namespace

FieldRange ConfigFieldRange(std::string_view key) {
  for (const NamedRange& r : kRanges)
    if (r.key == key) return r.range;
  return kDefaultConfigFieldRange;
}

std::string RangeText(FieldRange range) {
  return "[" + std::to_string(range.lo) + ", " + std::to_string(range.hi) + "]";
}

}  // namespace kvsim
