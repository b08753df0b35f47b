// kvsim's subcommands. Each takes its arguments (without the program and command names) and
// writes to the given streams; it returns the process exit code (kvsim/base/error.h): 0 success,
// 1 a check that ran but failed its thresholds, 2 bad input (options, files, a model that does not
// fit), 3 an internal error. Expected errors arrive as kvsim::Error and are printed by RunKvsim as
// one line.
#ifndef KVSIM_SIM_CLI_COMMANDS_H_
#define KVSIM_SIM_CLI_COMMANDS_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace kvsim {

int RunCapacityCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunModelsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunGpusCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunStepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunCalibrateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// What a program that runs commands in-process (the Python module, python/) adds to a run: a replay's
// progress, called every 4,096 engine steps with the fraction of the trace done ([0, 1], negative
// when unknown) and the simulated time. Empty: the progress bar on a terminal, as the executable does.
struct CommandHooks {
  std::function<void(double fraction, int64_t simulated_ns)> progress;
};

int RunReplayCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                     const CommandHooks& hooks = {});
int RunSweepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunPlanCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunCompareCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunTrainCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunReleasesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The commands RunKvsim runs, in the order `kvsim --help` lists them (declared once, in dispatch.cpp).
std::vector<std::string> CommandNames();

// Dispatches `kvsim <command> ...`; catches every error and maps it to an exit code.
int RunKvsim(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err,
             const CommandHooks& hooks = {});

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_COMMANDS_H_
