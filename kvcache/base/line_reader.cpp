#include "kvcache/base/line_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

constexpr size_t kBlock = size_t{1} << 16;

}  // namespace

LineReader::LineReader(std::string path, const std::string& what) : path_(std::move(path)) {
  if (path_ == "-") {
    fd_ = STDIN_FILENO;
  } else {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      throw Error(path_ + ": cannot open " + what + " (" + std::strerror(errno) + ")");
    owns_fd_ = true;
  }
  struct stat st {};
  if (::fstat(fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      if (owns_fd_) ::close(fd_);
      throw Error(path_ + ": cannot open " + what + " (it is a directory)");
    }
    if (S_ISREG(st.st_mode)) size_ = static_cast<int64_t>(st.st_size);
  }
  // speed: a small file (a config, the GPU table) gets a buffer its size, not a zero-filled 64 KiB
  // block: a short command reads three of them.
  buffer_.resize(size_ > 0 ? std::min(kBlock, static_cast<size_t>(size_) + 1) : kBlock);
}

LineReader::~LineReader() {
  if (owns_fd_) ::close(fd_);
}

bool LineReader::Fill() {
  if (eof_) return false;
  if (begin_ > 0) {  // keep the unfinished line at the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  while (true) {
    const ssize_t n = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(path_ + ":" + std::to_string(line_ + 1) + ": read error (" + std::strerror(errno) + ")");
    if (n == 0) eof_ = true;
    end_ += static_cast<size_t>(n);
    return n > 0;
  }
}

bool LineReader::Next(std::string& line) {
  std::string_view view;
  if (!Next(view)) return false;
  line.assign(view);
  return true;
}

bool LineReader::Next(std::string_view& line) {
  size_t scanned = begin_;
  while (true) {
    const char* base = buffer_.data();
    const void* nl = std::memchr(base + scanned, '\n', end_ - scanned);
    size_t stop = nl ? static_cast<const char*>(nl) - base : end_;
    // A carriage return not followed by a line feed ends a line too (classic Mac and some
    // spreadsheet exports); one that is the last byte read so far waits for the next bytes.
    bool cr_ends = false;
    if (const void* cr = std::memchr(base + scanned, '\r', stop - scanned)) {
      const size_t at = static_cast<const char*>(cr) - base;
      if (at + 1 < end_ && base[at + 1] != '\n') {
        stop = at;
        cr_ends = true;
      } else if (at + 1 == end_ && !eof_) {
        stop = at;  // undecided: read on from the CR
      } else if (at + 1 == end_) {
        stop = at;
        cr_ends = true;
      }
    }
    if (std::memchr(base + scanned, '\0', stop - scanned) != nullptr)
      throw Error(path_ + ":" + std::to_string(line_ + 1) + ": binary data (a NUL byte): not a text file");
    if (stop - begin_ > kMaxLineBytes)
      throw Error(path_ + ":" + std::to_string(line_ + 1) + ": line longer than 1 MiB (" +
                  std::to_string(kMaxLineBytes) + " bytes): not a trace or log of this format");
    if (cr_ends || (nl != nullptr && stop == static_cast<size_t>(static_cast<const char*>(nl) - base)) ||
        (eof_ && stop > begin_ && stop == end_)) {
      size_t len = stop - begin_;
      const size_t next = stop < end_ ? stop + 1 : stop;
      if (len > 0 && base[begin_ + len - 1] == '\r') --len;
      line = std::string_view(base + begin_, len);
      // A UTF-8 byte-order mark (spreadsheet and Windows exports) is not part of the first line's text.
      if (line_ == 0 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
      consumed_ += static_cast<int64_t>(next - begin_);
      begin_ = next;
      ++line_;
      return true;
    }
    const size_t offset = stop - begin_;  // bytes already scanned, kept across the refill
    if (!Fill() && eof_ && begin_ == end_) return false;
    scanned = begin_ + offset;
  }
}

bool IsStreamInput(const std::string& path) {
  if (path == "-") return true;
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::string PrintableExcerpt(const std::string& text, size_t max_bytes) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && out.size() < max_bytes) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool valid = len > 0 && i + len <= text.size();
    for (size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not valid UTF-8 either
    // (nlohmann's serializer refuses them, which broke the JSON output).
    if (valid) {
      const unsigned char c1 = len > 1 ? static_cast<unsigned char>(text[i + 1]) : 0;
      if ((len == 2 && c < 0xC2) || (c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) ||
          (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F) || c > 0xF4)
        valid = false;
    }
    if (!valid || (len == 1 && (c < 0x20 || c == 0x7F))) {
      out += '?';
      i += 1;
      continue;
    }
    out.append(text, i, len);
    i += len;
  }
  if (i < text.size()) out += "...";
  return out;
}

}  // namespace kvsim
