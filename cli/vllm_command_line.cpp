#include "cli/vllm_command_line.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "kvcache/base/error.h"
#include "kvcache/base/json_file.h"
#include "kvcache/base/text_format.h"
#include "kvcache/budget/all2all_backend.h"
#include "cli/option_rules.h"
#include "cli/option_words.h"
#include "cli/repeated_settings.h"
#include "cli/serve_flag_values.h"
#include "cli/serve_flags.h"
#include "cli/serve_json_flags.h"
#include "cli/server_environment.h"
#include "cli/vllm_command_line_launch.h"
#include "cli/yaml_config.h"

namespace kvsim {
namespace {

// vLLM's FlexibleArgumentParser accepts --max_model_len for --max-model-len.
std::string Dashed(const std::string& flag) {
  std::string out = flag;
  const size_t end = out.find_first_of("=.");
  for (size_t i = 2; i < std::min(end, out.size()); ++i)
    if (out[i] == '_') out[i] = '-';
  return out;
}


bool IsBoolWord(const std::string& s) {
  return s == "True" || s == "False" || s == "true" || s == "false" || s == "1" || s == "0";
}

// Adds `item` to a report list once.
void Note(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

class Translator {
 public:
  Translator(bool sglang, const VllmVersion& modelled) : sglang_(sglang), modelled_(modelled) { result_.sglang = sglang; }

  ServeCommandLine Run(const std::vector<std::string>& given) {
    if (!sglang_) RefuseVllmOmni(given);
    // vLLM's FlexibleArgumentParser puts the flags of `--config FILE.yaml` before those of the command
    // line; each token the file gave keeps its origin, so an error about it names the file, line and key.
    ServeArgsWithConfig expanded = sglang_ ? ServeArgsWithConfig{given, std::vector<std::string>(given.size()), {}}
                                           : ExpandServeConfigFile(given, modelled_);
    for (const std::string& n : expanded.notes) Note(result_.notes, n);
    const std::vector<std::string>& args = expanded.args;
    const std::vector<std::string>& origins = expanded.origins;
    origins_ = &origins;
    for (size_t i = 0; i < args.size(); ++i) {
      try {
        i = Consume(args, i);
      } catch (const Error& e) {
        if (origins[i].empty()) throw;
        throw Error(origins[i] + ": " + e.what());
      }
    }
    EmitJsonFlags();
    RefuseTwoSizesOfTheOffloadTier();
    return result_;
  }

 private:
  std::optional<ServeFlag> Lookup(const std::string& name, bool& negated) const {
    negated = false;
    const ServeFlag* f = FindServeFlag(sglang_, name);
    // argparse takes a unique prefix of a long flag (--tensor-parallel, --gpu-memory-util).
    if (!f && StartsWith(name, "--") && name.size() > 3) f = FindServeFlagByPrefix(sglang_, name);
    if (!f && StartsWith(name, "--no-")) {
      f = sglang_ ? nullptr : FindServeFlag(false, "--" + name.substr(5));
      negated = f && f->takes == Takes::kSwitch;
      if (!negated) f = nullptr;
    }
    if (f) return *f;
    return std::nullopt;
  }

  size_t Consume(const std::vector<std::string>& args, size_t i) {
    const std::string& tok = args[i];
    if (tok.size() < 2 || tok[0] != '-') return Positional(tok, i);
    std::string name = Dashed(tok), value;
    bool has_value = false;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1), name = name.substr(0, eq), has_value = true;
    } else if (StartsWith(name, "-O") && name.size() > 2 && name[2] != '.') {
      value = name.substr(2), name = "-O", has_value = true;  // -O3
    }
    // From 0.12 -O sets the optimization level (vllm/engine/arg_utils.py); before, the compilation level.
    if (!sglang_ && name == "-O" && modelled_.minor >= kFirstOptimizationLevelMinor) name = "--optimization-level";
    std::string json_key;
    if (const size_t dot = name.find('.'); dot != std::string::npos) json_key = name.substr(dot + 1), name = name.substr(0, dot);
    bool negated = false;
    const std::optional<ServeFlag> flag = Lookup(name, negated);
    if (!flag) throw Error(UnknownFlagMessage(tok));
    if (!sglang_ && IsNewerThanServeFlagTable(*flag)) throw Error(NewerReleaseFlagMessage(*flag));
    const std::string canonical = flag->name;
    if (!sglang_) {
      const std::string note = FlagReleaseNote(*flag, modelled_.minor, modelled_.text);
      if (!note.empty()) Note(result_.notes, note);
    }
    auto next_is_value = [&](size_t j) { return j < args.size() && !(args[j].size() > 1 && args[j][0] == '-' && !IsNumber(args[j])); };
    std::vector<std::string> values;
    if (has_value) {
      values.push_back(value);
    } else if (flag->takes == Takes::kValue) {
      if (!next_is_value(i + 1)) throw Error(std::string(tok) + ": expects a value (in the pasted server command line)");
      values.push_back(args[++i]);
    } else if (flag->takes == Takes::kList) {
      while (next_is_value(i + 1)) values.push_back(args[++i]);
      if (values.empty()) throw Error(std::string(tok) + ": expects at least one value (in the pasted server command line)");
    } else if (flag->takes == Takes::kSwitch && i + 1 < args.size() && !(*origins_)[i + 1].empty() && next_is_value(i + 1)) {
      // vLLM's reader writes `KEY: 1` (or "true", a list) as --KEY 1: a switch takes no value, and argparse
      // refuses the stray word (unrecognized arguments).
      throw Error("a switch takes true or false; vLLM's config reader passes --" + name.substr(2) + " " + args[i + 1] +
                  ", and argparse refuses the stray '" + args[i + 1] + "' (unrecognized arguments)");
    } else if (flag->takes == Takes::kOptionalValue || (flag->takes == Takes::kSwitch && i + 1 < args.size() && IsBoolWord(args[i + 1]))) {
      if (next_is_value(i + 1)) values.push_back(args[++i]);
    }
    if (!sglang_ && values.size() == 1)
      if (const ServeFlagValue* v = FindServeFlagValue(*flag, values[0])) values[0] = PlannedValue(canonical, *v);
    Record(*flag, canonical, negated, json_key, values, tok);
    return i;
  }

