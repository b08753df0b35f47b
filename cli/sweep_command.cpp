// kvsim sweep: replay a grid of settings (or search one) and pick the best deployment.
#include <boost/program_options.hpp>
#include <csignal>
#include <optional>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/model_catalog.h"
#include "reports/sweep_report.h"
#include "cli/commands.h"
#include "kvcache/base/interrupt.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"
#include "cli/output.h"
#include "cli/shared_flags.h"
#include "cli/variant_parser.h"
#include "sim/sweep/sweep_grid.h"
#include "sim/sweep/sweep_ranks.h"
#include "sim/sweep/sweep_search.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

struct SweepFlags {
  std::vector<std::string> sweeps;
  std::string grid_file, objective = "throughput", slo, csv_path, json_path, find;
  double max_preemption_rate = -1, precision = 0.01;
  int64_t find_max = 1024;
  int jobs = DefaultJobs();
  bool broadcast_trace = false;  // MPI: rank 0 reads the trace and sends it to the other ranks
};

// What a grid or a search leaves to write: nothing on an MPI worker rank (rank 0 writes).
struct SweepRun {
  std::optional<nlohmann::json> report;
  int exit_code = kExitOk;
};

void AddSweepOptions(po::options_description& own, SweepFlags& f, OutputFlags& outputs) {
  own.add_options()("help,h", "show this help")
      ("sweep", po::value(&f.sweeps)->composing(), "OPTION=V1,V2,...: an axis of the grid (repeatable; the first is outermost); a JSON value "
       "keeps its commas: speculative-config={...},{...}")
      ("grid", po::value(&f.grid_file), "JSON file {\"option\": [values], ...} with more axes")
      ("objective", po::value(&f.objective)->default_value(f.objective), "throughput | goodput (requests/s meeting the per-request SLO) | cost (cheapest per output token; needs --gpu-hourly-cost)")
      ("slo", po::value(&f.slo), "constraints METRIC-QUANTILE=LIMIT, comma-separated: ttft-p99=2s,tpot-p99.9=100ms (p50|p90|p99|p99.9|mean); goodput-min=0.95: at least that fraction of requests within the TTFT/TPOT limits")
      ("max-preemption-rate", po::value(&f.max_preemption_rate), "constraint: preemptions per finished request")
      ("find", po::value(&f.find), "max-num-seqs | rate-scale | replicas (the smallest fleet): search instead of a grid; pd-ratio: every "
       "prefill:decode split of --find-max instances")
      ("find-max", po::value(&f.find_max)->default_value(f.find_max), "--find max-num-seqs: the largest cap considered; --find replicas: the most replicas (at most 256); "
       "--find pd-ratio: the instances to split")
      ("precision", po::value(&f.precision)->default_value(f.precision, Format("%g", f.precision)), "--find rate-scale: relative precision");
  AddJobsOption(own, f.jobs);
  own.add_options()("broadcast-trace", po::bool_switch(&f.broadcast_trace),
                    "under mpirun: rank 0 reads the trace and sends it to every rank (node-local disks)");
  outputs.File("csv", f.csv_path, "write one row per point to FILE.csv", /*dash_is_stdout=*/true)
      .Json(f.json_path, "write every point's summary to FILE.json");
}

// "interrupted by SIGINT; 3 points finished, 5 not", or "" when nothing was cut short.
std::string PartialReason(const std::vector<UnfinishedPoint>& unfinished, size_t finished) {
  if (unfinished.empty()) return "";
  return unfinished.front().reason + "; " + std::to_string(finished) + " finished, " + std::to_string(unfinished.size()) +
         " not";
}

// An option the grid or the search sets in every run, also given as a fixed option: the fixed value
// would be dropped without a word.
void RefuseFixedAndVaried(const std::vector<std::string>& varied, const std::vector<std::string>& base, const char* how) {
  for (const std::string& option : varied)
    for (const std::string& arg : base)
      if (arg == "--" + option || arg.rfind("--" + option + "=", 0) == 0)
        throw Error("--" + option + " is given as a fixed option and varied by " + how + "; give it one way");
}

