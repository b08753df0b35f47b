// Output files that a reader never sees half-written and that a failed or interrupted run never
// destroys. A regular file (new or existing) is written to "<target>.tmp.<pid>.<n>" beside it
// first and renamed over it only after every write, the flush and the close succeeded; the
// temporary file is registered (temp_file_registry.h) so that even a signal that ends the process
// at once removes it, and it is removed on every failure path. An existing file keeps its
// permission bits; a symbolic link is followed (the file it names is replaced, not the link).
// A target that exists and is not a regular file (/dev/null, /dev/full, a FIFO, a terminal) cannot
// have a temporary file beside it: it is written directly, and every write and the close are still
// checked. Every failure is a kvsim::Error naming the path and the system's reason (ENOSPC, EIO…).
#ifndef KVSIM_KVCACHE_BASE_ATOMIC_FILE_H_
#define KVSIM_KVCACHE_BASE_ATOMIC_FILE_H_

#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace kvsim {

// Throws kvsim::Error naming the path when the file cannot be written or renamed.
void WriteFileAtomically(const std::string& path, const std::string& contents);

// A stream buffer over a file descriptor that checks every write(2) (retrying EINTR and short
// writes) and remembers the first error; after one, further output is refused (the stream fails).
class CheckedFdBuffer final : public std::streambuf {
 public:
  CheckedFdBuffer();
  void set_fd(int fd) { fd_ = fd; }
  // errno of the first failed write, 0 if none.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool Drain();
  int fd_ = -1;
  int error_ = 0;
  std::vector<char> buffer_;
};

// A file written incrementally (CSV rows as a replay runs), committed at the end.
class AtomicOutputFile {
 public:
  // Opens the temporary file (or the non-regular target). Throws kvsim::Error naming `path` when
  // it cannot be created, or when `path` is a directory.
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
  [[noreturn]] void Fail(const std::string& what, int error_number);
  void Discard();

  std::string path_;     // as the user gave it (messages)
  std::string target_;   // what the rename replaces: path_, or the file a symbolic link names
  std::string tmp_;      // empty when writing straight to a non-regular target
  int fd_ = -1;
  int registration_ = -1;
  int keep_mode_ = -1;   // the replaced file's permission bits; -1 for a new file
  CheckedFdBuffer buffer_;
  std::ostream out_;
  bool committed_ = false;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_ATOMIC_FILE_H_
