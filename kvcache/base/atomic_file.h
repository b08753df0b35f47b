// Output files that a reader never sees half-written and that a failed run never destroys: the
// text goes to "<path>.tmp.<pid>" in the target's directory first, which is renamed over `path`
// only after it was written, flushed and closed without error. On every failure path the
// temporary file is removed.
#ifndef KVSIM_KVCACHE_BASE_ATOMIC_FILE_H_
#define KVSIM_KVCACHE_BASE_ATOMIC_FILE_H_

#include <fstream>
#include <string>

namespace kvsim {

// Throws kvsim::Error naming the path when the file cannot be written or renamed.
void WriteFileAtomically(const std::string& path, const std::string& contents);

// A file written incrementally (CSV rows as a replay runs), committed at the end.
class AtomicOutputFile {
 public:
  // Opens the temporary file. Throws kvsim::Error naming `path` when it cannot be created.
  explicit AtomicOutputFile(std::string path);
  // Removes the temporary file unless Commit() succeeded.
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::string& path() const { return path_; }
  // Flushes, closes and renames into place. Throws kvsim::Error naming the path on any failure
  // (the temporary file is removed then). REQUIRES: not committed yet.
  void Commit();

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_ATOMIC_FILE_H_
