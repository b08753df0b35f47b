#include "kvcache/base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "kvcache/base/error.h"
#include "kvcache/base/temp_file_registry.h"

namespace kvsim {
namespace {

constexpr size_t kBufferBytes = 1 << 16;

std::string Reason(int error_number) { return std::strerror(error_number); }

// The file a symbolic link names (so the rename replaces the file and keeps the link); the path
// itself otherwise.
std::string ResolveLink(const std::string& path) {
  struct stat l {};
  if (::lstat(path.c_str(), &l) != 0 || !S_ISLNK(l.st_mode)) return path;
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

// Creates "<target>.tmp.<pid>.<n>" exclusively (never follows or reuses an existing name).
int CreateTemporary(const std::string& target, std::string& tmp) {
  const std::string stem = target + ".tmp." + std::to_string(::getpid()) + ".";
  for (int n = 0; n < 1000; ++n) {
    tmp = stem + std::to_string(n);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

CheckedFdBuffer::CheckedFdBuffer() : buffer_(kBufferBytes) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }

bool CheckedFdBuffer::Drain() {
  const char* p = pbase();
  size_t left = static_cast<size_t>(pptr() - pbase());
  while (left > 0 && error_ == 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      break;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return error_ == 0;
}

CheckedFdBuffer::int_type CheckedFdBuffer::overflow(int_type c) {
  if (!Drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize CheckedFdBuffer::xsputn(const char* s, std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    if (error_ != 0) return done;
    const std::streamsize room = epptr() - pptr();
    if (room == 0) {
      if (!Drain()) return done;
      continue;
    }
    const std::streamsize k = std::min(room, n - done);
    std::memcpy(pptr(), s + done, static_cast<size_t>(k));
    pbump(static_cast<int>(k));
    done += k;
  }
  return done;
}

int CheckedFdBuffer::sync() { return Drain() ? 0 : -1; }

AtomicOutputFile::AtomicOutputFile(std::string path) : path_(std::move(path)), out_(&buffer_) {
  if (path_.empty()) throw Error("an output path is empty");
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw Error(path_ + ": is a directory, not a file to write");
  if (exists && !S_ISREG(st.st_mode)) {
    // A device or a FIFO: nothing can be renamed over it; write to it directly.
    do fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) throw Error(path_ + ": cannot write (" + Reason(errno) + ")");
  } else {
    if (exists) keep_mode_ = static_cast<int>(st.st_mode & 07777);
    target_ = ResolveLink(path_);
    fd_ = CreateTemporary(target_, tmp_);
    if (fd_ < 0) {
      const int e = errno;
      tmp_.clear();
      throw Error(path_ + ": cannot write (" + Reason(e) + ")");
    }
    registration_ = RegisterTempFile(tmp_);
  }
  buffer_.set_fd(fd_);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (!committed_) Discard();
}

void AtomicOutputFile::Discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  UnregisterTempFile(registration_);
  registration_ = -1;
}

void AtomicOutputFile::Fail(const std::string& what, int error_number) {
  Discard();
  committed_ = true;  // nothing left to clean up
  throw Error(path_ + ": " + what + " (" + Reason(error_number) + ")");
}

void AtomicOutputFile::Commit() {
  out_.flush();
  if (buffer_.error() != 0) Fail("write failed", buffer_.error());
  if (!out_) Fail("write failed", EIO);
  if (keep_mode_ >= 0 && !tmp_.empty() && ::fchmod(fd_, static_cast<mode_t>(keep_mode_)) != 0) Fail("cannot set the file mode", errno);
  // close(2) reports deferred write errors (NFS, quotas); EINTR leaves the descriptor closed.
  const int closed = ::close(fd_);
  const int close_errno = errno;
  fd_ = -1;
  if (closed != 0 && close_errno != EINTR) Fail("write failed", close_errno);
  if (!tmp_.empty() && std::rename(tmp_.c_str(), target_.c_str()) != 0)
    Fail("cannot rename the finished temporary file into place", errno);
  UnregisterTempFile(registration_);
  registration_ = -1;
  committed_ = true;
}

void WriteFileAtomically(const std::string& path, const std::string& contents) {
  AtomicOutputFile file(path);
  file.stream() << contents;
  file.Commit();
}

}  // namespace kvsim
