#include "sim/sweep/mpi_library.h"

#include <string>

#include "kvcache/base/error.h"

#ifdef KVSIM_MPI_DLOPEN
#include <dlfcn.h>
#endif

namespace kvsim {

#ifdef KVSIM_MPI_DLOPEN

namespace {

// Open MPI's MPI_COMM_WORLD, MPI_BYTE and MPI_UINT64_T are addresses of these library objects
// (mpi.h: OMPI_PREDEFINED_GLOBAL), so they are looked up like the functions.
void* Symbol(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) throw Error(std::string("the MPI library ") + KVSIM_MPI_DLOPEN + " has no symbol " + name);
  return p;
}

template <typename Fn>
void Bind(void* lib, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(Symbol(lib, name));
}

}  // namespace

MpiLibrary LoadMpiLibrary() {
  // RTLD_GLOBAL: Open MPI opens its own components (mca_*.so) later, and they resolve libmpi's
  // and libopen-pal's symbols from the global scope.
  void* lib = dlopen(KVSIM_MPI_DLOPEN, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char* why = dlerror();
    throw Error(std::string("kvsim runs in an MPI job but cannot load the MPI library ") + KVSIM_MPI_DLOPEN + ": " +
                (why ? why : "unknown reason"));
  }
  MpiLibrary m;
  Bind(lib, m.init_thread, "MPI_Init_thread");
  Bind(lib, m.finalize, "MPI_Finalize");
  Bind(lib, m.comm_rank, "MPI_Comm_rank");
  Bind(lib, m.comm_size, "MPI_Comm_size");
  Bind(lib, m.send, "MPI_Send");
  Bind(lib, m.recv, "MPI_Recv");
  Bind(lib, m.iprobe, "MPI_Iprobe");
  Bind(lib, m.get_count, "MPI_Get_count");
  Bind(lib, m.bcast, "MPI_Bcast");
  m.comm_world = static_cast<MPI_Comm>(Symbol(lib, "ompi_mpi_comm_world"));
  m.byte_type = static_cast<MPI_Datatype>(Symbol(lib, "ompi_mpi_byte"));
  m.uint64_type = static_cast<MPI_Datatype>(Symbol(lib, "ompi_mpi_uint64_t"));
  return m;
}

#else

MpiLibrary LoadMpiLibrary() {
  MpiLibrary m;
  m.init_thread = &MPI_Init_thread;
  m.finalize = &MPI_Finalize;
  m.comm_rank = &MPI_Comm_rank;
  m.comm_size = &MPI_Comm_size;
  m.send = &MPI_Send;
  m.recv = &MPI_Recv;
  m.iprobe = &MPI_Iprobe;
  m.get_count = &MPI_Get_count;
  m.bcast = &MPI_Bcast;
  m.comm_world = MPI_COMM_WORLD;
  m.byte_type = MPI_BYTE;
  m.uint64_type = MPI_UINT64_T;
  return m;
}

#endif

}  // namespace kvsim
