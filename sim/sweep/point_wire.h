// The bytes a sweep's ranks exchange over MPI (sim/sweep/mpi_farm.h): a judged point (PointOutcome with
// its whole ReplaySummary) and a preloaded trace, in a compact binary form. Doubles travel as their
// bit patterns, so rank 0 renders exactly the figures a worker computed and an MPI run's console
// table, CSV and JSON are byte-identical to a threaded run's. Both ranks run the same binary, so
// the encoding has no versioning; it is not a file format.
#ifndef KVSIM_SIM_POINT_WIRE_H_
#define KVSIM_SIM_POINT_WIRE_H_

#include <string>

#include "sim/run/replay_runner.h"
#include "sim/sweep/sweep.h"

namespace kvsim {

std::string EncodePointOutcome(const PointOutcome& point);
// Throws InternalError when the bytes are short or carry trailing data (a bug, not bad input).
PointOutcome DecodePointOutcome(const std::string& bytes);

std::string EncodePreloadedTrace(const PreloadedTrace& trace);
PreloadedTrace DecodePreloadedTrace(const std::string& bytes);

}  // namespace kvsim

#endif  // KVSIM_SIM_POINT_WIRE_H_
