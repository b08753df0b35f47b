// kvsim plan: the cheapest deployment that meets the SLOs, searched over GPU types, parallelism,
// weight formats, KV dtypes and batch settings, each configuration at its fewest replicas, printed
// as the `vllm serve` lines to launch.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"
#include "cli/output.h"
#include "cli/progress_bar.h"
#include "cli/shared_flags.h"
#include "cli/variant_parser.h"
#include "kvcache/base/check.h"
#include "kvcache/base/error.h"
#include "kvcache/base/interrupt.h"
#include "kvcache/base/quantity_parse.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/numeric_format.h"
#include "kvcache/model/quantization.h"
#include "reports/plan_report.h"
#include "sim/plan/plan_answer.h"
#include "sim/plan/plan_ranks.h"
#include "sim/plan/serve_line.h"
#include "sim/run/request_sources.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

struct PlanFlags {
  std::string gpus = kDefaultGpu, tp = "1,2,4,8", pp = "1", formats = kCheckpointFormat, kv_dtypes = "auto";
  std::string max_num_seqs = "64,256", max_num_batched_tokens = "2048,8192", pd_ratios;
  std::string objective = "cost", slo, json_path, csv_path, report_path;
  double max_preemption_rate = -1;
  int64_t max_replicas = 16, max_gpus = 0;
  bool exhaustive = false, robust = false;
  int jobs = DefaultJobs();
};

