// LoadMpiLibrary for the statically linked kvsim executable, linked in place of mpi_library.cpp.
// A static process cannot open libmpi: the library would bring a second C library into it. So
// main() hands every process an MPI launcher started to kvsim-mpi (the same program, linked
// dynamically) before any command runs, and nothing reaches this.
#include "kvcache/base/error.h"
#include "sim/sweep/mpi_library.h"

namespace kvsim {

MpiLibrary LoadMpiLibrary() {
  throw InternalError("the statically linked kvsim cannot open the MPI library; MPI jobs run kvsim-mpi");
}

}  // namespace kvsim
