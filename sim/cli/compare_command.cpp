// kvsim compare: the same trace through two or more deployments, side by side.
#include <boost/program_options.hpp>
#include <fstream>
#include <thread>

#include "kvcache/error.h"
#include "kvcache/model_catalog.h"
#include "reports/atomic_file.h"
#include "reports/svg_chart.h"
#include "reports/text_table.h"
#include "sim/cli/commands.h"
#include "sim/cli/variant_options.h"
#include "sim/sweep.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

struct Metric {
  const char* label;
  std::vector<const char*> path;
  const char* fmt;
};

const std::vector<Metric> kMetrics = {
    {"KV blocks (per GPU)", {"kv", "num_blocks"}, "%.0f"},
    {"KV pool GiB", {"memory_gib", "kv_pool"}, "%.2f"},
    {"weights GiB", {"memory_gib", "weights"}, "%.2f"},
    {"peak KV used GiB", {"memory_gib", "kv_peak_used"}, "%.2f"},
    {"peak running", {"concurrency", "peak_running"}, "%.0f"},
    {"mean running", {"concurrency", "mean_running"}, "%.1f"},
    {"peak waiting", {"concurrency", "peak_waiting"}, "%.0f"},
    {"preemptions", {"requests", "preemptions"}, "%.0f"},
    {"finished", {"requests", "finished"}, "%.0f"},
    {"rejected", {"requests", "rejected"}, "%.0f"},
    {"requests/s", {"throughput", "requests_per_s"}, "%.3f"},
    {"output tokens/s", {"throughput", "output_tokens_per_s"}, "%.0f"},
    {"TTFT p50 s", {"latency_s", "ttft", "p50"}, "%.3f"},
    {"TTFT p99 s", {"latency_s", "ttft", "p99"}, "%.3f"},
    {"TPOT p50 s", {"latency_s", "tpot", "p50"}, "%.4f"},
    {"TPOT p99 s", {"latency_s", "tpot", "p99"}, "%.4f"},
    {"E2E p99 s", {"latency_s", "e2e", "p99"}, "%.2f"},
    {"token states (while waiting)", {"waste_saturated", "token_states"}, "%.3f"},
    {"internal frag. (while waiting)", {"waste_saturated", "internal_fragmentation"}, "%.3f"},
    {"free (while waiting)", {"waste_saturated", "free"}, "%.3f"},
};

double Get(const nlohmann::json& s, const Metric& m) {
  const nlohmann::json* v = &s;
  for (const char* k : m.path) v = &(*v)[k];
  return v->get<double>();
}

}  // namespace

int RunCompareCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> variant_args(8);
  std::string json_path, report_path;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  po::options_description own(
      "kvsim compare: replay the same trace through two or more deployments and print them side by side.\n"
      "Every other option is a kvsim replay option shared by all deployments; --a, --b, ... add or\n"
      "override options for one deployment.\n\n"
      "Usage: kvsim compare --a \"OPTIONS\" --b \"OPTIONS\" [--c ...] [shared replay options]\n\nCompare options",
      110, 60);
  own.add_options()("help,h", "show this help");
  const char* names[8] = {"a", "b", "c", "d", "e", "f", "g", "h"};
  for (int i = 0; i < 8; ++i)
    own.add_options()(names[i], po::value(&variant_args[static_cast<size_t>(i)]),
                      (std::string("options of deployment ") + names[i] + (i >= 2 ? " (optional)" : "")).c_str());
  own.add_options()("jobs,j", po::value(&jobs)->default_value(jobs), "replays run in parallel")
      ("json", po::value(&json_path), "write every deployment's summary to FILE.json")
      ("report", po::value(&report_path), "write one HTML page with the charts overlaid");
  po::variables_map vm;
  po::parsed_options parsed = po::command_line_parser(args).options(own).allow_unregistered().run();
  po::store(parsed, vm);
  po::notify(vm);
  if (vm.count("help")) {
    out << own << "\nExample:\n  kvsim compare --gpu l4 --a \"--quantization none\" --b \"--quantization awq\"\n";
    return 0;
  }
  const std::vector<std::string> base = po::collect_unrecognized(parsed.options, po::include_positional);
  const std::string data_dir = DataDirectory();
  std::vector<Variant> variants;
  for (int i = 0; i < 8; ++i)
    if (vm.count(names[i]))
      variants.push_back(ParseVariant(std::string(names[i]) + ": " + variant_args[static_cast<size_t>(i)], base,
                                      SplitOptionString(variant_args[static_cast<size_t>(i)]), data_dir));
  if (variants.size() < 2) throw Error("give at least two deployments: --a \"OPTIONS\" --b \"OPTIONS\"");
  for (auto& v : variants) v.replay.report_path = report_path;  // keep chart series when a report is wanted

  std::vector<VariantRun> runs = RunVariants(variants, jobs);
  std::vector<ReplayResult> results;
  for (size_t i = 0; i < variants.size(); ++i) {
    if (!runs[i].error.empty()) throw Error("deployment " + variants[i].label + ": " + runs[i].error);
    results.push_back(std::move(runs[i].result));
  }

  std::vector<std::string> header = {"metric"};
  for (const auto& v : variants) header.push_back(v.label.substr(0, 40));
  const bool pair = variants.size() == 2;
  if (pair) header.push_back("b - a");
  TextTable t(header);
  for (const Metric& m : kMetrics) {
    std::vector<std::string> row = {m.label};
    for (const auto& r : results) row.push_back(Format(m.fmt, Get(r.summary, m)));
    if (pair) {
      const double a = Get(results[0].summary, m), b = Get(results[1].summary, m);
      row.push_back(Format(m.fmt, b - a) + (a != 0 ? Format(" (%+.1f%%)", 100 * (b - a) / a) : ""));
    }
    t.AddRow(row);
  }
  out << "kvsim compare: " << results[0].summary["config"]["trace"].get<std::string>() << "\n" << t.Render();

  if (!json_path.empty()) {
    nlohmann::json j = nlohmann::json::array();
    for (size_t i = 0; i < variants.size(); ++i) j.push_back({{"deployment", variants[i].label}, {"summary", results[i].summary}});
    WriteFileAtomically(json_path, j.dump(2) + "\n");
  }
  if (!report_path.empty()) {
    const std::vector<std::string> colors = {"#2b6cb0", "#c53030", "#2f855a", "#b7791f", "#6b46c1", "#319795", "#d53f8c", "#4a5568"};
    // Overlay: KV in use and running requests over time; TTFT CDFs.
    std::vector<Series> kv, run, ttft;
    std::vector<double> x;
    size_t longest = 0;
    for (size_t i = 0; i < results.size(); ++i) longest = std::max(longest, results[i].recorder->chart().size());
    double dt = 0;
    for (const auto& r : results)
      if (r.recorder->chart().size() > 1) dt = std::max(dt, r.recorder->chart()[1].t_s - r.recorder->chart()[0].t_s);
    for (size_t k = 0; k < longest; ++k) x.push_back(static_cast<double>(k) * dt);
    for (size_t i = 0; i < results.size(); ++i) {
      Series a{variants[i].label, colors[i % colors.size()], {}, {}}, b = a, c = a;
      const auto& ch = results[i].recorder->chart();
      for (size_t k = 0; k < longest; ++k) {
        // Resample each run onto the common grid (bucket widths may differ between runs).
        double best_used = 0, best_run = 0;
        for (const auto& p : ch)
          if (p.t_s <= x[k] + 1e-9) best_used = p.used_fraction, best_run = static_cast<double>(p.running_max);
        a.y.push_back(best_used);
        b.y.push_back(best_run);
      }
      c.xy = results[i].recorder->ttft_histogram().Cdf();
      kv.push_back(a), run.push_back(b), ttft.push_back(c);
    }
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kvsim compare</title><style>"
                       "body{font-family:system-ui,sans-serif;margin:24px}.title{font-size:14px;font-weight:600}"
                       ".tick{font-size:11px;fill:#4a5568}.axis{font-size:12px}pre{font-size:12px}</style></head><body>\n"
                       "<h1>kvsim compare</h1>\n<pre>" + t.Render() + "</pre>\n";
    html += SvgLines({"KV memory in use (share of each deployment's pool)", "simulated time (s)", "share of KV pool"}, x, kv);
    html += SvgLines({"Running requests", "simulated time (s)", "requests"}, x, run);
    html += SvgCdf({"TTFT CDF", "seconds (log scale)", "fraction of requests"}, ttft, {});
    html += "</body></html>\n";
    WriteFileAtomically(report_path, html);
  }
  (void)err;
  return 0;
}

}  // namespace kvsim
