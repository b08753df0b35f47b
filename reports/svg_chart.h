// Small self-contained SVG charts for the HTML report: axes with units and "nice" ticks, legends,
// native hover read-outs (<title>), no scripts. Each function returns one <svg> element.
#ifndef KVSIM_REPORTS_SVG_CHART_H_
#define KVSIM_REPORTS_SVG_CHART_H_

#include <string>
#include <utility>
#include <vector>

namespace kvsim {

struct Series {
  std::string name;
  std::string color;
  std::vector<double> y;                        // for charts sharing one x axis
  std::vector<std::pair<double, double>> xy;    // for charts with their own x values (CDFs)
};

struct AxisLabels {
  std::string title;
  std::string x;  // with unit, e.g. "time (s)"
  std::string y;
};

// Stacked areas over a shared x (e.g. KV memory by category over time, as fractions of the pool).
// `markers` draws thin vertical lines (e.g. preemptions) at those x values.
std::string SvgStackedArea(const AxisLabels& labels, const std::vector<double>& x, const std::vector<Series>& series,
                           const std::vector<double>& markers = {}, double y_max = 1.0, bool percent = true);

// Lines over a shared x.
std::string SvgLines(const AxisLabels& labels, const std::vector<double>& x, const std::vector<Series>& series);

// Empirical CDFs on a logarithmic x axis, with dashed markers at the given (label, x) points.
std::string SvgCdf(const AxisLabels& labels, const std::vector<Series>& series,
                   const std::vector<std::pair<std::string, double>>& markers);

// One horizontal stacked bar of shares (e.g. waste categories), values summing to `total`.
std::string SvgShareBar(const AxisLabels& labels, const std::vector<std::pair<std::string, double>>& parts,
                        const std::vector<std::string>& colors, double total, const std::string& unit);

// Escapes <, > and & for HTML/SVG text.
std::string HtmlEscape(const std::string& text);

// Up to 6 ticks at 1-2-5 steps covering [lo, hi].
std::vector<double> NiceTicks(double lo, double hi, int target = 5);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_SVG_CHART_H_
