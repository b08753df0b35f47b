// Valid ranges of the integer fields of a config.json. Every integer the parser reads goes through
// FieldReader, which rejects a value outside its field's range before anything is sized from it, so
// a typo (num_hidden_layers: 1e9) is an error naming the file, field and range, not a 17 GB
// allocation or an overflowed product. The bounds are generous: the largest public configs (see
// data/models) sit at least 8x inside each.
#ifndef KVSIM_KVCACHE_MODEL_CONFIG_LIMITS_H_
#define KVSIM_KVCACHE_MODEL_CONFIG_LIMITS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace kvsim {

struct FieldRange {
  int64_t lo;
  int64_t hi;
};

// Range for an unlisted integer field (indices, counts, intervals): [0, 2^31 - 1].
inline constexpr FieldRange kDefaultConfigFieldRange{0, (int64_t{1} << 31) - 1};

// The range of the integer field named `key` (its last path component, e.g. "hidden_size").
FieldRange ConfigFieldRange(std::string_view key);

// "[lo, hi]" for messages.
std::string RangeText(FieldRange range);

// A model whose weights would exceed this many parameters is refused: it bounds every product the
// budget computes (parameters x bytes, layers x tokens x bytes) far inside 64 bits.
inline constexpr double kMaxModelParameters = 1e15;

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_CONFIG_LIMITS_H_
