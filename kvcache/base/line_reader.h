// Reads a text input once, line by line, in constant memory: a regular file, a FIFO or "-"
// (stdin). A line longer than kMaxLineBytes or a NUL byte (a binary file, a wrong path) is an
// error naming the file and line, never an unbounded allocation. Trailing '\r' is dropped, and a UTF-8 byte-order mark before the first line.
#ifndef KVSIM_KVCACHE_BASE_LINE_READER_H_
#define KVSIM_KVCACHE_BASE_LINE_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kvsim {

class LineReader {
 public:
  static constexpr size_t kMaxLineBytes = size_t{1} << 20;  // 1 MiB

  // Throws kvsim::Error "<path>: cannot open ..." for a missing file or a directory. `what` names
  // the input in that message ("trace", "vLLM log CSV").
  LineReader(std::string path, const std::string& what);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line without its terminator; false at the end. Throws kvsim::Error
  // "<path>:<line>: ..." for an over-long line, binary data or a read error.
  bool Next(std::string& line);
  // The same as a view into the reader's buffer (speed: no copy), valid until the next call.
  bool Next(std::string_view& line);

  int64_t line_number() const { return line_; }
  int64_t bytes_read() const { return consumed_; }
  // Size of a regular file, -1 for a pipe or stdin (progress is then unknown).
  int64_t size_bytes() const { return size_; }
  // True for a regular file: it can be opened again (--repeat); a pipe or stdin cannot.
  bool rereadable() const { return size_ >= 0; }
  const std::string& path() const { return path_; }

 private:
  bool Fill();

  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  int64_t line_ = 0;
  int64_t consumed_ = 0;
  int64_t size_ = -1;
};

// True when `path` names something LineReader reads only once (a pipe, stdin).
bool IsStreamInput(const std::string& path);

// `text` with bytes that are not valid UTF-8, and control characters, replaced by '?' and cut to
// `max_bytes`: cells quoted in messages and JSON warnings stay printable and valid.
std::string PrintableExcerpt(const std::string& text, size_t max_bytes = 80);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_LINE_READER_H_
