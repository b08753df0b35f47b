// The model families kvsim knows how to read, and the check that refuses the others.
//
// A config.json's fields do not mean the same thing in every family: Qwen (v1) counts both MLP
// halves in intermediate_size, ChatGLM names its KV groups multi_query_group_num, DBRX nests its
// shapes in ffn_config/attn_config. Reading an unfamiliar model_type as a Llama-style decoder would
// give an answer that looks right and is not, so a type outside this list is refused with the way
// round it: `--hf-overrides '{"model_type": "llama"}'` when the user knows the layout is Llama's.
#ifndef KVSIM_KVCACHE_MODEL_KNOWN_FAMILIES_H_
#define KVSIM_KVCACHE_MODEL_KNOWN_FAMILIES_H_

#include <string>
#include <vector>

namespace kvsim {

// True when `model_type` (the language model's, text_config's for a multimodal wrapper) is one whose
// fields kvsim reads as that family's vLLM model class does.
bool IsKnownModelFamily(const std::string& model_type);

// The known types, sorted, for messages and `kvsim models --families`.
std::vector<std::string> KnownModelFamilies();

// Throws kvsim::Error naming the file, the type and the architecture when the family is unknown.
void RequireKnownModelFamily(const std::string& model_type, const std::string& architecture, const std::string& source);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_KNOWN_FAMILIES_H_
