// The kvsim executable: a thin shell over RunKvsim so the whole command line is testable in-process.
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

#ifdef KVSIM_MPI_HANDOFF
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "kvcache/base/error.h"
#include "sim/sweep/mpi_farm.h"

namespace {

// This executable is linked statically, which starts a short command in about half the time of a
// dynamically linked one, and a static process cannot open libmpi. Under an MPI launcher it
// becomes KVSIM_MPI_HANDOFF (kvsim-mpi), the same program linked dynamically, from its own
// directory. Returns only when that fails.
int HandOffMpiJob(char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string sibling = (ec ? std::filesystem::path(argv[0]).parent_path() : self.parent_path()) / KVSIM_MPI_HANDOFF;
  execv(sibling.c_str(), argv);
  std::cerr << "kvsim: error: an MPI launcher started kvsim, which runs MPI jobs as " << sibling
            << ", and that cannot be started: " << std::strerror(errno) << "\n";
  return kvsim::kExitInternalError;
}

}  // namespace
#endif

int main(int argc, char** argv) {
#ifdef KVSIM_MPI_HANDOFF
  if (kvsim::LaunchedByMpi()) return HandOffMpiJob(argv);
#endif
  std::vector<std::string> args(argv, argv + argc);
  return kvsim::RunKvsim(args, std::cout, std::cerr);
}
