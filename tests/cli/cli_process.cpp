#include "tests/cli/cli_process.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <stdexcept>

namespace kvsim::testing {

CliProcess StartCli(const std::vector<std::string>& args, const std::string& stdout_path, const std::string& stderr_path,
                    const std::function<void()>& in_child) {
  CliProcess p;
  p.out_path = stdout_path;
  p.err_path = stderr_path;
  std::vector<std::string> argv_storage = {KVSIM_BIN};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  p.pid = ::fork();
  if (p.pid < 0) throw std::runtime_error("fork failed");
  if (p.pid == 0) {
    // The child starts with default dispositions whatever the test runner set.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(sig, SIG_DFL);
    const rlimit no_core{0, 0};  // SIGQUIT tests: no core files
    ::setrlimit(RLIMIT_CORE, &no_core);
    const int out = ::open(p.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(p.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    if (in_child) in_child();
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return p;
}

CommandResult WaitCli(const CliProcess& p) {
  int status = 0;
  while (::waitpid(p.pid, &status, 0) < 0) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  struct stat st {};
  const bool regular = ::stat(p.out_path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  return {code, regular ? ReadFile(p.out_path) : "", ReadFile(p.err_path)};
}

std::vector<std::string> TempFilesIn(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".tmp.") != std::string::npos) found.push_back(name);
  }
  return found;
}

std::string FullDevice(const std::string& dir) {
  // A private node first: a kvsim that renamed over its output would replace only this one.
  const std::string node = dir + "/full";
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) return node;
  struct stat st {};
  if (::stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) return "/dev/full";
  return "";
}

}  // namespace kvsim::testing
