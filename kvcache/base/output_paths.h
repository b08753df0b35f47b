// Outputs never destroy inputs or each other: before a command writes anything, every output path
// is compared by file identity (device and inode for files that exist; the canonical directory
// plus the name for files still to be created) with every other output and with every input.
// Standard output ("-") may be used by one output only. Character devices (/dev/null, /dev/full,
// a terminal) are exempt: writing to one destroys nothing.
#ifndef KVSIM_KVCACHE_BASE_OUTPUT_PATHS_H_
#define KVSIM_KVCACHE_BASE_OUTPUT_PATHS_H_

#include <string>
#include <vector>

namespace kvsim {

struct OutputPath {
  std::string option;           // "--json", for messages
  std::string path;
  bool dash_is_stdout = true;   // "-" means standard output for this option
};

// Whether two paths name the same file (hard and symbolic links included), existing or not.
bool SameFile(const std::string& a, const std::string& b);

// Throws kvsim::Error naming both options (or the input) when an output is the same file as
// another output or as one of `inputs`. `inputs` are the strings of the command line that may be
// paths (see the CLI's InputCandidates): a string equal to an output's path is taken to be that
// output's own value once per output that names it, so only further occurrences count as inputs.
void CheckOutputPaths(const std::vector<OutputPath>& outputs, const std::vector<std::string>& inputs);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_OUTPUT_PATHS_H_
