#include "cli/replay_flags.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "kvcache/base/checked_math.h"
#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"
#include "kvcache/base/text_format.h"
#include "cli/enum_option.h"
#include "workloads/bench_datasets.h"
#include "cli/shared_flags.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

std::string G(double v) { return Format("%g", v); }

// A flag whose absence means the dataset's own default.
template <typename T>
po::typed_value<T>* Optional(std::optional<T>& target) {
  return po::value<T>()->notifier([&target](const T& v) { target = v; });
}

// The datasets of vllm bench serve and inference-perf by name (workloads/bench_datasets.h), with
// vllm bench serve's own flag names.
void AddDatasetOptions(po::options_description& desc, ReplayFlags& f) {
  BenchDatasetOptions& d = f.options.dataset;
  desc.add_options()
      ("dataset-name", Optional(d.name),
       ("with --synthetic N: draw the requests from a benchmark's dataset: " + Choices<BenchDataset>() +
        " (vllm bench serve's random and prefix_repetition, inference-perf's shared_prefix)").c_str())
      ("random-input-len", Optional(d.random_input_len), "random: mean input tokens (default 1024)")
      ("random-output-len", Optional(d.random_output_len), "random: mean output tokens (default 128)")
      ("random-range-ratio", Optional(d.random_range_ratio),
       "random: lengths uniform in [L(1-R), L(1+R)], 0 <= R < 1 (default 0)")
      ("random-prefix-len", Optional(d.random_prefix_len), "random: tokens of one prefix every request shares (default 0)")
      ("prefix-repetition-prefix-len", Optional(d.prefix_repetition_prefix_len), "prefix_repetition: prefix tokens (default 256)")
      ("prefix-repetition-suffix-len", Optional(d.prefix_repetition_suffix_len), "prefix_repetition: suffix tokens (default 256)")
      ("prefix-repetition-num-prefixes", Optional(d.prefix_repetition_num_prefixes), "prefix_repetition: prefixes (default 10)")
      ("prefix-repetition-output-len", Optional(d.prefix_repetition_output_len), "prefix_repetition: output tokens (default 128)")
      ("num-groups", Optional(d.num_groups), "shared_prefix: system prompts (inference-perf num_groups)")
      ("num-prompts-per-group", Optional(d.num_prompts_per_group), "shared_prefix: questions per system prompt")
      ("system-prompt-len", Optional(d.system_prompt_len), "shared_prefix: system prompt tokens")
      ("question-len", Optional(d.question_len), "shared_prefix: question tokens")
      ("shared-prefix-output-len", Optional(d.output_len), "shared_prefix: output tokens (inference-perf output_len)");
}

// "A:B", two numbers and nothing else.
std::pair<double, double> TwoNumbers(const std::string& text, const std::string& option, const std::string& form) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw Error(option + ": '" + text + "' is not " + form);
  try {  // ParseFiniteNumber: the whole text, decimal (std::stod alone also read "0x4" as 4)
    return {ParseFiniteNumber(text.substr(0, colon), option), ParseFiniteNumber(text.substr(colon + 1), option)};
  } catch (const std::exception&) {
    throw Error(option + ": '" + text + "' is not " + form);
  }
}

// --shared-prefix K:LEN and --conversations T:THINK_S (either may be empty). Counts past 2^53 are
// refused rather than converted: a double holds whole numbers exactly only up to there.
constexpr int64_t kMaxOverlayCount = int64_t{1} << 53;
PrefixOverlayOptions ParsePrefixOverlay(const std::string& shared_prefix, const std::string& conversations) {
  PrefixOverlayOptions o;
  if (!shared_prefix.empty()) {
    const auto [k, len] = TwoNumbers(shared_prefix, "--shared-prefix", "K:LEN (e.g. 4:1000: 4 system prompts of 1,000 tokens)");
    if (!(k >= 1 && k == std::floor(k) && len >= 1 && len == std::floor(len)))
      throw Error("--shared-prefix: '" + shared_prefix + "': K and LEN must be whole numbers >= 1");
    o.shared_prompts = RoundToInt64OrThrow(k, 1, kMaxOverlayCount, "--shared-prefix K");
    o.shared_prompt_tokens = RoundToInt64OrThrow(len, 1, kMaxOverlayCount, "--shared-prefix LEN");
  }
  if (!conversations.empty()) {
    const auto [t, think] = TwoNumbers(conversations, "--conversations", "TURNS:THINK_S (e.g. 4:30)");
    if (!(t >= 1 && t == std::floor(t) && think >= 0))
      throw Error("--conversations: '" + conversations + "': TURNS must be a whole number >= 1 and THINK_S >= 0");
    o.turns = RoundToInt64OrThrow(t, 1, kMaxOverlayCount, "--conversations TURNS");
    o.think_s = think;
  }
  return o;
}

