#include "kvcache/base/json_file.h"

#include <fstream>

#include "kvcache/base/error.h"

namespace kvsim {

nlohmann::json ReadJsonFile(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open " + what + " (no such file or not readable)");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's message says "at line L, column C" and what it expected: it locates the fault.
    throw Error(path + ": malformed JSON: " + e.what());
  }
}

}  // namespace kvsim
