// The replay's HTML report: one self-contained file (inline SVG and CSS, no network, no script)
// with the effective configuration, the capacity breakdown beside the 1.2× rule of thumb, KV memory
// by category over time with preemptions marked, running and waiting requests over time, latency
// CDFs with p50/p90/p99, the waste breakdown and the prefix-cache hit rate. Its size is bounded:
// the series is downsampled (keeping each bucket's peak) to at most ~1,200 points.
#ifndef KVSIM_REPORTS_HTML_REPORT_H_
#define KVSIM_REPORTS_HTML_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "reports/replay_recorder.h"

namespace kvsim {

// REQUIRES: the recorder was created with keep_charts and has finished.
std::string RenderHtmlReport(const nlohmann::json& summary, const ReplayRecorder& recorder);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_HTML_REPORT_H_