std::vector<std::string> SplitList(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    std::string piece = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (piece.empty()) throw Error("--" + option + ": '" + text + "' has an empty item (a comma-separated list)");
    for (const std::string& seen : out)
      if (seen == piece) throw Error("--" + option + ": '" + piece + "' is listed twice");
    out.push_back(piece);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::vector<int64_t> SplitCounts(const std::string& text, const std::string& option, int64_t most) {
  std::vector<int64_t> out;
  for (const std::string& piece : SplitList(text, option)) {
    const int64_t v = ParseTokenCount(piece, "--" + option);
    if (v < 1 || v > most) throw Error("--" + option + ": '" + piece + "' must be in [1, " + std::to_string(most) + "]");
    out.push_back(v);
  }
  return out;
}

// The shared command line may not set what the plan's axes set: that would be silently overridden.
void RefuseAxisOptions(const std::vector<std::string>& base) {
  struct Taken {
    const char* option;
    const char* instead;
  };
  static constexpr Taken kTaken[] = {
      {"--gpu", "--gpus"}, {"--tensor-parallel-size", "--tp"}, {"-tp", "--tp"}, {"--pipeline-parallel-size", "--pp"},
      {"-pp", "--pp"}, {"--quantization", "--formats"}, {"-q", "--formats"}, {"--kv-cache-dtype", "--kv-cache-dtypes"},
      {"--replicas", "--max-replicas (the plan searches the replicas)"},
      {"--prefill-replicas", "--pd-ratios (the plan searches the P:D units)"},
      {"--decode-replicas", "--pd-ratios (the plan searches the P:D units)"},
      {"--decode-gpu", "nothing: a planned P/D decode pool runs the prefill pool's GPU"},
      {"--decode-tp", "nothing: a planned P/D decode pool runs the prefill pool's TP (from --tp)"},
      {"--decode-max-num-seqs", "nothing: a planned P/D decode pool runs the prefill pool's --max-num-seqs"},
      {"--decode-max-num-batched-tokens", "nothing: a planned P/D decode pool runs the prefill pool's --max-num-batched-tokens"}};
  for (const std::string& arg : base)
    for (const Taken& t : kTaken) {
      const std::string o = t.option;
      if (arg == o || StartsWith(arg, o + "="))
        throw Error(o + ": the plan's axes set it; use " + t.instead);
    }
}

PlanAxes ParseAxes(const PlanFlags& f) {
  PlanAxes a;
  a.gpus = SplitList(f.gpus, "gpus");
  a.tensor_parallel.clear();
  for (int64_t v : SplitCounts(f.tp, "tp", 64)) a.tensor_parallel.push_back(static_cast<int>(v));
  a.pipeline_parallel.clear();
  for (int64_t v : SplitCounts(f.pp, "pp", 64)) a.pipeline_parallel.push_back(static_cast<int>(v));
  a.formats = SplitList(f.formats, "formats");
  // A name vLLM does not know is a typo to refuse, not a configuration that "does not start".
  for (const std::string& format : a.formats) {
    if (format == kCheckpointFormat) continue;
    try {
      ParseQuantizationFlag(format, QuantizationSpec{});
    } catch (const Error& e) {
      throw Error(std::string("--formats: ") + e.what());
    }
  }
  a.kv_cache_dtypes = SplitList(f.kv_dtypes, "kv-cache-dtypes");
  for (const std::string& kv : a.kv_cache_dtypes)
    if (kv != "auto" && kv != "fp8_ds_mla" && !ParseNumericFormat(kv))
      throw Error("--kv-cache-dtypes: '" + kv + "' is not a --kv-cache-dtype value (kvsim capacity --help lists them)");
  a.max_num_seqs = SplitCounts(f.max_num_seqs, "max-num-seqs", 1 << 20);
  a.max_num_batched_tokens = SplitCounts(f.max_num_batched_tokens, "max-num-batched-tokens", 1 << 24);
  if (!f.pd_ratios.empty())
    for (const std::string& piece : SplitList(f.pd_ratios, "pd-ratios")) {
      const size_t colon = piece.find(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == piece.size() || piece.find(':', colon + 1) != std::string::npos)
        throw Error("--pd-ratios: '" + piece + "' is not P:D (prefill:decode instances, e.g. 1:2)");
      PdRatio r;
      r.prefill = ParseTokenCount(piece.substr(0, colon), "--pd-ratios prefill");
      r.decode = ParseTokenCount(piece.substr(colon + 1), "--pd-ratios decode");
      if (r.prefill < 1 || r.prefill > 64 || r.decode < 1 || r.decode > 64)
        throw Error("--pd-ratios: '" + piece + "': P and D must be in [1, 64]");
      for (const PdRatio& seen : a.pd_ratios)
        if (seen == r) throw Error("--pd-ratios: '" + piece + "' is listed twice");
      a.pd_ratios.push_back(r);
    }
  return a;
}

// A replay error that every searched configuration met alike is a fault of the shared input, not an
// answer: it is refused as `kvsim replay` refuses it, rather than printed as "no configuration meets
// the SLOs". (What can be checked without a replay, such as --kv-offload on a trace without prefix
// keys, is refused before the search, when the variants are parsed.)
void RefuseSharedFailure(const PlanResult& result) {
  if (result.winner >= 0) return;
  std::string shared;
  for (const ConfigPlan& p : result.plans) {
    if (p.replays == 0) continue;
    if (p.outcome.error.empty() || (!shared.empty() && p.outcome.error != shared)) return;
    shared = p.outcome.error;
  }
  if (!shared.empty()) throw Error("every configuration's replay failed alike: " + shared);
}

}  // namespace

int RunPlanCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  PlanFlags f;
  po::options_description own(
      "kvsim plan: the cheapest deployment that meets the SLOs at the trace's rate. Every configuration of the\n"
      "space (GPU x TP x PP x weight format x KV dtype x max-num-seqs x max-num-batched-tokens, aggregated and,\n"
      "with --pd-ratios, prefill/decode splits) is sized by the capacity planner, then its fewest replicas (P:D\n"
      "units) meeting the SLOs are searched by replaying the trace; the winner and the Pareto front are printed\n"
      "with the `vllm serve` lines to launch. Every other option is a kvsim replay option shared by all\n"
      "configurations (--model, --trace, --synthetic, --rate, ...).\n\n"
      "Usage: kvsim plan --slo ttft-p99=2s,tpot-p99=100ms --gpus h100,l40s --gpu-hourly-cost h100=2.5,l40s=0.9 [replay options]\n\n"
      "Plan options",
      110, 60);
  own.add_options()("help,h", "show this help")
      ("gpus", po::value(&f.gpus)->default_value(f.gpus), "GPU types, comma-separated (kvsim gpus lists them)")
      ("tp", po::value(&f.tp)->default_value(f.tp), "tensor-parallel sizes (one that does not divide the heads is skipped with the reason)")
      ("pp", po::value(&f.pp)->default_value(f.pp), "pipeline-parallel sizes")
      ("formats", po::value(&f.formats)->default_value(f.formats), "weight formats: checkpoint (the model's own) and --quantization values (fp8, awq, gptq, ...)")
      ("kv-cache-dtypes", po::value(&f.kv_dtypes)->default_value(f.kv_dtypes), "KV-cache dtypes (auto, fp8, ...)")
      ("max-num-seqs", po::value(&f.max_num_seqs)->default_value(f.max_num_seqs), "batch caps")
      ("max-num-batched-tokens", po::value(&f.max_num_batched_tokens)->default_value(f.max_num_batched_tokens), "token budgets per step")
      ("pd-ratios", po::value(&f.pd_ratios),
       "prefill/decode splits P:D, comma-separated (1:1,1:2,2:1): each adds a P/D configuration next to every aggregated "
       "one, searched in units of P prefill + D decode instances; the decode pool runs the prefill pool's GPU, TP, PP, "
       "format and batch settings; the KV link is --kv-link")
      ("slo", po::value(&f.slo), "constraints METRIC-QUANTILE=LIMIT, comma-separated: ttft-p99=2s,tpot-p99=100ms (as kvsim sweep)")
      ("max-preemption-rate", po::value(&f.max_preemption_rate), "constraint: preemptions per finished request")
      ("objective", po::value(&f.objective)->default_value(f.objective), "cost (lowest price; needs --gpu-hourly-cost) | gpus (fewest) | latency (lowest latency of the first SLO)")
      ("max-replicas", po::value(&f.max_replicas)->default_value(f.max_replicas), "the most replicas of one configuration (at most 256)")
      ("max-gpus", po::value(&f.max_gpus)->default_value(f.max_gpus), "the most GPUs of the whole fleet (0: no limit)")
      ("exhaustive", po::bool_switch(&f.exhaustive), "replay every replica count of every configuration (checks the pruned search)")
      ("robust", po::bool_switch(&f.robust), "judge the SLOs at the pessimistic edge of kvsim's measured error bands");
  AddJobsOption(own, f.jobs);
  OutputFlags outputs(own);
  outputs.Json(f.json_path, "write the plan (every configuration) to FILE.json")
      .File("csv", f.csv_path, "write one row per configuration to FILE.csv", /*dash_is_stdout=*/true)
      .File("report", f.report_path, "write an HTML page with the Pareto chart", /*dash_is_stdout=*/true);
  po::variables_map vm;
  // No guessing from prefixes: the replay's --gpu must reach RefuseAxisOptions, not become --gpus.
  po::parsed_options parsed = po::command_line_parser(args)
                                  .options(own)
                                  .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
                                  .allow_unregistered()
                                  .run();
  po::store(parsed, vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  if (vm.count("help")) {
    out << own << "\nExamples:\n"
        << "  kvsim plan --gpus l40s,h100 --formats checkpoint,awq --slo ttft-p99=2s,tpot-p99=100ms --gpu-hourly-cost l40s=0.9,h100=2.5\n"
        << "  kvsim plan --objective gpus --gpus a100-80gb --tp 1,2 --slo tpot-p99=50ms --synthetic 2000 --rate 10\n"
        << "  kvsim plan --gpus h100 --tp 1 --pd-ratios 1:1,1:2 --kv-link nvlink --slo ttft-p99=1s,tpot-p99=50ms --gpu-hourly-cost h100=2.5\n";
    return kExitOk;
  }
  ValidateJobs(f.jobs);
  outputs.Check(args);
  if (f.max_replicas < 1 || f.max_replicas > 256) throw Error("--max-replicas: must be in [1, 256]");
  if (f.max_gpus < 0) throw Error("--max-gpus: must be 0 (no limit) or positive");
  const std::vector<std::string> base = po::collect_unrecognized(parsed.options, po::include_positional);
  // The plan chooses the deployment and prints its vllm serve line; a pasted one was refused by each
  // configuration's parser, which pointed at `--` and --vllm-cmd, the very forms given.
  for (const std::string& a : args)
    if (a == "--" || a == "--vllm-cmd" || StartsWith(a, "--vllm-cmd="))
      throw Error("kvsim plan takes no pasted server command line (" + a + "): it searches the GPUs, TP, weight formats "
                  "and batch settings itself and prints the vllm serve lines to launch; give the model with --model "
                  "and fixed settings as kvsim options (kvsim capacity or replay read a pasted line)");
  RefuseAxisOptions(base);

  PlanSettings settings;
  settings.criteria = ParseCriteria("throughput", f.slo, f.max_preemption_rate);
  const auto objective = TryParseEnum<PlanObjective>(f.objective);
  if (!objective) throw Error("--objective: '" + f.objective + "' is not " + EnumChoices<PlanObjective>(", "));
  settings.objective = *objective;
  settings.max_replicas = f.max_replicas;
  settings.max_gpus = f.max_gpus;
  settings.exhaustive = f.exhaustive;
  settings.jobs = f.jobs;
  const PlanAxes axes = ParseAxes(f);
  if (axes.pd_ratios.empty())
    for (const std::string& arg : base)
      if (arg == "--kv-link" || StartsWith(arg, "--kv-link="))
        throw Error("--kv-link: the prefill -> decode link of P/D configurations; give --pd-ratios too");

  const std::string data_dir = DataDirectory();
  ResolveCache cache;
  // Each GPU and the shared options checked once, so that a typo is an error, not a skipped family.
  Variant probe = ParseVariant("plan", base, {"--gpu", axes.gpus.front()}, data_dir, &cache);
  const bool priced = probe.replay.gpu_hourly_cost > 0 || !probe.replay.gpu_hourly_costs.empty();
  if (settings.objective == PlanObjective::kCost && !priced)
    throw Error("--objective cost: needs --gpu-hourly-cost (USD per GPU-hour, or GPU=USD,...: the GPU table has no prices)");
  for (const std::string& gpu : axes.gpus) {
    const Variant v = ParseVariant("plan", base, {"--gpu", gpu}, data_dir, &cache);
    if (priced) settings.gpu_hourly_usd[v.deployment.gpu.id] = GpuHourlyCost(probe.replay, gpu);
  }

  std::vector<Variant> variants;
  const PlanSpace space = ExpandPlanSpace(
      axes, [&](const PlanConfig& c) { return ParseVariant(c.Label(), base, c.Overrides(), data_dir, &cache); }, &variants);
  // Prices by the id the GPU table resolves each name to.
  for (size_t i = 0; i < space.configs.size(); ++i)
    if (priced) settings.gpu_hourly_usd[space.configs[i].gpu] = GpuHourlyCost(probe.replay, space.configs[i].gpu);

  PlanAnswer answer;
  answer.model = probe.deployment.model.name;
  answer.slo_text = f.slo;
  answer.criteria = settings.criteria;
  answer.objective = settings.objective;
  answer.robust = f.robust;
  answer.exhaustive = f.exhaustive;
  answer.max_replicas = f.max_replicas;
  answer.max_gpus = f.max_gpus;
  answer.axes = axes;
  answer.quantiles = FrontQuantilesOf(settings.criteria);

  const std::string bands_path = data_dir + "/validation/error_bands.csv";
  ErrorBands bands;
  if (std::filesystem::exists(bands_path)) {
    bands = ErrorBands::Read(bands_path);
    answer.bands_source = bands_path;
  } else {
    answer.bands_source = "no table at " + bands_path + ": every band is [1, 1] (the prediction alone)";
  }
  // The regime's load is the running sequences over every instance's slots (a P/D unit has P + D).
  auto regime_of = [&](size_t i, const ReplaySummary& s, int64_t replicas) {
    return RegimeOf(variants[i].deployment, s, replicas * space.configs[i].InstancesPerReplica());
  };
  auto bands_of = [&](size_t i, const ReplaySummary& s, int64_t replicas) {
    return BandsFor(s, regime_of(i, s, replicas), settings.criteria, bands);
  };
  if (f.robust)
    settings.latency_of = [&](size_t i, int64_t replicas, const ReplaySummary& s) {
      const ErrorRegime regime = regime_of(i, s, replicas);
      for (const LatencyBand& b : BandsFor(s, regime, settings.criteria, bands)) return b.pessimistic_s;
      return SloValue(s, SloMetric::kTtft, SloQuantile::kP99) * bands.For(ErrorMetric::kTtft, regime).high;
    };

  std::shared_ptr<const PreloadedTrace> preloaded;
  if (!variants.empty()) {
    preloaded = PreloadTrace(variants.front().replay, &StopFlag());
    for (const Variant& v : variants)
      KVSIM_CHECK(SameTraceInput(v.replay, variants.front().replay), "the plan's axes never touch the trace options");
  }
  const PlanPointEvaluator evaluate = [&](size_t i, int64_t replicas) {
    Variant v = variants[i];
    ScaleVariant(space.configs[i], replicas, v);
    v.label = space.configs[i].Label() + " x" + std::to_string(replicas);
    PointOutcome p = EvaluateOne(v, settings.criteria, preloaded, &StopFlag());
    if (f.robust && p.summary) JudgeAtPessimisticEdge(p, bands_of(i, *p.summary, replicas));
    return p;
  };
  // Under mpirun/srun (two ranks or more) each wave's configurations run across the ranks.
  const std::unique_ptr<RankFarm> farm = JoinMpiJob(f.jobs);
  const bool leader = !farm || farm->leader();
  ProgressBar bar(err, leader && ::isatty(STDERR_FILENO));
  const auto progress = [&](size_t done, size_t total) { bar.Update(static_cast<double>(done) / static_cast<double>(total), -1); };
  if (leader)
    err << "kvsim plan: " << space.configs.size() << " configurations to search (" << space.skipped.size()
        << " do not start) on " << (farm ? std::to_string(farm->size()) + " ranks x " : std::string()) << f.jobs
        << " threads\n";
  if (farm) {
    std::optional<PlanResult> ranked = SearchPlanOnRanks(*farm, space, settings, evaluate, progress);
    if (!ranked) return kExitOk;  // a worker rank: the leader writes the plan
    answer.result = std::move(*ranked);
  } else {
    answer.result = SearchPlan(space, settings, evaluate, progress, &StopFlag());
  }
  bar.Finish();
  RefuseSharedFailure(answer.result);
  answer.space = space;
  answer.front = ParetoFront(answer.result.plans, answer.quantiles);
  answer.bands.resize(space.configs.size());
  for (size_t i = 0; i < space.configs.size(); ++i) {
    const std::optional<DisaggDeployment>& pools = variants[i].disagg;
    answer.serve_lines.push_back(pools ? VllmServeLineWithKvTransfer(pools->prefill) : VllmServeLine(variants[i].deployment));
    answer.decode_serve_lines.push_back(pools ? VllmServeLineWithKvTransfer(pools->decode) : std::string());
    const ConfigPlan& p = answer.result.plans[i];
    if (p.found && p.outcome.summary) answer.bands[i] = bands_of(i, *p.outcome.summary, p.replicas);
  }
  err << "kvsim plan: " << answer.result.replays << " replays of " << answer.result.points << " points\n";
  WriteAnswer(f.json_path, RenderPlanText(answer), [&] { return PlanToJson(answer); }, out);
  if (!f.csv_path.empty()) WriteOutput(f.csv_path, RenderPlanCsv(answer), out);
  if (!f.report_path.empty()) WriteOutput(f.report_path, RenderPlanHtml(answer), out);
  return kExitOk;
}

}  // namespace kvsim