// --objective cost ranks points by USD per output token: a point without a price would be judged
// infeasible one by one and the sweep answered "no point meets the constraints" for want of a flag.
void RefuseUnpricedCost(const SweepCriteria& criteria, const Variant& v) {
  if (criteria.objective != Objective::kCost) return;
  if (v.replay.gpu_hourly_cost > 0 || !v.replay.gpu_hourly_costs.empty()) return;
  throw Error("--objective cost: needs --gpu-hourly-cost (USD per GPU-hour, or GPU=USD,...)" +
              (v.label.empty() ? std::string() : "; point " + v.label + " has no price"));
}

// --find: one knob searched; the probes and the answer.
SweepRun RunSearch(const SweepFlags& f, const SweepCriteria& criteria, const std::vector<std::string>& base,
                   RankFarm* farm, std::ostream& out, std::ostream& err) {
  const std::string data_dir = DataDirectory();
  ResolveCache cache;  // model specs and the GPU table, read once for every probe
  const std::function<Variant(int64_t)> make_cap = [&](int64_t cap) {
    return ParseVariant("max-num-seqs=" + std::to_string(cap), base, {"--max-num-seqs", std::to_string(cap)}, data_dir, &cache);
  };
  const std::function<Variant(double)> make_scale = [&](double s) {
    return ParseVariant("rate-scale=" + Format("%.6g", s), base, {"--rate-scale", Format("%.9g", s)}, data_dir, &cache);
  };
  const std::function<Variant(int64_t)> make_replicas = [&](int64_t n) {
    return ParseVariant("replicas=" + std::to_string(n), base, {"--replicas", std::to_string(n)}, data_dir, &cache);
  };
  std::function<SearchResult(ProbeRounds*)> search;
  std::function<Variant(double)> make_probe;
  if (f.find == "max-num-seqs") {
    if (f.find_max < 1) throw Error("--find-max: must be at least 1");
    search = [&](ProbeRounds* rounds) { return FindLargestBatchCap(make_cap, criteria, f.find_max, &StopFlag(), rounds); };
    make_probe = [&](double v) { return make_cap(static_cast<int64_t>(v)); };
  } else if (f.find == "rate-scale") {
    if (!(f.precision > 0 && f.precision < 1)) throw Error("--precision: must be in (0, 1)");
    search = [&](ProbeRounds* rounds) { return FindHighestRateScale(make_scale, criteria, f.precision, &StopFlag(), rounds); };
    make_probe = make_scale;
  } else if (f.find == "replicas") {
    if (f.find_max < 1) throw Error("--find-max: must be at least 1");
    search = [&](ProbeRounds* rounds) {
      return FindSmallestReplicas(make_replicas, criteria, std::min<int64_t>(f.find_max, 256), &StopFlag(), rounds);
    };
    make_probe = [&](double v) { return make_replicas(static_cast<int64_t>(v)); };
  } else {
    throw Error("--find: '" + f.find + "' is not max-num-seqs, rate-scale, replicas or pd-ratio");
  }
  // The search finds where the limits stop holding: with none, every probe meets them and the answer
  // would be the search's own bound (rate-scale 1024, max-num-seqs = --find-max), not the deployment's.
  if (criteria.slos.empty() && criteria.max_preemption_rate < 0)
    throw Error("--find " + f.find + ": needs a limit to search against: give --slo (or --max-preemption-rate)");
  RefuseUnpricedCost(criteria, make_probe(1));  // the search varies no price: one probe tells
  SearchResult r;
  if (farm) {  // MPI: probes in rounds across the ranks, same answer and probes as the serial search
    std::optional<RankedSearch> ranked;
    try {
      ranked = SearchOnRanks(*farm, f.jobs, make_probe, criteria, f.broadcast_trace,
                             [&](ProbeRounds& rounds) { return search(&rounds); });
    } catch (const RanksStopped& e) {
      err << "kvsim sweep: " << e.what() << "\n";
      return {std::nullopt, 128 + e.signal()};
    }
    if (!ranked) return {};
    r = std::move(ranked->result);
    err << "kvsim sweep: " << r.probes.size() << " probes reported, " << ranked->probes << " run in " << ranked->rounds
        << " rounds of up to " << farm->size() * f.jobs << " (" << farm->size() << " ranks x " << f.jobs << " threads)\n";
  } else {
    r = search(nullptr);
  }
  std::vector<PointOutcome> probes;
  for (const auto& [value, p] : r.probes) probes.push_back(p);
  for (auto& u : r.unfinished) u.reason = StopReason();
  out << RenderPointsTable(probes, "probe") << RenderSearchAnswer(f.find, r, criteria);
  if (!f.csv_path.empty()) WriteOutput(f.csv_path, RenderPointsCsv(probes, PartialReason(r.unfinished, r.probes.size())), out);
  return {SearchToJson(f.find, r)};
}

