// The grid of a sweep: axes of option values (--sweep max-num-seqs=16,32 --sweep gpu=l4,a10g, or a
// JSON grid file), expanded into points, each a label and the option overrides that make it.
#ifndef KVSIM_SIM_SWEEP_GRID_H_
#define KVSIM_SIM_SWEEP_GRID_H_

#include <string>
#include <vector>

namespace kvsim {

struct GridAxis {
  std::string option;               // without the leading dashes: "max-num-seqs"
  std::vector<std::string> values;
};

struct GridPoint {
  std::string label;                   // "max-num-seqs=16,gpu=l4"
  std::vector<std::string> overrides;  // {"--max-num-seqs", "16", "--gpu", "l4"}
};

// "OPTION=V1,V2,...". A value that starts with '{' or '[' is a JSON object or array and runs to its
// closing bracket, commas inside it included: speculative-config={"method":"ngram",...},{...}.
// Throws kvsim::Error for anything else.
GridAxis ParseGridAxis(const std::string& text);

// The values of an axis, split at the commas outside JSON values; empty values are dropped.
// Throws kvsim::Error, naming `what`, for a JSON value whose brackets or strings do not close.
std::vector<std::string> SplitAxisValues(const std::string& text, const std::string& what);

// A JSON object {"option": [values], ...}. Throws kvsim::Error naming the file.
std::vector<GridAxis> ReadGridFile(const std::string& path);

inline constexpr size_t kMaxGridPoints = 10000;

// The Cartesian product, first axis outermost. Throws kvsim::Error for an empty grid or more than
// kMaxGridPoints points.
std::vector<GridPoint> ExpandGrid(const std::vector<GridAxis>& axes);

}  // namespace kvsim

#endif  // KVSIM_SIM_SWEEP_GRID_H_
