// The MPI calls the sweep farm (sim/sweep/mpi_farm.cpp) makes, reached through one table so that
// kvsim need not link the MPI library. With Open MPI the library is opened (dlopen) only when the
// process joins an MPI job: linking it made every kvsim process, `kvsim capacity` included, load
// and relocate libmpi, libopen-rte, libopen-pal, hwloc, libevent and udev at start-up, about
// two thirds of a short command's instructions. Other MPI implementations (whose handles are
// compile-time constants rather than library symbols) are linked as before and fill the same
// table from their own functions.
//
// Internal to sim/sweep: included only by files compiled with the MPI headers.
#ifndef KVSIM_SIM_SWEEP_MPI_LIBRARY_H_
#define KVSIM_SIM_SWEEP_MPI_LIBRARY_H_

#include <mpi.h>

namespace kvsim {

struct MpiLibrary {
  decltype(&MPI_Init_thread) init_thread = nullptr;
  decltype(&MPI_Finalize) finalize = nullptr;
  decltype(&MPI_Comm_rank) comm_rank = nullptr;
  decltype(&MPI_Comm_size) comm_size = nullptr;
  decltype(&MPI_Send) send = nullptr;
  decltype(&MPI_Recv) recv = nullptr;
  decltype(&MPI_Iprobe) iprobe = nullptr;
  decltype(&MPI_Get_count) get_count = nullptr;
  decltype(&MPI_Bcast) bcast = nullptr;
  MPI_Comm comm_world{};
  MPI_Datatype byte_type{};
  MPI_Datatype uint64_type{};
};

// The MPI library's calls and handles. With Open MPI this opens the library (kept open for the
// rest of the process: Open MPI does not support being unloaded); throws Error naming the library
// and the loader's reason when it cannot be opened.
MpiLibrary LoadMpiLibrary();

}  // namespace kvsim

#endif  // KVSIM_SIM_SWEEP_MPI_LIBRARY_H_
