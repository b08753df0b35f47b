#include "kvcache/model/numeric_format.h"

#include <algorithm>
#include <cctype>

namespace kvsim {

double BytesPerElement(NumericFormat format) {
  switch (format) {
    case NumericFormat::kFloat32: return 4.0;
    case NumericFormat::kFloat16:
    case NumericFormat::kBFloat16: return 2.0;
    case NumericFormat::kFp8:
    case NumericFormat::kInt8: return 1.0;
    case NumericFormat::kInt4: return 0.5;
  }
  return 2.0;
}

std::string_view FormatName(NumericFormat format) {
  switch (format) {
    case NumericFormat::kFloat32: return "float32";
    case NumericFormat::kFloat16: return "float16";
    case NumericFormat::kBFloat16: return "bfloat16";
    case NumericFormat::kFp8: return "fp8";
    case NumericFormat::kInt8: return "int8";
    case NumericFormat::kInt4: return "int4";
  }
  return "?";
}

std::optional<NumericFormat> ParseNumericFormat(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s.rfind("torch.", 0) == 0) s = s.substr(6);
  if (s == "float32" || s == "fp32" || s == "float") return NumericFormat::kFloat32;
  if (s == "float16" || s == "fp16" || s == "half") return NumericFormat::kFloat16;
  if (s == "bfloat16" || s == "bf16") return NumericFormat::kBFloat16;
  if (s == "fp8" || s == "fp8_e4m3" || s == "fp8_e5m2" || s == "fp8_inc") return NumericFormat::kFp8;
  if (s == "int8") return NumericFormat::kInt8;
  if (s == "int4") return NumericFormat::kInt4;
  return std::nullopt;
}

}  // namespace kvsim