// The highest hourly price per GPU accepted: far above any cloud list price, low enough that a cost
// summed over a long replay stays a finite, printable figure.
constexpr double kMaxGpuHourlyUsd = 1e6;

// --gpu-hourly-cost: "USD" for every GPU, or "GPU=USD,GPU=USD" per GPU id (for grids over GPUs).
void ParseGpuHourlyCost(const std::string& text, ReplayOptions& r) {
  auto number = [&](const std::string& v) {
    double x = -1;
    try {
      x = ParseFiniteNumber(v, "--gpu-hourly-cost");  // the whole text, decimal
    } catch (const std::exception&) {
      x = -1;
    }
    // A price of 0 would drop the cost section without a word (a cost needs a positive price) and an
    // infinite one prints "$inf": both are refused, as is any price past a plausible hourly rate.
    if (!(x > 0 && x <= kMaxGpuHourlyUsd))
      throw Error("--gpu-hourly-cost: '" + v + "' is not a USD amount per GPU-hour in (0, " + Format("%g", kMaxGpuHourlyUsd) + "]");
    return x;
  };
  if (text.find('=') == std::string::npos) {
    r.gpu_hourly_cost = number(text);
    return;
  }
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string piece = text.substr(start, comma - start);
    const size_t eq = piece.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--gpu-hourly-cost: '" + piece + "' is not GPU=USD (e.g. h100=3.2)");
    const std::string gpu = piece.substr(0, eq);
    if (r.gpu_hourly_costs.count(gpu))
      throw Error("--gpu-hourly-cost: '" + gpu + "' is priced twice; give each GPU one price");
    r.gpu_hourly_costs[gpu] = number(piece.substr(eq + 1));
    start = comma + 1;
  }
}

void AddTraceOptions(po::options_description& desc, ReplayFlags& f) {
  ReplayOptions& r = f.options;
  desc.add_options()
      ("trace", po::value(&r.trace), "trace file (default: bundled Azure conversation trace)")
      ("trace-format", po::value(&f.trace_format)->default_value(f.trace_format),
       ("auto | " + Choices<TraceFormat>()).c_str())
      ("delimiter", po::value(&f.delimiter)->default_value(f.delimiter),
       "CSV traces: auto (from the header: comma, else tab, semicolon or bar) | , | tab | ; | |")
      ("model-filter", po::value(&r.reader.model_filter), "burstgpt: keep rows of this Model")
      ("skip-bad-rows", po::bool_switch(&r.reader.skip_bad_rows), "count malformed rows as warnings instead of failing")
      ("arrival-column", po::value(&r.reader.arrival_column)->default_value(r.reader.arrival_column), "csv: arrival time column")
      ("prompt-column", po::value(&r.reader.prompt_column)->default_value(r.reader.prompt_column), "csv: prompt tokens column")
      ("output-column", po::value(&r.reader.output_column)->default_value(r.reader.output_column), "csv: output tokens column")
      ("time-unit", po::value(&r.reader.time_unit)->default_value(r.reader.time_unit, NameOf(r.reader.time_unit)),
       ("csv: " + Choices<TimeUnit>()).c_str())
      ("synthetic", po::value(&r.synthetic), "generate N requests instead of reading a trace")
      ("arrival", po::value(&r.arrival)->default_value(r.arrival, NameOf(r.arrival)),
       ("synthetic / lengths arrivals: " + Choices<ArrivalKind>()).c_str())
      ("rate", po::value(&r.rate),
       "synthetic / lengths-file arrival rate, requests/s (a timestamped trace: --rate-scale); with "
       "--max-concurrency the requests are scheduled at this rate, and all at once without it (vllm bench serve's "
       "default --request-rate inf)")
      ("max-concurrency", po::value<int64_t>()->notifier([&r](int64_t n) {
         if (n < 1) throw Error("--max-concurrency: must be a positive number of clients (got " + std::to_string(n) + ")");
         r.max_concurrency = n;
       }),
       "closed-loop load: N clients, each sending its next request when its last one ends (vllm bench serve "
       "--max-concurrency; inference-perf's constant concurrency; genai-perf --concurrency); a request is sent at "
       "the later of its arrival time and a client being free")
      ("cv", po::value(&r.cv)->default_value(r.cv, G(r.cv)), "gamma arrivals: coefficient of variation of the gaps")
      ("prompt-len", po::value(&f.prompt_len),
       ("synthetic prompt lengths: fixed:N | uniform:A:B | lognormal:MEDIAN:SIGMA | empirical:FILE[:COLUMN] (default " +
        r.prompt_len + ")").c_str())
      ("output-len", po::value(&f.output_len), ("synthetic output lengths, same forms (default " + r.output_len + ")").c_str())
      ("seed", po::value(&r.seed)->default_value(r.seed), "seed for every random choice")
      ("max-requests", po::value(&r.window.max_requests), "stop after N requests")
      ("start", po::value(&r.window.start_s), "skip arrivals before this many seconds")
      ("duration", po::value(&r.window.duration_s), "keep this many seconds of arrivals")
      ("rate-scale", po::value(&r.window.rate_scale)->default_value(1.0), "divide arrival times by S (S > 1: more load)")
      ("repeat", po::value(&r.window.repeat)->default_value(1), "tile the trace K times back to back")
      ("shared-prefix", po::value(&f.shared_prefix), "K:LEN: each request starts with one of K system prompts of LEN tokens (uniform)")
      ("conversations", po::value(&f.conversations), "T:THINK_S: each request starts a T-turn conversation, turns THINK_S s apart (exponential)")
      ("adapter-column", po::value(&r.reader.adapter_column),
       "with --enable-lora: the trace column (CSV header, Mooncake key) naming each request's LoRA adapter; an empty cell is the base model")
      ("adapters", po::value(&r.adapters),
       "with --enable-lora: N LoRA adapters, one drawn per request (per conversation) from --seed")
      ("adapter-popularity", po::value(&r.adapter_popularity),
       "with --adapters: uniform | zipf:S (adapter k drawn with probability proportional to 1/k^S; default uniform)");
}

