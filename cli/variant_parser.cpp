#include "cli/variant_parser.h"

#include <boost/program_options.hpp>
#include <map>

#include "kvcache/base/error.h"
#include "cli/deployment_flags.h"
#include "cli/disagg_flags.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"
#include "cli/replay_flags.h"
#include "cli/vllm_command_line.h"
#include "cli/shared_flags.h"
#include "sim/run/offload_setup.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

// A deployment's own options override the command's shared ones, but within one deployment a setting
// given twice (--max-num-seqs 8 --max-num-seqs 16, or --X with --no-X) would keep one value and drop
// the other without a word, where the command line itself refuses both.
void RefuseRepeatedSettings(const std::vector<std::string>& own, const po::options_description& desc) {
  const po::parsed_options parsed =
      po::command_line_parser(ExpandShortParallelFlags(own)).options(desc).allow_unregistered().run();
  std::map<std::string, std::string> seen;  // setting -> the flag that set it first
  for (const po::option& o : parsed.options) {
    if (o.unregistered || o.string_key.empty()) continue;
    const std::string flag = "--" + o.string_key;
    const auto [it, fresh] = seen.emplace(SettingOfFlag(flag), flag);
    if (fresh) continue;
    throw Error(it->second == flag ? flag + " is given twice in one deployment; give it once"
                                   : it->second + " and " + flag + " are both given in one deployment; they set the same "
                                     "thing, give one");
  }
}

}  // namespace

Variant ParseVariant(const std::string& label, const std::vector<std::string>& base_args,
                     const std::vector<std::string>& overrides, const std::string& data_dir, ResolveCache* cache) {
  Variant v;
  v.label = label;
  DeploymentOptions dep;
  ReplayFlags replay;
  DisaggFlags disagg;
  po::options_description desc;
  OutputFlags outputs(desc);  // a variant's replay writes no files: its command's own flags name them
  AddReplayOptions(desc, replay, outputs);
  AddDeploymentOptions(desc, dep);
  AddDisaggOptions(desc, disagg);
  std::vector<std::string> args = base_args;
  // A deployment may be a pasted server command line ("vllm serve MODEL -tp 2 ...").
  RefuseOptionPlaceholders(overrides);  // grid files and specs reach the parser here, not via argv
  // VAR=value before the command makes it a pasted line too; --flag=value is kvsim's own option.
  const bool pasted = !overrides.empty() && (overrides[0] == "vllm" || overrides[0].rfind("python", 0) == 0 ||
                                             overrides[0] == "sglang" || overrides[0] == "docker" || overrides[0] == "sudo" ||
                                             (overrides[0].find('=') != std::string::npos && overrides[0][0] != '-'));
  std::vector<std::string> own = overrides;
  if (pasted) {
    ServeCommandLine line = TranslateServeCommand(overrides, ModelledRelease(base_args));
    ServeTheDefaultModelIfNoneGiven(line, base_args);
    own = line.kvsim_args;
    v.warnings = ServeLineWarnings(line);
  }
  if (!pasted) RefuseRepeatedSettings(own, desc);
  args.insert(args.end(), own.begin(), own.end());
  po::parsed_options parsed = po::command_line_parser(ExpandShortParallelFlags(args)).options(desc).run();
  RejectPositionalArguments(parsed);
  // Last occurrence wins: keep only each setting's final value (--X and --no-X are one setting).
  auto setting = [](const po::option& o) { return SettingOfFlag("--" + o.string_key); };
  std::map<std::string, size_t> last;
  for (size_t i = 0; i < parsed.options.size(); ++i) last[setting(parsed.options[i])] = i;
  std::vector<po::option> kept;
  for (size_t i = 0; i < parsed.options.size(); ++i)
    if (last[setting(parsed.options[i])] == i) kept.push_back(parsed.options[i]);
  parsed.options = kept;
  po::variables_map vm;
  po::store(parsed, vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  ApplyDeploymentSwitches(vm, dep);
  v.replay = ResolveReplayFlags(std::move(replay), data_dir);
  // Compare and sweep write one summary per run and no per-run file: a file named once for many
  // runs would be claimed by all of them and written by none.
  for (const auto& [flag, path] : {std::pair<const char*, const std::string&>{"--timeseries", v.replay.timeseries_path},
                                   std::pair<const char*, const std::string&>{"--requests", v.replay.requests_path},
                                   std::pair<const char*, const std::string&>{"--report", v.replay.report_path}})
    if (!path.empty())
      throw Error(std::string(flag) + " " + path + ": compare and sweep write no per-run file, so it would never be "
                  "written; run kvsim replay with the run's options for it (compare's own --report overlays the deployments)");
  v.deployment = ResolveDeployment(dep, data_dir, cache);
  v.disagg = ResolveDisaggFlags(disagg, dep, v.replay.replicas, data_dir);
  // Refused here, before the command's first replay, rather than by every replay alike.
  CheckOffloadInputs(v.deployment, v.replay);
  if (v.disagg) {
    CheckOffloadInputs(v.disagg->prefill, v.replay);
    CheckOffloadInputs(v.disagg->decode, v.replay);
  }
  return v;
}

}  // namespace kvsim
