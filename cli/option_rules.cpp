#include "cli/option_rules.h"

#include <optional>

#include "kvcache/base/error.h"
#include "sim/run/replay_options.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

// Two options that cannot both be given: one makes the other meaningless or says the opposite.
struct ExclusiveOptions {
  const char* a;
  const char* b;
  const char* why;
};

// `option` means something only when `other` holds `value` (nullptr: only when `other` is given).
struct DependentOption {
  const char* option;
  const char* other;
  const char* value;
  const char* why;
};

constexpr const char* kOnAndOff = "one turns the setting on, the other off";
constexpr const char* kTraceReading = "it tells how to read a trace file; --synthetic generates the requests instead";
constexpr const char* kFixedStep = "a fixed step time replaces the per-operator step model this option tunes";

constexpr ExclusiveOptions kExclusive[] = {
    {"enable-prefix-caching", "no-enable-prefix-caching", kOnAndOff},
    {"enable-chunked-prefill", "no-enable-chunked-prefill", kOnAndOff},
    {"async-scheduling", "no-async-scheduling", kOnAndOff},
    {"synthetic", "trace", "give one workload (a generated one, or the trace file)"},
    {"synthetic", "trace-format", kTraceReading},
    {"synthetic", "delimiter", kTraceReading},
    {"synthetic", "model-filter", kTraceReading},
    {"synthetic", "arrival-column", kTraceReading},
    {"synthetic", "prompt-column", kTraceReading},
    {"synthetic", "output-column", kTraceReading},
    {"synthetic", "time-unit", kTraceReading},
    {"synthetic", "skip-bad-rows", kTraceReading},
    {"step-time-ms", "calibration", kFixedStep},
    {"step-time-ms", "compute-efficiency", kFixedStep},
    {"step-time-ms", "memory-efficiency", kFixedStep},
    {"step-time-ms", "step-overhead-ms", kFixedStep},
    {"adapters", "adapter-column", "the trace names each request's adapter, or --adapters draws them; not both"},
    {"find", "micro-batch-size", "the search sets the micro-batch size (kvsim train), so a given one would be ignored"},
};

constexpr DependentOption kDependent[] = {
    {"cv", "arrival", "gamma", "the coefficient of variation shapes gamma gaps; Poisson gaps have a CV of 1"},
    {"reservation", "allocator", "contiguous", "it sizes a contiguous allocation; paged blocks are allocated as tokens arrive"},
    {"placement", "allocator", "contiguous", "it places a contiguous allocation; paged blocks need no placement"},
    {"no-async-scheduling", "scheduler", "vllm", "the V0 scheduler has no asynchronous scheduling to turn off"},
    {"async-scheduling", "scheduler", "vllm", "the V0 scheduler has no asynchronous scheduling"},
    {"scheduler-recv-interval", "engine", "sglang", "it is SGLang's; vLLM's scheduler takes in new requests every step"},
    {"sample-interval", "timeseries", nullptr, "it spaces the rows of the --timeseries file"},
    {"adapters", "enable-lora", nullptr, "without --enable-lora vLLM serves only the base model"},
    {"adapter-column", "enable-lora", nullptr, "without --enable-lora vLLM serves only the base model"},
    {"adapter-disk-read", "enable-lora", nullptr, "it times LoRA adapter loads"},
    {"adapter-popularity", "adapters", nullptr, "it shapes how --adapters are drawn"},
};

bool Given(const po::variables_map& vm, const char* name) {
  auto it = vm.find(name);
  if (it == vm.end() || it->second.empty() || it->second.defaulted()) return false;
  // A switch (bool_switch) is in the map whether or not it was typed; typed, it is true.
  if (const bool* on = boost::any_cast<bool>(&it->second.value())) return *on;
  return true;
}

// The option's value as the command line spells it, for the options rules depend on.
std::optional<std::string> ValueText(const po::variables_map& vm, const char* name) {
  auto it = vm.find(name);
  if (it == vm.end() || it->second.empty()) return std::nullopt;
  const boost::any& v = it->second.value();
  if (const auto* s = boost::any_cast<std::string>(&v)) return *s;
  if (const auto* a = boost::any_cast<ArrivalKind>(&v)) return std::string(NameOf(*a));
  if (const auto* a = boost::any_cast<AllocatorKind>(&v)) return std::string(NameOf(*a));
  if (const auto* s = boost::any_cast<SchedulerKind>(&v)) return std::string(NameOf(*s));
  return std::nullopt;
}

}  // namespace

void CheckOptionRules(const po::variables_map& vm) {
  for (const ExclusiveOptions& r : kExclusive)
    if (Given(vm, r.a) && Given(vm, r.b))
      throw Error(std::string("--") + r.a + " and --" + r.b + " cannot be given together: " + r.why);
  for (const DependentOption& r : kDependent) {
    if (!Given(vm, r.option)) continue;
    if (r.value == nullptr) {
      if (!Given(vm, r.other))
        throw Error(std::string("--") + r.option + " needs --" + r.other + ": " + r.why);
      continue;
    }
    const std::optional<std::string> value = ValueText(vm, r.other);
    if (value && *value != r.value)
      throw Error(std::string("--") + r.option + " applies only with --" + r.other + " " + r.value + " (here --" +
                  r.other + " " + *value + "): " + r.why);
  }
}

std::string SettingOfFlag(const std::string& flag) {
  if (flag.rfind("--no-", 0) == 0) return "--" + flag.substr(5);
  return flag;
}

void RejectPositionalArguments(const boost::program_options::parsed_options& parsed) {
  for (const auto& opt : parsed.options) {
    if (opt.position_key < 0) continue;
    const std::string word = opt.value.empty() ? std::string() : opt.value.front();
    throw Error("unexpected argument '" + word + "': options only; to paste a server command line put it after `--` "
                "(kvsim capacity -- vllm serve MODEL [flags]) or in --vllm-cmd \"...\"");
  }
}

}  // namespace kvsim
