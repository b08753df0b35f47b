// The messages between the ranks of an MPI farm (sim/sweep/mpi_farm.h): their tags, a task's header,
// and sending, receiving and polling through the MPI table.
//
// Internal to sim/sweep: included only by files compiled with the MPI headers.
#ifndef KVSIM_SIM_SWEEP_MPI_WIRE_H_
#define KVSIM_SIM_SWEEP_MPI_WIRE_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "kvcache/base/error.h"
#include "kvcache/base/interrupt.h"
#include "sim/sweep/mpi_library.h"

namespace kvsim::mpi_wire {

enum Tag : int { kTagTask = 1, kTagResult = 2, kTagStop = 3 };
// How long an idle MPI thread sleeps between polls. Each wake-up takes the core from a replay for
// a moment, so polls are rare (at 200 µs the two ranks of a 2-core run lost ~5% of their replay
// time); a worker holds one task beyond its slots, so it never waits for this poll to get work.
constexpr auto kPoll = std::chrono::milliseconds(5);

// The process's stop signal (kvsim's one interrupt mechanism, kvcache/base/interrupt.h): the
// leader sees a signal that arrives between two rounds of a search in the next one.
inline bool Signalled() { return StopFlag().load(std::memory_order_relaxed); }

inline void Check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw InternalError(std::string(call) + " failed with MPI error " + std::to_string(rc));
}

// A task on the wire: which Run() or Stream(), which task in it, and its value.
struct TaskHeader {
  uint64_t round = 0, index = 0;
  double value = 0;
};

inline void SendBytes(const MpiLibrary& mpi, const std::string& bytes, int dest, int tag) {
  Check(mpi.send(bytes.data(), static_cast<int>(bytes.size()), mpi.byte_type, dest, tag, mpi.comm_world), "MPI_Send");
}

inline std::string RecvBytes(const MpiLibrary& mpi, const MPI_Status& probed) {
  int n = 0;
  Check(mpi.get_count(&probed, mpi.byte_type, &n), "MPI_Get_count");
  std::string bytes(static_cast<size_t>(n), '\0');
  Check(mpi.recv(bytes.data(), n, mpi.byte_type, probed.MPI_SOURCE, probed.MPI_TAG, mpi.comm_world, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return bytes;
}

// The first message waiting from `source` (MPI_ANY_SOURCE for all), if any.
inline std::optional<MPI_Status> Poll(const MpiLibrary& mpi, int source) {
  int flag = 0;
  MPI_Status st;
  Check(mpi.iprobe(source, MPI_ANY_TAG, mpi.comm_world, &flag, &st), "MPI_Iprobe");
  return flag ? std::optional<MPI_Status>(st) : std::nullopt;
}

}  // namespace kvsim::mpi_wire

#endif  // KVSIM_SIM_SWEEP_MPI_WIRE_H_