// The grid's points across MPI ranks; on rank 0, what finished (all of it unless a rank died or
// the job was signalled: then the outputs are marked partial and the lost points named).
SweepRun RunGridOnRanks(RankFarm& farm, const SweepFlags& f, const SweepCriteria& criteria, std::vector<Variant> variants,
                        std::ostream& out, std::ostream& err) {
  if (farm.leader())
    err << "kvsim sweep: " << variants.size() << " points on " << farm.size() << " ranks x " << f.jobs << " threads\n";
  std::optional<RankedGrid> grid = EvaluatePointsOnRanks(farm, std::move(variants), criteria, f.broadcast_trace);
  if (!grid) return {};
  const std::vector<PointOutcome>& results = grid->finished;
  out << RenderPointsTable(results, "point") << RenderBestPoint(results, criteria);
  std::string partial;
  std::vector<UnfinishedPoint> unfinished;
  if (grid->partial) {
    partial = grid->reason + "; points not finished (" + std::to_string(grid->lost.size()) + "): " + Join(grid->lost, "; ");
    err << "kvsim sweep: " << partial << "\n";
    for (const std::string& lost : grid->lost) unfinished.push_back({lost, grid->reason});
  }
  if (!f.csv_path.empty()) WriteOutput(f.csv_path, RenderPointsCsv(results, partial), out);
  return {GridToJson(results, criteria, f.slo, unfinished), grid->partial ? 128 + (grid->signal ? grid->signal : SIGTERM) : kExitOk};
}

SweepRun EvaluateVariants(const SweepFlags& f, const SweepCriteria& criteria, std::vector<Variant> variants, RankFarm* farm,
                          std::ostream& out, std::ostream& err);

// A grid: every point replayed, the best picked.
SweepRun RunGrid(const SweepFlags& f, const SweepCriteria& criteria, const std::vector<std::string>& base, RankFarm* farm,
                 std::ostream& out, std::ostream& err) {
  std::vector<GridAxis> axes;
  for (const auto& s : f.sweeps) axes.push_back(ParseGridAxis(s));
  if (!f.grid_file.empty())
    for (auto& a : ReadGridFile(f.grid_file)) axes.push_back(a);
  std::vector<std::string> varied;
  for (const GridAxis& a : axes) varied.push_back(a.option);
  RefuseFixedAndVaried(varied, base, "--sweep/--grid");
  const std::string data_dir = DataDirectory();
  ResolveCache cache;
  std::vector<Variant> variants;
  for (const GridPoint& p : ExpandGrid(axes)) variants.push_back(ParseVariant(p.label, base, p.overrides, data_dir, &cache));
  return EvaluateVariants(f, criteria, std::move(variants), farm, out, err);
}

// --find pd-ratio: every split of --find-max instances into a prefill and a decode pool (P + D = N,
// each at least 1) replayed, the best under the SLOs and the objective picked. A split is a grid,
// not a search: the SLOs need not be monotone in P (too few prefill instances queue the prompts,
// too few decode instances stretch the steps).
SweepRun RunPdRatio(const SweepFlags& f, const SweepCriteria& criteria, const std::vector<std::string>& base, RankFarm* farm,
                    std::ostream& out, std::ostream& err) {
  if (f.find_max < 2 || f.find_max > 256)
    throw Error("--find pd-ratio: --find-max N is the instances to split (prefill + decode), in [2, 256]");
  const std::string data_dir = DataDirectory();
  ResolveCache cache;
  std::vector<Variant> variants;
  for (int64_t p = 1; p < f.find_max; ++p) {
    const std::string d = std::to_string(f.find_max - p);
    variants.push_back(ParseVariant("prefill:decode=" + std::to_string(p) + ":" + d, base,
                                    {"--prefill-replicas", std::to_string(p), "--decode-replicas", d}, data_dir, &cache));
  }
  return EvaluateVariants(f, criteria, std::move(variants), farm, out, err);
}

