// kvsim releases: the vLLM releases kvsim models and the budgeting rules that changed between
// them, printed from the table the code obeys (kvcache/budget/release_rules.h). `--markdown` gives
// the table docs/CAPACITY_MODEL.md carries, so the docs are regenerated from the code, not edited.
#include <string>
#include <vector>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/budget/release_rules.h"
#include "kvcache/budget/serving_engine.h"
#include "cli/commands.h"

namespace kvsim {
namespace {

constexpr const char* kReleasesUsage =
    "Usage: kvsim releases [--markdown]\n\n"
    "Lists the vLLM releases kvsim models: each budgeting rule that changed between releases, the release that\n"
    "first shipped it (and the last, for one withdrawn) and its source. --vllm-version selects the release;\n"
    "the default and `latest` are the newest modelled; a newer release is planned as the newest modelled, with\n"
    "a note. --markdown prints the table as Markdown.\n";

std::string Releases(const ReleaseRuleEntry& e) {
  return e.last_minor == 0 ? Format(">= 0.%d", e.first_minor) : Format("0.%d - 0.%d", e.first_minor, e.last_minor);
}

}  // namespace

int RunReleasesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  bool markdown = false;
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kReleasesUsage;
      return 0;
    }
    if (a != "--markdown") throw Error("unexpected argument '" + a + "' (see --help)");
    markdown = true;
  }
  out << (markdown ? "Newest release modelled (the default of `--vllm-version`): **" : "newest release modelled (default): ")
      << kNewestModelledVllm << (markdown ? "**.\n\n" : "\n");
  if (markdown) out << "| releases | rule | what it moves | source |\n|---|---|---|---|\n";
  for (const ReleaseRuleEntry& e : ReleaseRules()) {
    if (markdown)
      out << "| " << Releases(e) << " | `" << NameOf(e.rule) << "` | " << e.moves << " | " << e.source << " |\n";
    else
      out << Format("%-12s %-28s %s\n%-12s %-28s (%s)\n", Releases(e).c_str(), NameOf(e.rule), e.moves, "", "", e.source);
  }
  if (!markdown) out << "releases before 0.8 and --vllm-version v0: the V0 engine, none of the rules above\n";
  return 0;
}

}  // namespace kvsim
