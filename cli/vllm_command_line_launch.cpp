#include "cli/vllm_command_line_launch.h"

#include <algorithm>
#include <cctype>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "cli/option_words.h"
#include "cli/shell_expansion.h"

namespace kvsim {
namespace {

bool IsAssignment(const std::string& t) { return t.find('=') != std::string::npos && !t.empty() && t[0] != '-'; }

// The interpreter by name or path (python3.12, /usr/bin/python3, .venv/bin/python).
bool IsPython(const std::string& word) {
  const size_t slash = word.rfind('/');
  return StartsWith(slash == std::string::npos ? word : word.substr(slash + 1), "python");
}

// `bash -c`, `sh -c`, `/bin/bash -lc` (-c with other one-letter options): a shell given its command as a string.
bool IsShellWithCommandString(const std::string& shell, const std::string& option) {
  const size_t slash = shell.rfind('/');
  const std::string name = slash == std::string::npos ? shell : shell.substr(slash + 1);
  if (name != "bash" && name != "sh" && name != "zsh" && name != "dash") return false;
  if (option.size() < 2 || option[0] != '-' || option[1] == '-' || option.find('c') == std::string::npos) return false;
  return std::all_of(option.begin() + 1, option.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

// `vllm serve`, `python -m ...`, `sglang serve` at t[i]: the index of the first server argument, or 0.
size_t ServerCommandAt(const std::vector<std::string>& t, size_t i, bool& sglang) {
  sglang = false;
  const bool vllm_binary = t.size() > i && (t[i] == "vllm" || (t[i].size() > 5 && t[i].compare(t[i].size() - 5, 5, "/vllm") == 0));
  if (i + 1 < t.size() && vllm_binary && t[i + 1] == "serve") return i + 2;
  if (i < t.size() && IsPython(t[i])) {
    // The interpreter's own options before -m (-u, -O, -B; -X and -W take a value) are not the server's.
    size_t m = i + 1;
    while (m < t.size() && t[m] != "-m" && StartsWith(t[m], "-")) m += (t[m] == "-X" || t[m] == "-W") ? 2 : 1;
    if (m + 1 < t.size() && t[m] == "-m") {
      if (t[m + 1] == "vllm.entrypoints.openai.api_server") return m + 2;
      if (t[m + 1] == "sglang.launch_server") return sglang = true, m + 2;
      // The `vllm` command's own module: `python -m vllm.entrypoints.cli.main serve MODEL ...`.
      if (t[m + 1] == "vllm.entrypoints.cli.main" && m + 2 < t.size() && t[m + 2] == "serve") return m + 3;
    }
  }
  if (i + 1 < t.size() && t[i] == "sglang" && t[i + 1] == "serve") return sglang = true, i + 2;
  return 0;
}

// The options of `docker run` (and podman's, which takes the same) that take their value as the next
// token (docker's run reference, every option with a value); a value given as --opt=value is one token.
bool DockerOptionTakesValue(const std::string& o) {
  static const char* const kWithValue[] = {
      "-a", "--attach", "--add-host", "--annotation", "--blkio-weight", "--blkio-weight-device", "-c", "--cpu-shares",
      "--cap-add", "--cap-drop", "--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-count", "--cpu-percent",
      "--cpu-period", "--cpu-quota", "--cpu-rt-period", "--cpu-rt-runtime", "--cpus", "--cpuset-cpus", "--cpuset-mems",
      "--detach-keys", "--device", "--device-cgroup-rule", "--device-read-bps", "--device-read-iops",
      "--device-write-bps", "--device-write-iops", "--dns", "--dns-opt", "--dns-option", "--dns-search", "--domainname",
      "-e", "--env", "--entrypoint", "--env-file", "--expose", "--gpus", "--group-add", "--health-cmd",
      "--health-interval", "--health-retries", "--health-start-interval", "--health-start-period", "--health-timeout",
      "-h", "--hostname", "--ip", "--ip6", "--ipc", "--isolation", "--kernel-memory", "-l", "--label", "--label-file",
      "--link", "--link-local-ip", "--log-driver", "--log-opt", "--mac-address", "-m", "--memory", "--memory-reservation",
      "--memory-swap", "--memory-swappiness", "--mount", "--name", "--network", "--net", "--network-alias", "--net-alias",
      "--oom-score-adj", "--pid", "--pids-limit", "--platform", "-p", "--publish", "--pull", "--restart", "--runtime",
      "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--storage-opt", "--sysctl", "--tmpfs",
      "--ulimit", "-u", "--user", "--userns", "--uts", "-v", "--volume", "--volume-driver", "--volumes-from", "-w",
      "--workdir",
      // podman's own
      "--pod", "--secret", "--hooks-dir", "--cgroup-conf", "--requires", "--pidfile", "--arch", "--os", "--variant"};
  return std::find(std::begin(kWithValue), std::end(kWithValue), o) != std::end(kWithValue);
}

// vLLM's published images (docker/Dockerfile and its -rocm, -cpu, -xpu siblings; the recipes run
// vllm/vllm-openai, vllm/vllm-openai-rocm, vllm/vllm-openai-cpu and vllm/vllm-openai-xpu) set
// ENTRYPOINT ["vllm", "serve"], so what follows the image is vllm serve's own arguments.
bool IsVllmServeImage(const std::string& image) {
  std::string name = image.substr(0, image.find_first_of(":@"));
  if (StartsWith(name, "docker.io/")) name = name.substr(10);
  return StartsWith(name, "vllm/vllm-openai");
}

// The release an image's tag names: vllm/vllm-openai:v0.25.0 (or 0.25.1, v0.25.0-cu130) is 0.25; 0 for
// latest, nightly or a digest.
int ReleaseOfImageTag(const std::string& image) {
  const size_t colon = image.rfind(':');
  if (colon == std::string::npos || image.find('@') != std::string::npos) return 0;
  std::string tag = image.substr(colon + 1);
  if (StartsWith(tag, "v")) tag = tag.substr(1);
  if (!StartsWith(tag, "0.")) return 0;
  size_t end = 2;
  while (end < tag.size() && std::isdigit(static_cast<unsigned char>(tag[end]))) ++end;
  return end > 2 && end - 2 <= 3 ? std::stoi(tag.substr(2, end - 2)) : 0;
}

ServerLaunch ContainerRun(const std::vector<std::string>& t, size_t i, std::vector<std::string> environment) {
  const std::string runner = t[i];
  size_t j = i + 2;
  bool entrypoint_given = false;
  std::string entrypoint;
  for (; j < t.size() && StartsWith(t[j], "-"); ++j) {
    std::string option = t[j], value;
    const size_t eq = option.find('=');
    if (eq != std::string::npos) value = option.substr(eq + 1), option = option.substr(0, eq);
    else if (DockerOptionTakesValue(option) && j + 1 < t.size()) value = t[++j];
    if ((option == "-e" || option == "--env") && value.find('=') != std::string::npos) environment.push_back(value);
    if (option == "--entrypoint") entrypoint_given = true, entrypoint = value;
  }
  if (j >= t.size()) throw Error("`" + runner + " run` names no image (in the pasted server command line)");
  const std::string& image = t[j];
  ServerLaunch launch;
  launch.environment = std::move(environment);
  launch.image = image;
  if (entrypoint_given) {
    // --entrypoint "" leaves the command after the image to run as typed; --entrypoint vllm runs `vllm` with it.
    std::vector<std::string> command(t.begin() + static_cast<std::ptrdiff_t>(j) + 1, t.end());
    if (!entrypoint.empty()) command.insert(command.begin(), entrypoint);
    bool sglang = false;
    // --entrypoint /bin/bash IMAGE -c "vllm serve ...": the command is the string (read by FindServerLaunch).
    if (command.size() > 2 && IsShellWithCommandString(command[0], command[1])) {
      launch.inner_command = SplitOptionString(command[2], "the `" + command[0] + " " + command[1] + "` command");
      launch.image_minor = IsVllmServeImage(image) ? ReleaseOfImageTag(image) : 0;
      launch.args_start = t.size();
      return launch;
    }
    const size_t start = ServerCommandAt(command, 0, sglang);
    if (start == 0)
      throw Error("`" + runner + " run --entrypoint " + (entrypoint.empty() ? "\"\"" : entrypoint) + " " + image +
                  "` runs no vllm serve: paste the vllm serve line the container runs");
    launch.args_start = j + 1 + start - (entrypoint.empty() ? 0 : 1), launch.sglang = sglang;
    launch.image_minor = IsVllmServeImage(image) ? ReleaseOfImageTag(image) : 0;
    return launch;
  }
  if (IsVllmServeImage(image)) {
    launch.image_minor = ReleaseOfImageTag(image);
    // The entrypoint is already `vllm serve`: typed again, vLLM would take "vllm" for the model and refuse "serve".
    if (j + 2 < t.size() && t[j + 1] == "vllm" && t[j + 2] == "serve")
      throw Error("image " + image + " runs `vllm serve` itself (its ENTRYPOINT), so the `vllm serve` typed after it "
                  "makes vLLM read 'vllm' as the model and refuse 'serve': give the model and flags right after the image");
    launch.args_start = j + 1;
    return launch;
  }
  // Another image: read it only when the command after it is a server's.
  bool sglang = false;
  if (const size_t start = ServerCommandAt(t, j + 1, sglang)) {
    launch.args_start = start, launch.sglang = sglang;
    return launch;
  }
  throw Error("image " + image + " is not vLLM's (vllm/vllm-openai...), and no `vllm serve` follows it: kvsim does not "
              "know what its entrypoint runs; paste the vllm serve line the container runs");
}

// A control operator (|, &&, ;, &) ends the server's command; what follows is the shell's.
bool IsShellOperator(const std::string& t) {
  return t == "|" || t == "||" || t == "&&" || t == ";" || t == "&" || t == "|&";
}
// A redirection (2>&1, > log, >>log, &> log, < in): the shell's, wherever it stands in the command.
bool IsRedirection(const std::string& t) {
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i < t.size() && t[i] == '&') ++i;  // &> and &>>
  return i < t.size() && (t[i] == '>' || t[i] == '<');
}
// The redirection names its file in the next word (`> log`, `2>> err`), not in itself (`>log`, `2>&1`).
bool RedirectionTakesNextWord(const std::string& t) {
  size_t i = t.find_first_of("<>");
  while (i < t.size() && (t[i] == '<' || t[i] == '>')) ++i;
  return i == t.size();
}
// `<MODEL>` or `<path>/model` is a placeholder the reader was to fill in: a shell reads it as redirections
// (input from a file MODEL), and the server never sees it.
bool IsPlaceholder(const std::string& t) {
  const size_t close = t.find('>');
  return t.size() > 2 && t[0] == '<' && close != std::string::npos && close > 1 &&
         t.find_first_of("<>&", 1) == close;
}

// A redirection is removed from the server's arguments and those after it stay its own, as a shell
// does; a control operator ends them. Both are said, never the server's.
void CollectServerArguments(const std::vector<std::string>& t, ServerLaunch& launch) {
  // A script pasted whole sets its variables before the command (`model_path=/models/x` on one line,
  // `vllm serve $model_path` on the next), each value expanded as the shell would.
  launch.environment = ExpandAssignments(launch.environment);
  std::vector<std::string> shell;
  size_t i = launch.args_start;
  for (; i < t.size() && !IsShellOperator(t[i]); ++i) {
    if (IsPlaceholder(t[i]))
      throw Error("'" + t[i] + "' in the pasted server command line is a placeholder to fill in: a shell reads `" +
                  t[i].substr(0, t[i].find('>') + 1) + "` as redirections, and the server would never see it; put "
                  "the model (or the value) there");
    if (!IsRedirection(t[i])) {
      // A word that expands to nothing (${EAGER:+--enforce-eager} with EAGER unset) is no argument at all.
      std::string word = ExpandShellWord(t[i], launch.environment);
      if (!word.empty() || t[i].empty()) launch.args.push_back(std::move(word));
      continue;
    }
    shell.push_back(t[i]);
    if (RedirectionTakesNextWord(t[i]) && i + 1 < t.size()) shell.push_back(t[++i]);
  }
  for (; i < t.size(); ++i) shell.push_back(t[i]);
  launch.shell_tail = Join(shell, " ");
}

// What runs before the server's command and gives it an environment: `VAR=value` prefixes, `export
// VAR=value` commands ended by `;`, `&&` or a newline, `sudo [-E]` (its options with a value take the
// next word), `nohup`, `exec`.
size_t SkipLaunchPrefix(const std::vector<std::string>& t, std::vector<std::string>& environment) {
  size_t i = 0;
  while (i < t.size()) {
    std::string word = t[i];
    if (word == "export") {
      ++i;
      continue;
    }
    if (word == ";" || word == "&&") {
      ++i;
      continue;
    }
    if (word == "sudo") {
      for (++i; i < t.size() && StartsWith(t[i], "-"); ++i)
        if ((t[i] == "-u" || t[i] == "-g" || t[i] == "-C" || t[i] == "-D" || t[i] == "-h") && i + 1 < t.size()) ++i;
      continue;
    }
    if (word == "nohup" || word == "exec") {
      ++i;
      continue;
    }
    if (word == "uv" && i + 1 < t.size() && t[i + 1] == "run") {  // uv run vllm serve ...: the project's environment
      i += 2;
      continue;
    }
    // Wrappers that run the command unchanged: `time`, `env [-i] [-u NAME] VAR=value`, `taskset [-a] [-c] LIST`,
    // `numactl` with its placement options (the short ones take the next word unless given as -N0).
    if (word == "time" || word == "env") {
      for (++i; i < t.size() && StartsWith(t[i], "-"); ++i)
        if (t[i] == "-u" && i + 1 < t.size()) ++i;
      continue;
    }
    if (word == "taskset") {
      for (++i; i < t.size() && StartsWith(t[i], "-"); ++i) {
      }
      if (i < t.size()) ++i;  // the CPU mask or list
      continue;
    }
    if (word == "numactl") {
      for (++i; i < t.size() && StartsWith(t[i], "-"); ++i)
        if (t[i].size() == 2 && t[i] != "-l" && t[i] != "-H" && t[i] != "-s" && i + 1 < t.size()) ++i;
      continue;
    }
    if (!word.empty() && word.back() == ';') word.pop_back();  // export X=1; vllm serve ...
    if (!IsAssignment(word)) break;
    environment.push_back(word);
    ++i;
  }
  return i;
}

ServerLaunch FindServerLaunchCommand(const std::vector<std::string>& t) {
  std::vector<std::string> environment;
  const size_t i = SkipLaunchPrefix(t, environment);
  if (i + 1 < t.size() && (t[i] == "docker" || t[i] == "podman") && t[i + 1] == "run")
    return ContainerRun(t, i, std::move(environment));
  ServerLaunch launch;
  launch.environment = std::move(environment);
  if ((launch.args_start = ServerCommandAt(t, i, launch.sglang))) return launch;
  throw Error("the server command line must start with `vllm serve`, `python -m vllm.entrypoints.openai.api_server`, "
              "`python -m sglang.launch_server` or `docker run ... vllm/vllm-openai:TAG` (got '" +
              Join(std::vector<std::string>(t.begin(), t.begin() + std::min<size_t>(3, t.size())), " ") + "')");
}

}  // namespace

ServerLaunch FindServerLaunch(const std::vector<std::string>& t) {
  // `bash -c "vllm serve ..."` (a container's or a job's command): the command is the string, read as the
  // shell reads it; the environment given before the shell is its own.
  std::vector<std::string> environment;
  const size_t i = SkipLaunchPrefix(t, environment);
  if (i + 2 < t.size() && IsShellWithCommandString(t[i], t[i + 1])) {
    ServerLaunch inner = FindServerLaunch(SplitOptionString(t[i + 2], "the `" + t[i] + " " + t[i + 1] + "` command"));
    inner.environment.insert(inner.environment.begin(), environment.begin(), environment.end());
    return inner;
  }
  ServerLaunch launch = FindServerLaunchCommand(t);
  if (!launch.inner_command.empty()) {
    ServerLaunch inner = FindServerLaunch(launch.inner_command);
    inner.environment.insert(inner.environment.begin(), launch.environment.begin(), launch.environment.end());
    inner.image = launch.image;
    inner.image_minor = launch.image_minor;
    return inner;
  }
  CollectServerArguments(t, launch);
  return launch;
}

}  // namespace kvsim
