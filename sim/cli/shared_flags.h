// Flags more than one command takes, declared once: --jobs (compare, sweep).
#ifndef KVSIM_SIM_CLI_SHARED_FLAGS_H_
#define KVSIM_SIM_CLI_SHARED_FLAGS_H_

#include <algorithm>
#include <thread>

#include <boost/program_options.hpp>

#include "kvcache/base/error.h"

namespace kvsim {

inline int DefaultJobs() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

inline void AddJobsOption(boost::program_options::options_description& desc, int& jobs) {
  namespace po = boost::program_options;
  desc.add_options()("jobs,j", po::value(&jobs)->default_value(jobs), "replays run in parallel (default: all cores)");
}

inline void ValidateJobs(int jobs) {
  if (jobs < 1 || jobs > 256) throw Error("--jobs: must be between 1 and 256");
}

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_SHARED_FLAGS_H_
