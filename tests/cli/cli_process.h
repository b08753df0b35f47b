// kvsim run as a child process the test controls: in the background (to send it signals), with a
// chosen standard output (/dev/full), or with a file-size limit (a disk that fills up mid-write).
#ifndef KVSIM_TESTS_CLI_CLI_PROCESS_H_
#define KVSIM_TESTS_CLI_CLI_PROCESS_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/testutil.h"

namespace kvsim::testing {

struct CliProcess {
  pid_t pid = -1;
  std::string out_path, err_path;
};

// Starts kvsim with `args`, stdout and stderr to the given paths. `in_child` runs in the child
// before exec (set limits).
CliProcess StartCli(const std::vector<std::string>& args, const std::string& stdout_path, const std::string& stderr_path,
                    const std::function<void()>& in_child = {});
// Waits for it; a death by signal is reported as 128 + the signal. `out` is empty when stdout was
// not a regular file.
CommandResult WaitCli(const CliProcess& process);

// Names in `dir` that look like kvsim's temporary files ("*.tmp.*").
std::vector<std::string> TempFilesIn(const std::string& dir);

// A character device that fails every write with ENOSPC: /dev/full, or a node made in `dir` where
// /dev/full is not a device (some containers); "" when neither is possible (then skip).
// A character device that fails every write with ENOSPC (major 1, minor 7, as /dev/full): a node
// made in `dir` when allowed (root), else /dev/full if it is a device there; "" when neither (skip).
std::string FullDevice(const std::string& dir);

}  // namespace kvsim::testing

#endif  // KVSIM_TESTS_CLI_CLI_PROCESS_H_
