// A config's RoPE scaling as vLLM reads it: which scaling types it builds, the keys each needs, and the
// context length a scaling factor stretches the position limit to.
#ifndef KVSIM_KVCACHE_MODEL_ROPE_SCALING_H_
#define KVSIM_KVCACHE_MODEL_ROPE_SCALING_H_

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace kvsim {

// Whether the text config's rope_scaling (or rope_parameters) carries an mrope_section (multimodal RoPE).
bool HasMropeSection(const nlohmann::json& text);

// vLLM's derived max_model_len from the position limit `max_pos` and the text config's rope_scaling (or
// rope_parameters). Throws kvsim::Error, naming `source` and the field under `prefix`, for a scaling vLLM
// refuses: an unknown type, a factor without a type, the two type spellings disagreeing, a key get_rope
// needs missing, a factor that is not a positive number.
int64_t DeriveMaxModelLen(const nlohmann::json& text, int64_t max_pos, const std::string& source,
                          const std::string& prefix);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_ROPE_SCALING_H_
