// Flags more than one command takes, declared once: --jobs (compare, sweep), --spec-acceptance
// (replay, compare, sweep, step); and the argument check every option parser needs.
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

// The acceptance rates of --speculative-config's drafts (sim/run/speculation_setup.h reads them).
inline void AddSpecAcceptanceOption(boost::program_options::options_description& desc, std::string& rates) {
  namespace po = boost::program_options;
  desc.add_options()("spec-acceptance", po::value(&rates),
                     "with --speculative-config: the probability each draft position is accepted, one rate (a -> a, a^2, "
                     "...) or one per position (0.8,0.6,0.4); replay draws from them per request and step (--seed), "
                     "step takes the expected tokens per step, 1 + the sum of the rates");
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