SweepRun EvaluateVariants(const SweepFlags& f, const SweepCriteria& criteria, std::vector<Variant> variants, RankFarm* farm,
                          std::ostream& out, std::ostream& err) {
  for (const Variant& v : variants) RefuseUnpricedCost(criteria, v);
  if (farm) return RunGridOnRanks(*farm, f, criteria, std::move(variants), out, err);
  if (variants.size() > 1) err << "kvsim sweep: " << variants.size() << " points on " << f.jobs << " threads\n";
  GridOutcome grid = EvaluateGrid(std::move(variants), criteria, f.jobs, &StopFlag());
  for (auto& u : grid.unfinished) u.reason = StopReason();
  const std::string partial = PartialReason(grid.unfinished, grid.points.size());
  out << RenderPointsTable(grid.points, "point")
      << (grid.partial && grid.points.empty() ? "no point finished before the interruption\n"
                                              : RenderBestPoint(grid.points, criteria));
  if (!partial.empty()) err << "kvsim sweep: " << partial << "; the finished points were written (marked partial)\n";
  if (!f.csv_path.empty()) WriteOutput(f.csv_path, RenderPointsCsv(grid.points, partial), out);
  return {GridToJson(grid.points, criteria, f.slo, grid.unfinished)};
}

}  // namespace

int RunSweepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SweepFlags f;
  po::options_description own(
      "kvsim sweep: replay a grid of settings on one trace and pick the best, or search for the largest\n"
      "max_num_seqs / highest load that meets the SLOs. Every other option is a kvsim replay option\n"
      "shared by all points.\n\n"
      "Usage: kvsim sweep --sweep OPTION=V1,V2,... [--sweep ...] [--slo ttft-p99=2s,...] [replay options]\n"
      "       kvsim sweep --find max-num-seqs|rate-scale --slo ... [replay options]\n\nSweep options",
      110, 60);
  OutputFlags outputs(own);
  AddSweepOptions(own, f, outputs);
  po::variables_map vm;
  po::parsed_options parsed = po::command_line_parser(args).options(own).allow_unregistered().run();
  po::store(parsed, vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  if (vm.count("help")) {
    out << own << "\nExamples:\n  kvsim sweep --sweep max-num-seqs=16,32,64,128,256 --sweep quantization=none,awq --gpu l4 --slo tpot-p99=300ms\n"
        << "  kvsim sweep --find max-num-seqs --gpu a100-80gb --slo tpot-p99=100ms\n"
        << "  kvsim sweep --find rate-scale --gpu a100-80gb --slo ttft-p99=2s,tpot-p99=100ms\n";
    return kExitOk;
  }
  ValidateJobs(f.jobs);
  // Each knob of the search belongs to some searches only: given to the others it would be dropped.
  if (!vm["precision"].defaulted() && f.find != "rate-scale")
    throw Error("--precision: applies to --find rate-scale only (the other searches are over whole numbers)");
  if (!vm["find-max"].defaulted() && (f.find.empty() || f.find == "rate-scale"))
    throw Error("--find-max: applies to --find max-num-seqs, replicas or pd-ratio only");
  if (f.find == "replicas" && !vm["find-max"].defaulted() && f.find_max > 256)
    throw Error("--find-max: " + std::to_string(f.find_max) + " replicas; --find replicas searches at most 256");
  outputs.Check(args);
  const SweepCriteria criteria = ParseCriteria(f.objective, f.slo, f.max_preemption_rate);
  const std::vector<std::string> base = po::collect_unrecognized(parsed.options, po::include_positional);
  // Under mpirun/srun (two ranks or more) the points run across the ranks; otherwise null.
  const std::unique_ptr<RankFarm> farm = JoinMpiJob(f.jobs);
  // The search or the grid sets its option in every run: the same option fixed beside it (or a grid
  // beside a search) would be dropped without a word.
  if (!f.find.empty() && (!f.sweeps.empty() || !f.grid_file.empty()))
    throw Error("--find searches one option; --sweep/--grid axes beside it would be ignored: give one of them");
  if (!f.find.empty() && f.find != "pd-ratio") RefuseFixedAndVaried({f.find}, base, "--find");
  const SweepRun run = f.find.empty()          ? RunGrid(f, criteria, base, farm.get(), out, err)
                       : f.find == "pd-ratio" ? RunPdRatio(f, criteria, base, farm.get(), out, err)
                                              : RunSearch(f, criteria, base, farm.get(), out, err);
  if (run.report && !f.json_path.empty()) WriteOutput(f.json_path, run.report->dump(2) + "\n", out);
  return run.exit_code;
}

}  // namespace kvsim
