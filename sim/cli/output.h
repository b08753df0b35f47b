// Where a command's outputs go: a file (written atomically, kvsim/base/atomic_file.h) or standard
// output for "-".
#ifndef KVSIM_SIM_CLI_OUTPUT_H_
#define KVSIM_SIM_CLI_OUTPUT_H_

#include <ostream>
#include <string>

#include "kvcache/base/atomic_file.h"

namespace kvsim {

inline void WriteOutput(const std::string& path, const std::string& text, std::ostream& out) {
  if (path == "-") out << text;
  else WriteFileAtomically(path, text);
}

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_OUTPUT_H_
