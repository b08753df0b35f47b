// Reads a whole JSON file, with errors that name the file: kvsim reads model configs, calibrations,
// benchmark results and sweep grids this way.
#ifndef KVSIM_KVCACHE_BASE_JSON_FILE_H_
#define KVSIM_KVCACHE_BASE_JSON_FILE_H_

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kvsim {

// Model configs are a few KiB and benchmark results a few MiB: 64 MiB is far past any of them.
inline constexpr size_t kMaxJsonFileBytes = size_t{64} << 20;

// The deepest nesting kvsim reads. Model configs nest four or five levels; anything past this is
// not an input kvsim understands, and what walks a parsed value (copying, destroying, writing it)
// recurses once per level, so an unbounded depth would overflow the stack.
inline constexpr int kMaxJsonDepth = 64;

// Parses one JSON text (a file, a JSONL row, a flag's value); nullopt with `*why` (where and what,
// printable) when it is malformed or nested deeper than kMaxJsonDepth.
std::optional<nlohmann::json> ParseJsonText(std::string_view text, std::string* why);

// Whether a file may spell an infinite number as Python's json module writes it (bare Infinity and
// -Infinity). Hugging Face config.json files are written that way (Nemotron-H's time_step_limit is
// [0.0, Infinity]) and read with json.load, which accepts them, so a model config must be read alike.
enum class InfinityTokens { kRefuse, kReadAsLargestDouble };

// Throws kvsim::Error "PATH: cannot open WHAT" or "PATH: malformed JSON: <where and why>".
nlohmann::json ReadJsonFile(const std::string& path, const std::string& what,
                            InfinityTokens infinity = InfinityTokens::kRefuse);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_JSON_FILE_H_
