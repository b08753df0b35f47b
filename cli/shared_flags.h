// Flags more than one command takes, declared once: --jobs (compare, sweep); and the argument
// check every option parser needs.
#ifndef KVSIM_SIM_CLI_SHARED_FLAGS_H_
#define KVSIM_SIM_CLI_SHARED_FLAGS_H_

#include <algorithm>
#include <string>
#include <vector>
#include <thread>

#include <boost/program_options.hpp>

#include "kvcache/base/error.h"

namespace kvsim {

inline int DefaultJobs() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

inline void AddJobsOption(boost::program_options::options_description& desc, int& jobs) {
  namespace po = boost::program_options;
  desc.add_options()("jobs,j", po::value(&jobs)->default_value(jobs), "replays run in parallel (default: all cores)");
}

// Boost.Program_options fills "%value%"-style placeholders into its messages in a loop that never
// ends when the user's own text holds the placeholder (`--x %value%` hung kvsim): such an argument
// is refused before any parser sees it. Throws kvsim::Error naming the argument.
inline void RefuseOptionPlaceholders(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    for (const char* p : {"%option%", "%value%", "%original_token%", "%canonical_option%", "%prefix%"})
      if (a.find(p) != std::string::npos)
        throw Error("argument '" + a.substr(0, 80) + "': the text " + p + " is reserved by the option parser");
}

inline void ValidateJobs(int jobs) {
  if (jobs < 1 || jobs > 256) throw Error("--jobs: must be between 1 and 256");
}

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_SHARED_FLAGS_H_
