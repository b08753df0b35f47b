#include "kvcache/base/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

std::string TempPathFor(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }

}  // namespace

AtomicOutputFile::AtomicOutputFile(std::string path) : path_(std::move(path)), tmp_(TempPathFor(path_)) {
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error(path_ + ": cannot write (" + std::strerror(errno) + ")");
}

AtomicOutputFile::~AtomicOutputFile() {
  if (committed_) return;
  if (out_.is_open()) out_.close();
  std::remove(tmp_.c_str());
}

void AtomicOutputFile::Commit() {
  out_.flush();
  const bool written = static_cast<bool>(out_);
  const int write_errno = errno;
  out_.close();
  if (!written || out_.fail()) {
    std::remove(tmp_.c_str());
    throw Error(path_ + ": write failed (" + std::strerror(write_errno) + ")");
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp_.c_str());
    throw Error(path_ + ": cannot rename the finished temporary file into place (" + why + ")");
  }
  committed_ = true;
}

void WriteFileAtomically(const std::string& path, const std::string& contents) {
  AtomicOutputFile file(path);
  file.stream() << contents;
  file.Commit();
}

}  // namespace kvsim
