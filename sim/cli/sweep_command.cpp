// kvsim sweep: replay a grid of settings (or search one) and pick the best deployment.
#include <boost/program_options.hpp>
#include <sstream>
#include <thread>

#include "kvcache/error.h"
#include "kvcache/model_catalog.h"
#include "reports/atomic_file.h"
#include "reports/text_table.h"
#include "sim/cli/commands.h"
#include "sim/cli/variant_options.h"
#include "sim/sweep.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

struct Axis {
  std::string key;
  std::vector<std::string> values;
};

Axis ParseAxis(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Error("--sweep: '" + text + "' is not OPTION=V1,V2,... (e.g. max-num-seqs=16,32,64)");
  Axis a;
  a.key = text.substr(0, eq);
  std::stringstream ss(text.substr(eq + 1));
  for (std::string v; std::getline(ss, v, ',');)
    if (!v.empty()) a.values.push_back(v);
  return a;
}

// A JSON grid file: {"max-num-seqs": [16, 32], "gpu": ["l4", "a10g"]}.
std::vector<Axis> ReadGridFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the grid file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ": malformed JSON: " + e.what());
  }
  if (!j.is_object()) throw Error(path + ": expected an object of option -> list of values");
  std::vector<Axis> axes;
  for (const auto& [key, values] : j.items()) {
    if (!values.is_array() || values.empty()) throw Error(path + ": " + key + ": expected a non-empty list");
    Axis a{key, {}};
    for (const auto& v : values) a.values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    axes.push_back(a);
  }
  return axes;
}

std::string Cell(const nlohmann::json& s, const char* a, const char* b, const char* c, const char* fmt) {
  if (s.is_null()) return "-";
  const auto& v = c ? s[a][b][c] : s[a][b];
  return Format(fmt, v.get<double>());
}

std::vector<std::string> Row(const PointOutcome& p) {
  const auto& s = p.summary;
  const double finished = s.is_null() ? 0 : s["requests"]["finished"].get<double>();
  const double preemptions = s.is_null() ? 0 : s["requests"]["preemptions"].get<double>();
  return {p.label,
          Cell(s, "throughput", "requests_per_s", nullptr, "%.3f"),
          Cell(s, "goodput", "requests_per_s", nullptr, "%.3f"),
          Cell(s, "latency_s", "ttft", "p99", "%.3f"),
          Cell(s, "latency_s", "tpot", "p99", "%.4f"),
          s.is_null() ? "-" : Format("%.3f", finished > 0 ? preemptions / finished : 0.0),
          s.is_null() ? "-" : std::to_string(s["concurrency"]["peak_running"].get<int64_t>()),
          p.feasible ? "meets" : "violates"};
}

nlohmann::json PointJson(const PointOutcome& p) {
  return {{"point", p.label}, {"feasible", p.feasible}, {"objective", p.objective}, {"violations", p.violations},
          {"summary", p.summary}};
}

}  // namespace

int RunSweepCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> sweeps;
  std::string grid_file, objective = "throughput", slo, csv_path, json_path, find;
  double max_preemption_rate = -1, precision = 0.01;
  int64_t find_max = 1024;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  po::options_description own(
      "kvsim sweep: replay a grid of settings on one trace and pick the best, or search for the largest\n"
      "max_num_seqs / highest load that meets the SLOs. Every other option is a kvsim replay option\n"
      "shared by all points.\n\n"
      "Usage: kvsim sweep --sweep OPTION=V1,V2,... [--sweep ...] [--slo ttft-p99=2s,...] [replay options]\n"
      "       kvsim sweep --find max-num-seqs|rate-scale --slo ... [replay options]\n\nSweep options",
      110, 60);
  own.add_options()("help,h", "show this help")
      ("sweep", po::value(&sweeps)->composing(), "OPTION=V1,V2,...: an axis of the grid (repeatable; the first is outermost)")
      ("grid", po::value(&grid_file), "JSON file {\"option\": [values], ...} with more axes")
      ("objective", po::value(&objective)->default_value(objective), "throughput | goodput (requests/s meeting the per-request SLO)")
      ("slo", po::value(&slo), "constraints METRIC-QUANTILE=LIMIT, comma-separated: ttft-p99=2s,tpot-p99=100ms")
      ("max-preemption-rate", po::value(&max_preemption_rate), "constraint: preemptions per finished request")
      ("find", po::value(&find), "max-num-seqs | rate-scale: search instead of a grid")
      ("find-max", po::value(&find_max)->default_value(find_max), "--find max-num-seqs: the largest cap considered")
      ("precision", po::value(&precision)->default_value(precision, Format("%g", precision)), "--find rate-scale: relative precision")
      ("jobs,j", po::value(&jobs)->default_value(jobs), "replays run in parallel (default: all cores)")
      ("csv", po::value(&csv_path), "write one row per point to FILE.csv")
      ("json", po::value(&json_path), "write every point's summary to FILE.json");
  po::variables_map vm;
  po::parsed_options parsed = po::command_line_parser(args).options(own).allow_unregistered().run();
  po::store(parsed, vm);
  po::notify(vm);
  const std::vector<std::string> base = po::collect_unrecognized(parsed.options, po::include_positional);
  if (vm.count("help")) {
    out << own << "\nExamples:\n  kvsim sweep --sweep max-num-seqs=16,32,64,128,256 --sweep quantization=none,awq --gpu l4 --slo tpot-p99=300ms\n"
        << "  kvsim sweep --find max-num-seqs --gpu a100-80gb --slo tpot-p99=100ms\n"
        << "  kvsim sweep --find rate-scale --gpu a100-80gb --slo ttft-p99=2s,tpot-p99=100ms\n";
    return 0;
  }
  if (jobs < 1 || jobs > 256) throw Error("--jobs: must be between 1 and 256");
  const SweepCriteria criteria = ParseCriteria(objective, slo, max_preemption_rate);
  const std::string data_dir = DataDirectory();
  ResolveCache cache;  // model specs and the GPU table, read once for every point
  nlohmann::json report;

  if (!find.empty()) {
    SearchResult r;
    if (find == "max-num-seqs") {
      if (find_max < 1) throw Error("--find-max: must be at least 1");
      r = FindLargestBatchCap([&](int64_t cap) {
            return ParseVariant("max-num-seqs=" + std::to_string(cap), base, {"--max-num-seqs", std::to_string(cap)}, data_dir, &cache);
          }, criteria, find_max);
    } else if (find == "rate-scale") {
      if (!(precision > 0 && precision < 1)) throw Error("--precision: must be in (0, 1)");
      r = FindHighestRateScale([&](double s) {
            return ParseVariant("rate-scale=" + Format("%.6g", s), base, {"--rate-scale", Format("%.9g", s)}, data_dir, &cache);
          }, criteria, precision);
    } else {
      throw Error("--find: '" + find + "' is not max-num-seqs or rate-scale");
    }
    TextTable t({"probe", "req/s", "goodput/s", "TTFT p99 s", "TPOT p99 s", "preempt/req", "peak running", "SLOs"});
    for (const auto& [value, p] : r.probes) t.AddRow(Row(p));
    out << t.Render();
    if (!r.found) {
      out << "no " << find << " meets the SLOs; " << ExplainNoFeasibleProbe(r, criteria) << "\n";
    } else {
      out << "answer: " << find << " = " << Format("%.6g", r.value) << " meets the SLOs (" << r.precision << ")\n";
      if (r.has_next)
        out << "        " << find << " = " << Format("%.6g", r.next_value) << " " << WhyNotBest(r.at_next, r.at_value, criteria) << "\n";
      if (find == "max-num-seqs") {
        out << "        caps " << Format("%.0f", r.smallest_value) << ".." << Format("%.0f", r.value)
            << " meet the SLOs" << (r.smallest_value > 1 ? " (smaller caps queue requests too long)" : "") << "\n";
        const int64_t peak = r.at_value.summary["concurrency"]["peak_running"].get<int64_t>();
        if (!r.has_next && peak < static_cast<int64_t>(r.value))
          out << "        every cap up to --find-max meets them: at most " << peak << " requests ever ran at once, so\n"
              << "        larger caps change nothing (the load, the KV pool or the token budget bounds the batch)\n";
      }
    }
    report = {{"find", find}, {"found", r.found}, {"value", r.value}, {"precision", r.precision}, {"probes", nlohmann::json::array()}};
    if (r.found && find == "max-num-seqs") report["smallest_value"] = r.smallest_value;
    for (const auto& [value, p] : r.probes) report["probes"].push_back(PointJson(p));
    if (r.has_next) report["next_value"] = r.next_value;
  } else {
    std::vector<Axis> axes;
    for (const auto& s : sweeps) axes.push_back(ParseAxis(s));
    if (!grid_file.empty())
      for (auto& a : ReadGridFile(grid_file)) axes.push_back(a);
    if (axes.empty()) throw Error("give at least one --sweep OPTION=V1,V2,... (or --grid FILE, or --find)");
    // Cartesian product, first axis outermost.
    std::vector<std::vector<std::pair<std::string, std::string>>> points = {{}};
    for (const Axis& a : axes) {
      std::vector<std::vector<std::pair<std::string, std::string>>> next;
      for (const auto& p : points)
        for (const auto& v : a.values) {
          auto q = p;
          q.emplace_back(a.key, v);
          next.push_back(q);
        }
      points = std::move(next);
    }
    if (points.size() > 10000) throw Error("the grid has " + std::to_string(points.size()) + " points; at most 10000");
    std::vector<Variant> variants;
    for (const auto& p : points) {
      std::string label;
      std::vector<std::string> overrides;
      for (const auto& [k, v] : p) {
        label += (label.empty() ? "" : ",") + k + "=" + v;
        overrides.push_back("--" + k);
        overrides.push_back(v);
      }
      variants.push_back(ParseVariant(label, base, overrides, data_dir, &cache));
    }
    if (variants.size() > 1) err << "kvsim sweep: " << variants.size() << " points on " << jobs << " threads\n";
    const std::vector<PointOutcome> results = EvaluatePoints(std::move(variants), criteria, jobs);
    TextTable t({"point", "req/s", "goodput/s", "TTFT p99 s", "TPOT p99 s", "preempt/req", "peak running", "SLOs"});
    for (const auto& p : results) t.AddRow(Row(p));
    out << t.Render();
    const int best = BestPoint(results);
    report = {{"objective", criteria.objective}, {"slo", slo}, {"points", nlohmann::json::array()}};
    for (const auto& p : results) report["points"].push_back(PointJson(p));
    if (best < 0) {
      out << "no point meets the constraints\n";
    } else {
      const PointOutcome& b = results[static_cast<size_t>(best)];
      out << "best (" << criteria.objective << "): " << b.label << Format(" at %.3f", b.objective)
          << (criteria.objective == "goodput" ? " goodput req/s\n" : " req/s\n");
      for (const auto& p : results)
        if (&p != &b) out << "  " << p.label << ": " << WhyNotBest(p, b, criteria) << "\n";
      report["best"] = b.label;
    }
    if (!csv_path.empty()) {
      std::string csv = "point,requests_per_s,goodput_per_s,ttft_p99_s,tpot_p99_s,preemptions_per_request,peak_running,meets_slos\n";
      for (const auto& p : results) {
        auto cells = Row(p);
        cells.back() = p.feasible ? "1" : "0";
        for (size_t i = 0; i < cells.size(); ++i) csv += (i ? "," : "") + (i == 0 ? "\"" + cells[i] + "\"" : cells[i]);
        csv += "\n";
      }
      WriteFileAtomically(csv_path, csv);
    }
  }
  if (!json_path.empty()) WriteFileAtomically(json_path, report.dump(2) + "\n");
  return 0;
}

}  // namespace kvsim
