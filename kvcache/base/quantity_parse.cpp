#include "kvcache/base/quantity_parse.h"

#include <cmath>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

double ParseNumberPrefix(const std::string& text, const std::string& what, size_t* used) {
  // std::stod also reads hexadecimal ("0x1000" is 4096, and "0x10s" 16 seconds); what users type here is
  // decimal, and vLLM's int() and float() refuse hexadecimal too.
  const size_t digits = text.find_first_not_of(" \t+-");
  if (digits != std::string::npos && text.compare(digits, 2, "0x") == 0) throw Error(what + ": '" + text + "' is not a number");
  if (digits != std::string::npos && text.compare(digits, 2, "0X") == 0) throw Error(what + ": '" + text + "' is not a number");
  try {
    const double v = std::stod(text, used);
    if (std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(what + ": '" + text + "' is not a number");
}

}  // namespace

int64_t ParseTokenCount(const std::string& text, const std::string& what) {
  size_t used = 0;
  const double v = ParseNumberPrefix(text, what, &used);
  const std::string suffix = text.substr(used);
  // vLLM's human_readable_int takes digits (int()), or digits with a decimal part before a k/m/g/t
  // suffix; std::stod also reads an exponent (1e4) and a bare decimal point (4096.0), which it refuses.
  const std::string number = text.substr(0, used);
  const size_t first = number.find_first_not_of(" \t+-");
  const size_t point = number.find('.');
  const bool digits_only = first != std::string::npos && number.find_first_not_of("0123456789.", first) == std::string::npos;
  if (!digits_only || point == first || point + 1 == number.size() || (point != std::string::npos && suffix.empty()))
    throw Error(what + ": '" + text + "' is not a whole number (digits, or digits with a k/m/g/t or K/M/G/T suffix)");
  // vLLM's human_readable_int (vllm/utils/argparse_utils.py): k m g t are powers of 1000 and take a
  // decimal (25.6k); K M G T are powers of 1024 and refuse one.
  double scale = 1;
  if (suffix == "k") scale = 1e3;
  else if (suffix == "K") scale = 1024;
  else if (suffix == "m") scale = 1e6;
  else if (suffix == "M") scale = 1024.0 * 1024.0;
  else if (suffix == "g") scale = 1e9;
  else if (suffix == "G") scale = 1024.0 * 1024.0 * 1024.0;
  else if (suffix == "t") scale = 1e12;
  else if (suffix == "T") scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
  else if (!suffix.empty()) throw Error(what + ": '" + text + "' has an unknown suffix (use k=1000 or K=1024)");
  if (scale > 1 && suffix[0] >= 'A' && suffix[0] <= 'Z' && v != std::floor(v))
    throw Error(what + ": '" + text + "': a decimal with a binary suffix (" + suffix + "), which vLLM refuses; did you mean " +
                text.substr(0, used) + static_cast<char>(suffix[0] - 'A' + 'a') + "?");
  const double value = v * scale;
  if (value != std::floor(value) || value < -9e15 || value > 9e15)
    throw Error(what + ": '" + text + "' is not a whole number");
  return static_cast<int64_t>(value);
}

double ParseByteAmount(const std::string& text, const std::string& what) {
  size_t used = 0;
  const double v = ParseNumberPrefix(text, what, &used);
  const std::string suffix = text.substr(used);
  double scale = 1;
  if (suffix.empty() || suffix == "B") scale = 1;
  else if (suffix == "k" || suffix == "KB" || suffix == "kB") scale = 1e3;
  else if (suffix == "m" || suffix == "MB") scale = 1e6;
  else if (suffix == "g" || suffix == "GB") scale = 1e9;
  else if (suffix == "K" || suffix == "KiB") scale = 1024.0;
  else if (suffix == "M" || suffix == "MiB") scale = 1024.0 * 1024.0;
  else if (suffix == "G" || suffix == "GiB") scale = 1024.0 * 1024.0 * 1024.0;
  else throw Error(what + ": '" + text + "' has an unknown unit (bytes, GiB, GB, G, g, MiB, ...)");
  if (v <= 0) throw Error(what + ": '" + text + "' must be positive");
  return v * scale;
}

double ParseFiniteNumber(const std::string& text, const std::string& what) {
  size_t used = 0;
  const double v = ParseNumberPrefix(text, what, &used);
  if (used != text.size()) throw Error(what + ": '" + text + "' is not a number");
  return v;
}

}  // namespace kvsim
