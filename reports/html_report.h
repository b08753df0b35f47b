// The replay's HTML report: one self-contained file (inline SVG and CSS, no network, no script)
// with the effective configuration, the capacity breakdown beside the 1.2× rule of thumb, KV memory
// by category over time with preemptions marked, running and waiting requests over time, latency
// CDFs with p50/p90/p99, the waste breakdown and the prefix-cache hit rate. Its size is bounded:
// the series is downsampled (keeping each bucket's peak) to at most ~1,200 points.
#ifndef KVSIM_REPORTS_HTML_REPORT_H_
#define KVSIM_REPORTS_HTML_REPORT_H_

#include <string>

#include "reports/chart_recorder.h"
#include "sim/stats/replay_summary.h"

namespace kvsim {

// REQUIRES: `charts` observed the replay that `summary` describes.
std::string RenderHtmlReport(const ReplaySummary& summary, const ChartRecorder& charts);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_HTML_REPORT_H_
