// The flags of the servers whose command lines kvsim reads (`vllm serve`, SGLang's
// launch_server), each with what kvsim does with it: the kvsim flag it becomes, no effect on what
// kvsim answers, or not modelled (refused or warned about by the translator, vllm_command_line.h).
#ifndef KVSIM_CLI_SERVE_FLAGS_H_
#define KVSIM_CLI_SERVE_FLAGS_H_

#include <string>
#include <vector>

#include "kvcache/budget/serving_engine.h"

namespace kvsim {

enum class Takes { kSwitch, kValue, kOptionalValue, kList };
enum class Effect { kModelled, kNoEffect, kNotModelled };

// The vLLM releases (0.<minor>) whose `vllm serve` parser has a flag. Where the release that added
// or removed it is known only to lie in a range, both ends are kept, so the translator never claims
// more than was read: the flag is absent before 0.<first_min> and present from 0.<first_max> on;
// present up to 0.<last_min> and absent after 0.<last_max>. first_min == 0: in v0.11's parser (the
// oldest kvsim's table was read from; earlier releases are not dated); last_max == 0: still in the
// newest parser read; last_min == 0 < last_max: a flag of earlier releases, which ones not dated.
struct FlagReleases {
  int first_min = 0;
  int first_max = 0;
  int last_min = 0;
  int last_max = 0;
};
// A flag or value first shipped in 0.<minor>, or in some release of 0.<lo>..0.<hi> where only the range
// is known.
constexpr FlagReleases FlagAddedIn(int minor) { return {minor, minor, 0, 0}; }
constexpr FlagReleases FlagAddedBetween(int lo, int hi) { return {lo, hi, 0, 0}; }
// In the newest parser read (vLLM main of September 2026, taken as 0.30's) but not in v0.11's: the
// release that added it is not established.
inline constexpr FlagReleases kAddedAfterV011 = {12, kNewestModelledVllmMinor, 0, 0};

// vLLM 0.12 introduced optimization levels (docs.vllm.ai/en/v0.12.0/design/optimization_levels) and
// moved -O onto them; -cc took over as --compilation-config's short form.
inline constexpr int kFirstOptimizationLevelMinor = 12;

// One flag of a server's parser. `kvsim`: the kvsim flag it becomes (modelled flags); for a switch
// with a --no- form, `kvsim_negated` is what --no-<name> becomes (empty: nothing, the default).
struct ServeFlag {
  const char* name;
  const char* alias;
  Takes takes;
  Effect effect;
  const char* kvsim = "";
  const char* kvsim_negated = "";
  FlagReleases releases = {};
};

// The flag named `name` (or its alias) in vLLM's or SGLang's parser; null when it has none.
const ServeFlag* FindServeFlag(bool sglang, const std::string& name);
// argparse's abbreviations (allow_abbrev): the one flag whose name starts with `prefix`; null when
// none or several do.
const ServeFlag* FindServeFlagByPrefix(bool sglang, const std::string& prefix);
// Every flag name of the parser, in its order (for "did you mean").
std::vector<std::string> ServeFlagNames(bool sglang);
// What vLLM 0.<minor> makes of the flag when it is not in that release's parser: "--moe-backend
// exists from vLLM 0.16 on; this plan models 0.11 (--vllm-version), whose vllm serve would refuse it";
// empty when the release has it. `modelled` is the release's text as the plan names it.
std::string FlagReleaseNote(const ServeFlag& flag, int minor, const std::string& modelled);
// The release whose parser the table's newest flags were read from (named in "not a flag" errors).
const char* NewestServeFlagTableRelease();
// A flag of a release after the table's, known from that release's notes but not from its parser: the
// translator refuses it, naming both releases.
bool IsNewerThanServeFlagTable(const ServeFlag& flag);
// JSON-valued flags vLLM also takes key by key: --speculative-config.num_speculative_tokens 5.
bool IsJsonFlag(const std::string& name);

}  // namespace kvsim

#endif  // KVSIM_CLI_SERVE_FLAGS_H_