  static bool IsOffloadingConnector(const nlohmann::json& config) {
    if (!config.is_object() || !config.contains("kv_connector") || !config["kv_connector"].is_string()) return false;
    const std::string c = config["kv_connector"].get<std::string>();
    return c == "OffloadingConnector" || c == "LMCacheConnectorV1";
  }

  static bool IsNumber(const std::string& s) {
    return s.size() > 1 && s[0] == '-' && (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.');
  }

  void Record(const ServeFlag& f, const std::string& canonical, bool negated, const std::string& json_key,
              const std::vector<std::string>& values, const std::string& as_given) {
    if (canonical == "--prefill-context-parallel-size") return ContextParallel(f, values);
    if (const char* key = SpeculativeKeyOf(canonical)) {
      std::string why;
      std::optional<nlohmann::json> v = ParseJsonText(values[0], &why);
      if (!json_flags_.SetDotted("--speculative-config", key, v ? std::move(*v) : nlohmann::json(values[0]), as_given))
        Note(result_.replaced_by_later, as_given.substr(0, as_given.find('=')));
      return;
    }
    if (f.effect == Effect::kNoEffect) return Note(result_.accepted_no_effect, canonical);
    if (f.effect == Effect::kNotModelled) return Note(result_.not_modelled, canonical);
    if (!json_key.empty()) {
      if (!IsJsonFlag(canonical) || values.size() != 1) throw Error(as_given + ": only JSON-valued flags take .key spellings");
      std::string why;
      std::optional<nlohmann::json> v = json_key.back() == '+' ? std::nullopt : ParseJsonText(values[0], &why);
      if (!json_flags_.SetDotted(f.kvsim, json_key, v ? std::move(*v) : nlohmann::json(values[0]), as_given))
        Note(result_.replaced_by_later, as_given.substr(0, as_given.find('=')));
      return;
    }
    if (IsJsonFlag(canonical) && values.size() == 1) {
      std::string why;
      std::optional<nlohmann::json> v = ParseJsonText(values[0], &why);
      if (v && v->is_object()) {
        if (canonical == "--kv-transfer-config" && !IsOffloadingConnector(*v)) return Note(result_.not_modelled, canonical);
        if (!json_flags_.SetWhole(f.kvsim, std::move(*v), as_given)) Note(result_.replaced_by_later, f.kvsim);
        return;
      }
    }
    if (f.takes == Takes::kSwitch) {
      const bool off = negated || (!values.empty() && (values[0] == "False" || values[0] == "false" || values[0] == "0"));
      const std::string target = off ? f.kvsim_negated : f.kvsim;
      if (!target.empty() && std::find(result_.kvsim_args.begin(), result_.kvsim_args.end(), target) == result_.kvsim_args.end())
        result_.kvsim_args.push_back(target);
      return;
    }
    if (canonical == "--model" || canonical == "--model-path") return SetModel(values[0]);
    // vLLM's --block-size takes the sizes of CacheConfig's BlockSize (vllm/config/cache.py); argparse
    // refuses any other. (SGLang's --page-size takes any.)
    if (canonical == "--block-size" && !sglang_ && values.size() == 1 && values[0] != "1" && values[0] != "8" &&
        values[0] != "16" && values[0] != "32" && values[0] != "64" && values[0] != "128" && values[0] != "256")
      throw Error("--block-size " + values[0] + ": vLLM's --block-size is one of 1, 8, 16, 32, 64, 128, 256 (CacheConfig's "
                  "BlockSize); argparse refuses any other");
    // The offloading connectors are KV tiers kvsim models; a connector between prefill and decode
    // instances is modelled by --prefill-replicas/--decode-replicas, not by one server's flags.
    if (canonical == "--kv-transfer-config") {
      std::string why;
      const std::optional<nlohmann::json> j = ParseJsonText(values[0], &why);
      if (!j || !j->is_object())  // KVTransferConfig is built from a JSON object; vLLM refuses anything else
        throw Error(canonical + ": '" + values[0] + "' is not a JSON object" + (j ? "" : " (" + why + ")"));
      if (!j || !IsOffloadingConnector(*j)) return Note(result_.not_modelled, canonical);
    }
    // A backend whose transport kvsim does not time: said, and the release's default timed instead.
    if (canonical == "--all2all-backend" && IsUnmodelledAll2AllBackend(values[0]))
      return Note(result_.not_modelled, canonical + " " + values[0]);
    if (f.takes == Takes::kList) return Emit(f.kvsim, Join(values, ","));
    if (canonical == "--limit-mm-per-prompt" && !values[0].empty() && values[0][0] != '{')
      return Emit(f.kvsim, LimitsAsJson(values[0], as_given));
    Emit(f.kvsim, sglang_ ? values[0] : AsVllmParsesIt(canonical, values[0]));
  }

  // Prefill context parallelism (-pcp, ParallelConfig.prefill_context_parallel_size) interleaves each
  // request's KV cache across its ranks (--cp-kv-cache-interleave-size), as decode context parallelism
  // does over the TP ranks, but on GPUs of its own. Not modelled: a size above 1 is refused rather than
  // answered that many times too small.
  void ContextParallel(const ServeFlag& f, const std::vector<std::string>& values) {
    const std::string& v = values.empty() ? std::string() : values[0];
    if (v == "1") return Note(result_.accepted_no_effect, f.name);
    const std::string name = f.name, alias = f.alias;
    throw Error(name + " (" + alias + ") " + v + ": prefill context parallelism is not modelled: vLLM splits each "
                "request's KV cache across the " + v + " context-parallel ranks, so a GPU holds " + v +
                " times the tokens kvsim would count; plan without it (or with " + alias + " 1)");
  }

  // --spec-method, --spec-model and --spec-tokens are shorthands for keys of --speculative-config
  // (EngineArgs.spec_method/spec_model/spec_tokens, read into SpeculativeConfig).
  static const char* SpeculativeKeyOf(const std::string& canonical) {
    if (canonical == "--spec-method") return "method";
    if (canonical == "--spec-model") return "model";
    if (canonical == "--spec-tokens") return "num_speculative_tokens";
    return nullptr;
  }

  void EmitJsonFlags() {
    for (auto& [flag, value] : json_flags_.Merged()) {
      if (flag == "--kv-transfer-config" && !IsOffloadingConnector(value)) Note(result_.not_modelled, flag);
      else Emit(flag, ServeJsonText(value));
    }
  }

  // --kv-offloading-size builds the offloading connector itself; an OffloadingConnector (or LMCache)
  // --kv-transfer-config sizes the same tier its own way. kvsim would keep one and drop the other, so
  // the pair is refused, naming both.
  void RefuseTwoSizesOfTheOffloadTier() const {
    const auto& a = result_.kvsim_args;
    if (std::find(a.begin(), a.end(), "--kv-offloading-size") != a.end() &&
        std::find(a.begin(), a.end(), "--kv-transfer-config") != a.end())
      throw Error("--kv-offloading-size and --kv-transfer-config (an offloading connector) both size the KV tier below "
                  "the GPU: give one");
  }

  // Releases before the JSON form took "image=16,video=2".
  static std::string LimitsAsJson(const std::string& text, const std::string& as_given) {
    nlohmann::json j = nlohmann::json::object();
    size_t start = 0;
    while (start <= text.size()) {
      const size_t comma = std::min(text.find(',', start), text.size());
      const std::string item = text.substr(start, comma - start);
      const size_t eq = item.find('=');
      int64_t count = -1;
      if (eq != std::string::npos && eq > 0) {
        try {
          size_t used = 0;
          count = std::stoll(item.substr(eq + 1), &used);
          if (used != item.size() - eq - 1) count = -1;
        } catch (const std::exception&) {
          count = -1;
        }
      }
      if (count < 0) throw Error(as_given + ": '" + text + "' is neither JSON nor MODALITY=COUNT,... (e.g. image=4,video=1)");
      j[item.substr(0, eq)] = count;
      start = comma + 1;
    }
    return ServeJsonText(j);
  }

  // A flag given twice keeps its last value, as argparse does.
  void Emit(const std::string& kvsim, const std::string& value) {
    for (size_t i = 0; i + 1 < result_.kvsim_args.size(); ++i)
      if (result_.kvsim_args[i] == kvsim && kvsim != "--model") {
        if (result_.kvsim_args[i + 1] != value) Note(result_.replaced_by_later, kvsim);
        result_.kvsim_args[i + 1] = value;
        return;
      }
    result_.kvsim_args.push_back(kvsim);
    result_.kvsim_args.push_back(value);
  }

  size_t Positional(const std::string& tok, size_t i) {
    if (tok == "\\" || tok.empty()) return i;
    // The model comes from the line or from a `model:` key, never from a value the file left over
    // (`max-model-len: [1, 2]` is --max-model-len 1 2, and argparse refuses the 2).
    if (!(*origins_)[i].empty())
      throw Error("'" + tok + "' is left over after the key's flag and its value: argparse refuses it (unrecognized arguments)");
    // A flag whose dashes a word processor turned into an en or em dash (–max-model-len) is a stray word to argparse.
    for (const char* dash : {"\u2013", "\u2014", "\u2212", "\uff0d"})
      if (StartsWith(tok, dash))
        throw Error("'" + tok + "' starts with a typographic dash, not --: the line was copied from text that replaced the "
                    "dashes, and vLLM's argparse refuses the word (unrecognized arguments); type the flag with --");
    if (!sglang_) {
      // vllm serve takes one positional, the model; argparse refuses a second word (a value given to a
      // flag that takes none, or a stray word) as unrecognized, not as a second model.
      if (model_positional_)
        throw Error("'" + tok + "': vllm serve takes one positional argument, the model ('" + model_ +
                    "'); argparse refuses another (unrecognized arguments)");
      SetModel(tok);
      model_positional_ = true;
      return i;
    }
    throw Error("'" + tok + "': SGLang's launch_server takes no positional arguments (give --model-path)");
  }

  void SetModel(const std::string& model) {
    // `vllm serve $MODEL` with MODEL set outside the pasted text: its value is the user's environment's.
    if (StartsWith(model, "$"))
      throw Error("the model '" + model + "' is a shell variable the pasted text does not set: put the model there "
                  "(or NAME=value before the command)");
    if (!model_.empty() && model_ != model)
      throw Error("the pasted server command line names two models: '" + model_ + "' and '" + model + "'");
    if (model_.empty()) Emit("--model", model);
    model_ = model;
  }

  std::string UnknownFlagMessage(const std::string& tok) const {
    std::string hint;
    for (const auto& m : ClosestMatches(Dashed(tok), ServeFlagNames(sglang_))) hint += (hint.empty() ? "" : ", ") + m;
    const std::string message = "'" + tok + "' is not a flag of " + (sglang_ ? "sglang.launch_server" : "vllm serve") +
                                (hint.empty() ? std::string() : " (did you mean " + hint + "?)");
    if (sglang_) return message;
    // A flag of a vLLM newer than kvsim's table is not a typo: say which release the table is.
    return message + "; kvsim's table of its flags is vLLM " + NewestServeFlagTableRelease() +
           "'s, the newest release it models, so a flag added later is not known to it";
  }

  // A flag vLLM's notes date after the table's release: vLLM of that release takes it, so it is no typo,
  // but what else the release changed in the parser is not known here.
  static std::string NewerReleaseFlagMessage(const ServeFlag& flag) {
    const std::string table = NewestServeFlagTableRelease();
    return std::string(flag.name) + " is a flag of vLLM 0." + std::to_string(flag.releases.first_min) +
           "'s vllm serve, newer than kvsim's table of its flags (vLLM " + table +
           "'s, the newest release kvsim models), which kvsim does not model: plan the line without it";
  }

  // What kvsim plans a vLLM value of `canonical` as (ServeFlagValue), with the same release notes as a flag's.
  std::string PlannedValue(const std::string& canonical, const ServeFlagValue& v) {
    const std::string given = canonical + " " + v.value;
    if (v.releases.first_min > kNewestModelledVllmMinor)
      throw Error(given + ": a value of vLLM 0." + std::to_string(v.releases.first_min) +
                  "'s vllm serve, newer than kvsim's table of its flags (vLLM " + NewestServeFlagTableRelease() +
                  "'s, the newest release kvsim models), which kvsim does not model: plan the line without it");
    ServeFlag as_flag{given.c_str(), "", Takes::kValue, Effect::kModelled};
    as_flag.releases = v.releases;
    if (const std::string note = FlagReleaseNote(as_flag, modelled_.minor, modelled_.text); !note.empty())
      Note(result_.notes, note);
    if (!*v.kvsim_value) throw Error(given + ": a value vLLM takes, which kvsim does not model");
    if (*v.caveat) Note(result_.not_modelled, v.caveat);
    return v.kvsim_value;
  }

  // `vllm serve MODEL --omni` is vLLM-Omni's entry point (its CLI adds --omni, --deploy-config and
  // --stage-configs-path to vllm serve; docs.vllm.ai/projects/vllm-omni/en/stable/cli/): the model runs as
  // a pipeline of stages, each its own engine with its own memory share (thinker, talker, vocoder).
  static void RefuseVllmOmni(const std::vector<std::string>& args) {
    for (const std::string& a : args)
      if (a == "--omni")
        throw Error("--omni: the model would run as vLLM-Omni's pipeline of stages (each stage its own engine, "
                    "sized by the stage deploy config), which kvsim does not model");
  }

  bool sglang_;
  VllmVersion modelled_;
  const std::vector<std::string>* origins_ = nullptr;  // per token of Run's args: the --config file's key, or ""
  ServeCommandLine result_;
  std::string model_;
  bool model_positional_ = false;  // model_ came from the positional model_tag
  ServeJsonFlags json_flags_;  // the JSON-valued flags, whole and dotted, by kvsim flag
};



}  // namespace

ServeCommandLine TranslateServeCommand(const std::vector<std::string>& tokens, const VllmVersion& modelled) {
  std::vector<std::string> clean;
  for (const auto& t : tokens)
    if (t != "\\" && t != "\\\n" && !t.empty()) clean.push_back(t);
  const ServerLaunch launch = FindServerLaunch(clean);
  ServeCommandLine cmd = Translator(launch.sglang, modelled).Run(launch.args);
  if (!launch.shell_tail.empty())
    Note(cmd.notes, "`" + launch.shell_tail + "` in the server command is the shell's, not the server's");
  // The server's environment (VAR=value before the command, a container's -e): what it does, or that kvsim
  // does not model it.
  for (const std::string& assignment : launch.environment) ReadServerEnvironment(assignment, cmd);
  // The image's tag names the release it runs; the plan models --vllm-version's (default the newest).
  if (launch.image_minor > 0 && launch.image_minor != modelled.minor) {
    const std::string runs = "image " + launch.image + " runs vLLM 0." + std::to_string(launch.image_minor);
    cmd.notes.push_back(launch.image_minor > kNewestModelledVllmMinor
                            ? runs + ", newer than the newest release kvsim models; this plan models " + modelled.text
                            : runs + "; this plan models " + modelled.text + " (--vllm-version 0." +
                                  std::to_string(launch.image_minor) + " plans the image's release)");
  }
  KeepLastOfEachSetting(cmd.kvsim_args, cmd.replaced_by_later);
  return cmd;
}

}  // namespace kvsim
