// The pasted server command line merged with kvsim's own flags (ExpandServeCommand, declared in
// cli/vllm_command_line.h): which of the two wins where both set a value, and the warnings about a
// pasted checkpoint that kvsim's own --model config does not describe.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "cli/option_rules.h"
#include "cli/option_words.h"
#include "cli/pasted_shell_text.h"
#include "cli/vllm_command_line.h"

namespace kvsim {
namespace {

// The pasted id names a quantized checkpoint (…-AWQ-INT4, …-GPTQ, …-FP8) while kvsim's own --model
// config is planned without a --quantization: the weights would be planned at the config's dtype.
// Names are not proof, so this is a warning that says what to give, not a guess.
void WarnIfQuantizedIdOverBaseConfig(const std::string& pasted_id, const std::vector<std::string>& own,
                                     const std::vector<std::string>& server_args, std::ostream& err,
                                     const std::string& command) {
  auto has = [](const std::vector<std::string>& v, const char* flag) {
    return std::any_of(v.begin(), v.end(), [&](const std::string& a) { return a == flag || StartsWith(a, std::string(flag) + "="); });
  };
  if (has(own, "--quantization") || has(server_args, "--quantization")) return;
  std::string upper = pasted_id;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  static const std::pair<const char*, const char*> kMarkers[] = {
      {"AWQ", "awq"}, {"GPTQ", "gptq"}, {"FP8", "fp8"}, {"W8A8", "compressed-tensors (int8)"}, {"W4A16", "compressed-tensors (int4)"},
      {"INT4", "awq or gptq (int4)"}, {"INT8", "an int8 format"}, {"NVFP4", "nvfp4"}, {"FP4", "fp4 (nvfp4)"},
      {"BNB", "bitsandbytes"}, {"4BIT", "bitsandbytes"}};
  std::string config = "the --model config";
  for (size_t i = 0; i + 1 < own.size(); ++i)
    if (own[i] == "--model" || own[i] == "-m") config = own[i + 1];
  std::string config_upper = config;
  for (char& c : config_upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& [marker, method] : kMarkers) {
    // A config named like the checkpoint is taken to be the checkpoint's own.
    if (upper.find(marker) == std::string::npos || config_upper.find(marker) != std::string::npos) continue;
    err << "kvsim " << command << ": warning: the pasted model '" << pasted_id << "' names " << method
        << " weights, but " << config << " is planned as that config declares, with no --quantization given; give the "
        << "checkpoint's config.json, or --quantization to match\n";
    return;
  }
}

}  // namespace

// vLLM's default model: ModelConfig.model in vllm/config/model.py ("facebook/opt-125m" in older releases).
// `vllm serve [model_tag] [options]` takes the positional as optional (vllm/entrypoints/cli/serve.py
// sets args.model from it only when given), so a line without one starts this model.
constexpr const char* kVllmDefaultModel = "Qwen/Qwen3-0.6B";

void ServeTheDefaultModelIfNoneGiven(ServeCommandLine& line, const std::vector<std::string>& own) {
  auto names_model = [](const std::vector<std::string>& args) {
    return std::any_of(args.begin(), args.end(), [](const std::string& a) {
      return a == "--model" || a == "-m" || StartsWith(a, "--model=");
    });
  };
  if (names_model(line.kvsim_args) || names_model(own)) return;
  if (line.sglang) throw Error("the pasted sglang.launch_server line names no model: SGLang requires --model-path");
  // vLLM's FlexibleArgumentParser.parse_args refuses --served-model-name without a positional model
  // (vllm/utils/argparse_utils.py): a name for a default model is taken as a forgotten model.
  if (std::find(line.accepted_no_effect.begin(), line.accepted_no_effect.end(), "--served-model-name") != line.accepted_no_effect.end())
    throw Error("the pasted line gives --served-model-name but no model; vLLM refuses it (\"`model` should be provided as "
                "the first positional argument\"): give the model after vllm serve");
  line.kvsim_args.insert(line.kvsim_args.begin(), {"--model", kVllmDefaultModel});
  line.notes.push_back(std::string("the pasted line names no model: vLLM then serves its default model, ") + kVllmDefaultModel +
                       " (ModelConfig.model), and this plan is for that model");
}

// The release the plan models: kvsim's own --vllm-version (the last given, as the option parser
// keeps it), else the newest. A malformed one is left for the option parser to refuse.
VllmVersion ModelledRelease(const std::vector<std::string>& own) {
  std::string text;
  for (size_t i = 0; i < own.size(); ++i) {
    if (own[i] == "--vllm-version" && i + 1 < own.size()) text = own[++i];
    else if (StartsWith(own[i], "--vllm-version=")) text = own[i].substr(15);
  }
  if (text.empty()) return VllmVersion{};
  try {
    return ParseVllmVersion(text);
  } catch (const Error&) {
    return VllmVersion{};
  }
}

std::vector<std::string> ServeLineWarnings(const ServeCommandLine& line) {
  std::vector<std::string> out = line.notes;
  if (!line.replaced_by_later.empty())
    out.push_back("given again later in the pasted line, so vLLM uses the later value: " + Join(line.replaced_by_later, ", "));
  if (!line.not_modelled.empty())
    out.push_back("accepted but not modelled (they change memory): " + Join(line.not_modelled, ", "));
  if (!line.kernel_choices.empty())
    out.push_back("kernel choices, no effect on memory; kvsim's step times do not tell kernels apart: " +
                  Join(line.kernel_choices, ", "));
  if (!line.unknown_environment.empty())
    out.push_back("environment variables kvsim has no entry for, so not modelled (they may change memory or time): " +
                  Join(line.unknown_environment, ", "));
  return out;
}

std::vector<std::string> ExpandServeCommand(const std::vector<std::string>& args, std::ostream& err,
                                            const std::string& command, std::vector<std::string>* notes) {
  std::vector<std::string> own, server, shell_notes;
  bool found = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--" && !found) {
      server.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      found = true;
      break;
    }
    if (args[i] == "--vllm-cmd" || StartsWith(args[i], "--vllm-cmd=")) {
      if (found) throw Error("--vllm-cmd: give one server command line");
      std::string text = args[i] == "--vllm-cmd" ? (i + 1 < args.size() ? args[++i] : "") : args[i].substr(11);
      if (text.empty()) throw Error("--vllm-cmd: expects the server command line in quotes");
      // A pasted line may keep its prompt and comments; a shell would never pass them to the server.
      PastedShellText pasted = WithoutShellCommentsAndPrompt(text, "--vllm-cmd");
      server = SplitOptionString(pasted.text, "--vllm-cmd");
      shell_notes = std::move(pasted.notes);
      found = true;
      continue;
    }
    own.push_back(args[i]);
  }
  if (!found) return args;
  if (server.empty()) throw Error("nothing after `--`: paste the server command line there (vllm serve MODEL [flags])");
  ServeCommandLine cmd = TranslateServeCommand(server, ModelledRelease(own));
  cmd.notes.insert(cmd.notes.begin(), shell_notes.begin(), shell_notes.end());
  ServeTheDefaultModelIfNoneGiven(cmd, own);
  // kvsim's own --model names the config for the pasted model (a local path, or an id without a preset).
  const bool own_model = std::any_of(own.begin(), own.end(), [](const std::string& a) {
    return a == "--model" || a == "-m" || StartsWith(a, "--model=");
  });
  if (own_model) {
    auto it = std::find(cmd.kvsim_args.begin(), cmd.kvsim_args.end(), "--model");
    if (it != cmd.kvsim_args.end()) {
      WarnIfQuantizedIdOverBaseConfig(it + 1 < cmd.kvsim_args.end() ? *(it + 1) : "", own, cmd.kvsim_args, err, command);
      cmd.kvsim_args.erase(it, it + 2);
    }
  }
  if (cmd.sglang && std::find(own.begin(), own.end(), "--engine") == own.end()) own.insert(own.end(), {"--engine", "sglang"});
  // A setting given both before `--` and in the pasted line: kvsim's own flag wins, and says so.
  auto own_has = [&](const std::string& flag) {
    return std::any_of(own.begin(), own.end(), [&](const std::string& a) {
      const std::string setting = SettingOfFlag(a.substr(0, a.find('=')));
      return setting == SettingOfFlag(flag);
    });
  };
  // A server flag that kvsim models in the replay's timing only: `capacity` (memory) has no such
  // option, and the flag changes nothing it answers.
  auto timing_only = [&](const std::string& flag) { return command == "capacity" && flag == "--scheduler-recv-interval"; };
  std::vector<std::string> overridden;
  for (size_t i = 0; i < cmd.kvsim_args.size(); ++i) {
    const std::string& flag = cmd.kvsim_args[i];
    const bool has_value = i + 1 < cmd.kvsim_args.size() && !StartsWith(cmd.kvsim_args[i + 1], "--");
    if (timing_only(flag)) {
      cmd.accepted_no_effect.push_back(flag);
    } else if (own_has(flag)) {
      overridden.push_back(flag);
    } else {
      own.push_back(flag);
      if (has_value) own.push_back(cmd.kvsim_args[i + 1]);
    }
    if (has_value) ++i;
  }
  if (!overridden.empty())
    err << "kvsim " << command << ": given before `--`, these replace the pasted line's: " << Join(overridden, ", ") << "\n";
  if (!cmd.accepted_no_effect.empty())
    err << "kvsim " << command << ": accepted, no effect on memory: " << Join(cmd.accepted_no_effect, ", ") << "\n";
  const std::vector<std::string> warnings = ServeLineWarnings(cmd);
  if (notes) notes->insert(notes->end(), warnings.begin(), warnings.end());
  else
    for (const std::string& w : warnings) err << "kvsim " << command << ": warning: " << w << "\n";
  return own;
}

}  // namespace kvsim
