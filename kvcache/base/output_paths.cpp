#include "kvcache/base/output_paths.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <map>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

struct Identity {
  bool exists = false;
  bool char_device = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string place;  // canonical parent directory + "/" + name, for files that do not exist yet
};

Identity Identify(const std::string& path) {
  Identity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.char_device = S_ISCHR(st.st_mode);
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
  }
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char resolved[PATH_MAX];
  id.place = (::realpath(dir.c_str(), resolved) ? std::string(resolved) : dir) + "/" + name;
  return id;
}

bool Same(const Identity& a, const Identity& b) {
  if (a.exists != b.exists) return false;
  return a.exists ? a.dev == b.dev && a.ino == b.ino : a.place == b.place;
}

bool IsStdout(const OutputPath& o) { return o.dash_is_stdout && o.path == "-"; }

}  // namespace

bool SameFile(const std::string& a, const std::string& b) { return Same(Identify(a), Identify(b)); }

namespace {

// An output that cannot be written (a directory, or in a folder that does not exist) is refused
// before the command runs: found only at the end, it would cost the whole run and leave the answer
// half-written (the table printed, the file missing).
void CheckWritablePlace(const OutputPath& o) {
  struct stat st {};
  if (::stat(o.path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(o.option + " '" + o.path + "': is a directory, not a file to write");
    return;
  }
  const size_t slash = o.path.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return;
  const std::string dir = o.path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(o.option + " '" + o.path + "': cannot write: the folder '" + dir + "' does not exist");
}

}  // namespace

void CheckOutputPaths(const std::vector<OutputPath>& outputs, const std::vector<std::string>& inputs) {
  std::vector<Identity> ids;
  for (const OutputPath& o : outputs) {
    if (!IsStdout(o) && !o.path.empty()) CheckWritablePlace(o);
    ids.push_back(IsStdout(o) ? Identity{} : Identify(o.path));
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const OutputPath &a = outputs[j], &b = outputs[i];
      if (IsStdout(a) && IsStdout(b))
        throw Error(a.option + " and " + b.option + " both write to standard output ('-'); give one of them a file");
      if (IsStdout(a) || IsStdout(b) || ids[i].char_device) continue;
      if (Same(ids[i], ids[j]))
        throw Error(a.option + " '" + a.path + "' and " + b.option + " '" + b.path +
                    "' are the same file; each output needs its own file");
    }
  // Each output's own value appears once on the command line; anything more is an input.
  std::map<std::string, int> seen;
  for (const std::string& s : inputs) ++seen[s];
  for (const OutputPath& o : outputs) --seen[o.path];
  for (const auto& [candidate, count] : seen) {
    if (count <= 0 || candidate.empty() || candidate == "-") continue;
    const Identity in = Identify(candidate);
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (IsStdout(outputs[i]) || ids[i].char_device) continue;
      const bool same_text = candidate == outputs[i].path;
      if ((in.exists || same_text) && Same(in, ids[i]))
        throw Error(outputs[i].option + " '" + outputs[i].path + "': is the same file as the input '" + candidate +
                    "'; refusing to write over an input");
    }
  }
}

}  // namespace kvsim
