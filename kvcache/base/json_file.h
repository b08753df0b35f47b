// Reads a whole JSON file, with errors that name the file: kvsim reads model configs, calibrations,
// benchmark results and sweep grids this way.
#ifndef KVSIM_KVCACHE_BASE_JSON_FILE_H_
#define KVSIM_KVCACHE_BASE_JSON_FILE_H_

#include <string>

#include <nlohmann/json.hpp>

namespace kvsim {

// Model configs are a few KiB and benchmark results a few MiB: 64 MiB is far past any of them.
inline constexpr size_t kMaxJsonFileBytes = size_t{64} << 20;

// Throws kvsim::Error "PATH: cannot open WHAT" or "PATH: malformed JSON: <where and why>".
nlohmann::json ReadJsonFile(const std::string& path, const std::string& what);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_JSON_FILE_H_
