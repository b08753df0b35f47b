#include "kvcache/base/check.h"

namespace kvsim {

void FailCheck(const char* file, int line, const std::string& message) {
  std::string where = file;
  if (const auto slash = where.rfind('/'); slash != std::string::npos) where = where.substr(slash + 1);
  throw InternalError(message + " (" + where + ":" + std::to_string(line) + ")");
}

}  // namespace kvsim
