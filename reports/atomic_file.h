// Writes an output file so that a reader never sees half of it and a failed run never destroys the
// previous copy: the text goes to "<path>.tmp.<pid>" first, which is renamed over `path` only after
// it was written and flushed completely.
#ifndef KVSIM_REPORTS_ATOMIC_FILE_H_
#define KVSIM_REPORTS_ATOMIC_FILE_H_

#include <string>

namespace kvsim {

// Throws kvsim::Error naming the path when the file cannot be written or renamed.
void WriteFileAtomically(const std::string& path, const std::string& contents);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_ATOMIC_FILE_H_
