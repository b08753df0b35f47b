#include "reports/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

#include "kvcache/error.h"

namespace kvsim {

void WriteFileAtomically(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot write (" + std::strerror(errno) + ")");
    out << contents;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error(path + ": write failed (" + std::strerror(errno) + ")");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw Error(path + ": cannot rename the finished temporary file into place (" + why + ")");
  }
}

}  // namespace kvsim