void AddEngineOptions(po::options_description& desc, ReplayFlags& f) {
  ReplayOptions& r = f.options;
  StepModelOptions& t = r.timer;
  desc.add_options()
      ("scheduler", po::value(&r.scheduler)->default_value(r.scheduler, NameOf(r.scheduler)),
       (Choices<SchedulerKind>() + " (vllm: the v1 scheduler)").c_str())
      ("async-scheduling", po::bool_switch()->notifier([&r](bool on) { if (on) r.async_scheduling = true; }),
       "vllm scheduler: the pass for step k+1 runs during step k (vLLM's --async-scheduling; kvsim's default)")
      ("no-async-scheduling", po::bool_switch()->notifier([&r](bool off) { if (off) r.async_scheduling = false; }),
       "vllm scheduler: schedule each step after the previous one ends (vLLM's --no-async-scheduling; by default "
       "the pass for step k+1 runs during step k, so a request arriving in step k starts in step k+2)")
      ("scheduler-recv-interval", po::value(&r.scheduler_recv_interval)->default_value(r.scheduler_recv_interval),
       "--engine sglang, as SGLang's flag (scheduler_recv_skipper.py): during decode the scheduler takes in new "
       "requests once every N steps, and at the step after a prefill (0 or 1: every step; at most 1000, the "
       "prefill's weight in SGLang's counter)")
      ("allocator", po::value(&r.allocator)->default_value(r.allocator, NameOf(r.allocator)), Choices<AllocatorKind>().c_str())
      ("reservation", po::value(&r.reservation)->default_value(r.reservation, NameOf(r.reservation)),
       ("contiguous: " + Choices<Reservation>()).c_str())
      ("placement", po::value(&r.placement)->default_value(r.placement, NameOf(r.placement)),
       ("contiguous: " + Choices<Placement>()).c_str())
      ("step-time-ms", po::value(&t.fixed_step_ms), "fixed step time instead of the per-operator model");
  AddSpecAcceptanceOption(desc, r.spec_acceptance);
  desc.add_options()
      ("adapter-disk-read", po::value(&r.adapter_disk_read_gbps)->default_value(r.adapter_disk_read_gbps, G(r.adapter_disk_read_gbps)),
       "with --enable-lora: GB/s a LoRA checkpoint is read from disk on a host-cache miss (default: a PCIe 4.0 NVMe "
       "drive's sequential read)")
      ("stepping", po::value(&r.stepping)->default_value(r.stepping, NameOf(r.stepping)),
       "event (skip identical decode steps) | token (every request every step)")
      ("exact-quantiles", po::bool_switch(&r.exact_quantiles),
       "latency quantiles from every value kept (memory grows with the trace) instead of the log-bucket "
       "sketch used beyond 4,096 values (within 0.5%)");
  AddStepModelOptions(desc, f.step_model);
  desc.add_options()
      ("replicas", po::value(&r.replicas)->default_value(r.replicas), "independent replicas of the deployment behind a router")
      ("router", po::value(&r.router)->default_value(r.router, NameOf(r.router)),
       ("--replicas > 1: " + Choices<RouterKind>()).c_str())
      ("gpu-hourly-cost", po::value(&f.gpu_hourly_cost),
       "USD per GPU-hour, or GPU=USD,... by GPU id: report GPU-hours, USD per million output tokens, tokens/s per GPU");
}

