// Element formats for weights, activations and the KV cache, with their storage size.
#ifndef KVSIM_KVCACHE_MODEL_NUMERIC_FORMAT_H_
#define KVSIM_KVCACHE_MODEL_NUMERIC_FORMAT_H_

#include <optional>
#include <string>
#include <string_view>

namespace kvsim {

enum class NumericFormat { kFloat32, kFloat16, kBFloat16, kFp8, kInt8, kInt4 };

// Bytes one element occupies (int4: 0.5).
double BytesPerElement(NumericFormat format);

// Canonical short name: "float32", "float16", "bfloat16", "fp8", "int8", "int4".
std::string_view FormatName(NumericFormat format);

// Accepts the spellings of HF configs and vLLM flags: float32/fp32/float, float16/fp16/half,
// bfloat16/bf16, fp8/fp8_e4m3/fp8_e5m2, int8, int4. Returns nullopt for anything else.
std::optional<NumericFormat> ParseNumericFormat(std::string_view text);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_NUMERIC_FORMAT_H_
