// kvsim sweep: replay a grid of settings (or search one) and pick the best deployment.
#include <boost/program_options.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/model_catalog.h"
#include "reports/sweep_report.h"
#include "sim/cli/commands.h"
#include "sim/cli/output.h"
#include "sim/cli/shared_flags.h"
#include "sim/cli/variant_parser.h"
#include "sim/sweep_grid.h"
#include "sim/sweep_search.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

struct SweepFlags {
  std::vector<std::string> sweeps;
  std::string grid_file, objective = "throughput", slo, csv_path, json_path, find;
  double max_preemption_rate = -1, precision = 0.01;
  int64_t find_max = 1024;
  int jobs = DefaultJobs();
};

void AddSweepOptions(po::options_description& own, SweepFlags& f) {
  own.add_options()("help,h", "show this help")
      ("sweep", po::value(&f.sweeps)->composing(), "OPTION=V1,V2,...: an axis of the grid (repeatable; the first is outermost)")
      ("grid", po::value(&f.grid_file), "JSON file {\"option\": [values], ...} with more axes")
      ("objective", po::value(&f.objective)->default_value(f.objective), "throughput | goodput (requests/s meeting the per-request SLO) | cost (cheapest per output token; needs --gpu-hourly-cost)")
      ("slo", po::value(&f.slo), "constraints METRIC-QUANTILE=LIMIT, comma-separated: ttft-p99=2s,tpot-p99.9=100ms (p50|p90|p99|p99.9|mean); goodput-min=0.95: at least that fraction of requests within the TTFT/TPOT limits")
      ("max-preemption-rate", po::value(&f.max_preemption_rate), "constraint: preemptions per finished request")
      ("find", po::value(&f.find), "max-num-seqs | rate-scale | replicas (the smallest fleet): search instead of a grid")
      ("find-max", po::value(&f.find_max)->default_value(f.find_max), "--find max-num-seqs: the largest cap considered; --find replicas: the most replicas (at most 256)")
      ("precision", po::value(&f.precision)->default_value(f.precision, Format("%g", f.precision)), "--find rate-scale: relative precision");
  AddJobsOption(own, f.jobs);
  own.add_options()("csv", po::value(&f.csv_path), "write one row per point to FILE.csv")
      ("json", po::value(&f.json_path), "write every point's summary to FILE.json");
}

// --find: one knob searched; the probes and the answer.
nlohmann::json RunSearch(const SweepFlags& f, const SweepCriteria& criteria, const std::vector<std::string>& base,
                         std::ostream& out) {
  const std::string data_dir = DataDirectory();
  ResolveCache cache;  // model specs and the GPU table, read once for every probe
  SearchResult r;
  if (f.find == "max-num-seqs") {
    if (f.find_max < 1) throw Error("--find-max: must be at least 1");
    r = FindLargestBatchCap([&](int64_t cap) {
          return ParseVariant("max-num-seqs=" + std::to_string(cap), base, {"--max-num-seqs", std::to_string(cap)}, data_dir, &cache);
        }, criteria, f.find_max);
  } else if (f.find == "rate-scale") {
    if (!(f.precision > 0 && f.precision < 1)) throw Error("--precision: must be in (0, 1)");
    r = FindHighestRateScale([&](double s) {
          return ParseVariant("rate-scale=" + Format("%.6g", s), base, {"--rate-scale", Format("%.9g", s)}, data_dir, &cache);
        }, criteria, f.precision);
  } else if (f.find == "replicas") {
    if (f.find_max < 1) throw Error("--find-max: must be at least 1");
    r = FindSmallestReplicas([&](int64_t n) {
          return ParseVariant("replicas=" + std::to_string(n), base, {"--replicas", std::to_string(n)}, data_dir, &cache);
        }, criteria, std::min<int64_t>(f.find_max, 256));
  } else {
    throw Error("--find: '" + f.find + "' is not max-num-seqs, rate-scale or replicas");
  }
  std::vector<PointOutcome> probes;
  for (const auto& [value, p] : r.probes) probes.push_back(p);
  out << RenderPointsTable(probes, "probe") << RenderSearchAnswer(f.find, r, criteria);
  return SearchToJson(f.find, r);
}

// A grid: every point replayed, the best picked.
nlohmann::json RunGrid(const SweepFlags& f, const SweepCriteria& criteria, const std::vector<std::string>& base,
                       std::ostream& out, std::ostream& err) {
  std::vector<GridAxis> axes;
  for (const auto& s : f.sweeps) axes.push_back(ParseGridAxis(s));
  if (!f.grid_file.empty())
    for (auto& a : ReadGridFile(f.grid_file)) axes.push_back(a);
  const std::string data_dir = DataDirectory();
  ResolveCache cache;
  std::vector<Variant> variants;
  for (const GridPoint& p : ExpandGrid(axes)) variants.push_back(ParseVariant(p.label, base, p.overrides, data_dir, &cache));
  if (variants.size() > 1) err << "kvsim sweep: " << variants.size() << " points on " << f.jobs << " threads\n";
  const std::vector<PointOutcome> results = EvaluatePoints(std::move(variants), criteria, f.jobs);
  out << RenderPointsTable(results, "point") << RenderBestPoint(results, criteria);
  if (!f.csv_path.empty()) WriteOutput(f.csv_path, RenderPointsCsv(results), out);
  return GridToJson(results, criteria, f.slo);
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
  AddSweepOptions(own, f);
  po::variables_map vm;
  po::parsed_options parsed = po::command_line_parser(args).options(own).allow_unregistered().run();
  po::store(parsed, vm);
  po::notify(vm);
  if (vm.count("help")) {
    out << own << "\nExamples:\n  kvsim sweep --sweep max-num-seqs=16,32,64,128,256 --sweep quantization=none,awq --gpu l4 --slo tpot-p99=300ms\n"
        << "  kvsim sweep --find max-num-seqs --gpu a100-80gb --slo tpot-p99=100ms\n"
        << "  kvsim sweep --find rate-scale --gpu a100-80gb --slo ttft-p99=2s,tpot-p99=100ms\n";
    return kExitOk;
  }
  ValidateJobs(f.jobs);
  const SweepCriteria criteria = ParseCriteria(f.objective, f.slo, f.max_preemption_rate);
  const std::vector<std::string> base = po::collect_unrecognized(parsed.options, po::include_positional);
  const nlohmann::json report = f.find.empty() ? RunGrid(f, criteria, base, out, err) : RunSearch(f, criteria, base, out);
  if (!f.json_path.empty()) WriteOutput(f.json_path, report.dump(2) + "\n", out);
  return kExitOk;
}

}  // namespace kvsim