void AddOutputOptions(po::options_description& desc, ReplayOptions& r, OutputFlags& outputs) {
  outputs.File("timeseries", r.timeseries_path, "write memory/concurrency over time to FILE.csv");
  desc.add_options()
      ("sample-interval", po::value(&r.sample_interval_s)->default_value(0.0), "time series: one row per S seconds (0: every step)");
  outputs.File("requests", r.requests_path, "write one CSV row per request to FILE.csv")
      .File("report", r.report_path, "write a self-contained HTML report with charts to FILE.html");
  desc.add_options()
      ("omit-wall-time", po::bool_switch(&r.omit_wall_time), "write sim.wall_s as 0 so outputs are byte-identical across runs")
      ("quiet", po::bool_switch(&r.quiet), "no console summary or progress");
}

}  // namespace

void AddReplayOptions(po::options_description& desc, ReplayFlags& flags, OutputFlags& outputs) {
  AddTraceOptions(desc, flags);
  AddDatasetOptions(desc, flags);
  AddEngineOptions(desc, flags);
  AddOffloadOptions(desc, flags.offload);
  AddOutputOptions(desc, flags.options, outputs);
}

ReplayOptions ResolveReplayFlags(ReplayFlags flags, const std::string& data_dir) {
  ReplayOptions r = std::move(flags.options);
  // A trace states each request's arrival and lengths: flags that would set them are refused, not ignored.
  const bool trace = r.synthetic == 0;
  for (const auto& [flag, given] : {std::pair<const char*, const std::string&>{"--prompt-len", flags.prompt_len},
                                    std::pair<const char*, const std::string&>{"--output-len", flags.output_len}})
    if (trace && !given.empty())
      throw Error(std::string(flag) + ": sets the lengths of --synthetic requests; a trace gives each request's own");
    else if (r.dataset.name && !given.empty())
      throw Error(std::string(flag) + ": the --dataset-name dataset sets the lengths; give its own length flags");
  if (!flags.prompt_len.empty()) r.prompt_len = flags.prompt_len;
  // vllm bench serve schedules every request at once unless --request-rate is given
  // (vllm/benchmarks/serve.py: request_rate defaults to inf); its clients then pace them.
  if (r.max_concurrency > 0 && r.synthetic > 0 && r.rate == 0) r.rate = std::numeric_limits<double>::infinity();
  if (!flags.output_len.empty()) r.output_len = flags.output_len;
  if (flags.trace_format != "auto") r.trace_format = ParseEnum<TraceFormat>(flags.trace_format, "--trace-format");
  if (flags.delimiter == "tab" || flags.delimiter == "\\t" || flags.delimiter == "\t") r.reader.delimiter = '\t';
  else if (flags.delimiter == "," || flags.delimiter == ";" || flags.delimiter == "|") r.reader.delimiter = flags.delimiter[0];
  else if (flags.delimiter != "auto")
    throw Error("--delimiter: '" + flags.delimiter + "' is not one of auto, ',', tab, ';', '|'");
  ApplyStepModelFlags(flags.step_model, r.timer);
  r.offload = ResolveOffloadFlags(flags.offload);
  if (!flags.gpu_hourly_cost.empty()) ParseGpuHourlyCost(flags.gpu_hourly_cost, r);
  r.prefix_overlay = ParsePrefixOverlay(flags.shared_prefix, flags.conversations);
  ValidateReplayOptions(r, data_dir);
  return r;
}

}  // namespace kvsim
