#include "reports/svg_chart.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace kvsim {
namespace {

constexpr double kWidth = 760, kHeight = 300;
constexpr double kLeft = 70, kRight = 160, kTop = 34, kBottom = 46;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;

// Every point of every chart goes through here (a report's charts hold a few hundred thousand
// coordinates). std::to_chars with a precision prints what printf's "%.1f" prints (C++17
// [charconv.to.chars]: as if by printf in the C locale) without parsing a format string per call.
std::string Num(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 1);
  if (r.ec != std::errc()) {  // longer than the buffer (|v| >= 1e29): printf's truncation, as before
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }
  return std::string(buf, r.ptr);
}

std::string Label(double v) {
  char buf[32];
  const double a = std::abs(v);
  if (a != 0 && (a >= 1e5 || a < 1e-3)) std::snprintf(buf, sizeof buf, "%.0e", v);
  else if (a >= 100 || v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string Escape(const std::string& s) { return HtmlEscape(s); }

struct Frame {
  double x0, x1, y0, y1;
  bool log_x = false;
  double X(double x) const {
    if (log_x) return kLeft + (std::log10(x) - std::log10(x0)) / (std::log10(x1) - std::log10(x0)) * kPlotW;
    return kLeft + (x - x0) / (x1 - x0) * kPlotW;
  }
  double Y(double y) const { return kTop + kPlotH - (y - y0) / (y1 - y0) * kPlotH; }
};

std::string Open(const AxisLabels& l) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 " + Num(kWidth) + " " + Num(kHeight) +
         "\" width=\"" + Num(kWidth) + "\" height=\"" + Num(kHeight) + "\" role=\"img\" aria-label=\"" + Escape(l.title) +
         "\">\n<text x=\"" + Num(kLeft) + "\" y=\"20\" class=\"title\">" + Escape(l.title) + "</text>\n";
}

std::string Axes(const Frame& f, const AxisLabels& l, bool percent_y) {
  std::string s = "<g class=\"axes\">\n";
  s += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(kTop + kPlotH) + "\" x2=\"" + Num(kLeft + kPlotW) + "\" y2=\"" +
       Num(kTop + kPlotH) + "\" stroke=\"#444\"/>\n";
  s += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(kLeft) + "\" y2=\"" + Num(kTop + kPlotH) +
       "\" stroke=\"#444\"/>\n";
  std::vector<double> xt;
  if (f.log_x) {
    for (double d = std::pow(10.0, std::floor(std::log10(f.x0))); d <= f.x1 * 1.0001; d *= 10)
      if (d >= f.x0 * 0.9999) xt.push_back(d);
  } else {
    xt = NiceTicks(f.x0, f.x1);
  }
  for (double t : xt) {
    const double x = f.X(t);
    s += "<line x1=\"" + Num(x) + "\" y1=\"" + Num(kTop + kPlotH) + "\" x2=\"" + Num(x) + "\" y2=\"" + Num(kTop + kPlotH + 5) +
         "\" stroke=\"#444\"/><text x=\"" + Num(x) + "\" y=\"" + Num(kTop + kPlotH + 18) + "\" class=\"tick\" text-anchor=\"middle\">" +
         Label(t) + "</text>\n";
  }
  for (double t : NiceTicks(f.y0, f.y1)) {
    const double y = f.Y(t);
    s += "<line x1=\"" + Num(kLeft - 5) + "\" y1=\"" + Num(y) + "\" x2=\"" + Num(kLeft + kPlotW) + "\" y2=\"" + Num(y) +
         "\" stroke=\"#ddd\"/><text x=\"" + Num(kLeft - 8) + "\" y=\"" + Num(y + 4) + "\" class=\"tick\" text-anchor=\"end\">" +
         (percent_y ? Label(t * 100) + "%" : Label(t)) + "</text>\n";
  }
  s += "<text x=\"" + Num(kLeft + kPlotW / 2) + "\" y=\"" + Num(kHeight - 8) + "\" class=\"axis\" text-anchor=\"middle\">" +
       Escape(l.x) + "</text>\n";
  s += "<text transform=\"translate(16," + Num(kTop + kPlotH / 2) + ") rotate(-90)\" class=\"axis\" text-anchor=\"middle\">" +
       Escape(l.y) + "</text>\n</g>\n";
  return s;
}

std::string Legend(const std::vector<Series>& series) {
  std::string s = "<g class=\"legend\">\n";
  double y = kTop + 4;
  for (const Series& se : series) {
    s += "<rect x=\"" + Num(kLeft + kPlotW + 14) + "\" y=\"" + Num(y) + "\" width=\"12\" height=\"12\" fill=\"" + se.color +
         "\"/><text x=\"" + Num(kLeft + kPlotW + 32) + "\" y=\"" + Num(y + 10) + "\" class=\"tick\">" + Escape(se.name) + "</text>\n";
    y += 18;
  }
  return s + "</g>\n";
}

}  // namespace

std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

std::string SvgStackedArea(const AxisLabels& labels, const std::vector<double>& x, const std::vector<Series>& series,
                           const std::vector<double>& markers, double y_max, bool percent) {
  std::string s = Open(labels);
  if (x.size() < 2) return s + "<text x=\"100\" y=\"150\">not enough samples</text></svg>\n";
  const Frame f{x.front(), std::max(x.back(), x.front() + 1e-9), 0, y_max};
  s += Axes(f, labels, percent);
  std::vector<double> base(x.size(), 0.0);
  for (const Series& se : series) {
    std::string d = "M" + Num(f.X(x[0])) + "," + Num(f.Y(base[0] + se.y[0]));
    std::vector<double> top(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      top[i] = base[i] + se.y[i];
      if (i) d += " L" + Num(f.X(x[i])) + "," + Num(f.Y(top[i]));
    }
    for (size_t i = x.size(); i-- > 0;) d += " L" + Num(f.X(x[i])) + "," + Num(f.Y(base[i]));
    double mean = 0;
    for (double v : se.y) mean += v;
    mean /= static_cast<double>(se.y.size());
    s += "<path class=\"area\" d=\"" + d + " Z\" fill=\"" + se.color + "\" fill-opacity=\"0.85\"><title>" + Escape(se.name) +
         ": mean " + (percent ? Label(100 * mean) + "%" : Label(mean)) + "</title></path>\n";
    base = top;
  }
  // Preemptions as a rug of short ticks above the plot, so they never hide the areas.
  for (double m : markers)
    s += "<line class=\"marker\" x1=\"" + Num(f.X(m)) + "\" y1=\"" + Num(kTop - 8) + "\" x2=\"" + Num(f.X(m)) + "\" y2=\"" +
         Num(kTop - 1) + "\" stroke=\"#c00\" stroke-width=\"1\"><title>preemptions by " + Label(m) + " s</title></line>\n";
  std::vector<Series> legend(series.rbegin(), series.rend());
  if (!markers.empty()) legend.push_back({"preemption", "#c00", {}, {}});
  return s + Legend(legend) + "</svg>\n";
}

std::string SvgLines(const AxisLabels& labels, const std::vector<double>& x, const std::vector<Series>& series) {
  std::string s = Open(labels);
  if (x.size() < 2) return s + "<text x=\"100\" y=\"150\">not enough samples</text></svg>\n";
  double y_max = 1;
  for (const Series& se : series)
    for (double v : se.y) y_max = std::max(y_max, v);
  const std::vector<double> ticks = NiceTicks(0, y_max);
  const Frame f{x.front(), std::max(x.back(), x.front() + 1e-9), 0, std::max(y_max, ticks.back())};
  s += Axes(f, labels, false);
  for (const Series& se : series) {
    std::string d;
    double peak = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      d += (i ? " L" : "M") + Num(f.X(x[i])) + "," + Num(f.Y(se.y[i]));
      peak = std::max(peak, se.y[i]);
    }
    s += "<path class=\"line\" d=\"" + d + "\" fill=\"none\" stroke=\"" + se.color + "\" stroke-width=\"1.5\"><title>" +
         Escape(se.name) + ": peak " + Label(peak) + "</title></path>\n";
  }
  return s + Legend(series) + "</svg>\n";
}

std::string SvgCdf(const AxisLabels& labels, const std::vector<Series>& series,
                   const std::vector<std::pair<std::string, double>>& markers) {
  std::string s = Open(labels);
  double lo = 1e30, hi = 0;
  for (const Series& se : series)
    for (const auto& [x, y] : se.xy) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  if (!(hi > 0)) return s + "<text x=\"100\" y=\"150\">no finished requests</text></svg>\n";
  lo = std::pow(10.0, std::floor(std::log10(lo)));
  hi = std::pow(10.0, std::ceil(std::log10(hi)));
  if (hi <= lo) hi = lo * 10;
  Frame f{lo, hi, 0, 1};
  f.log_x = true;
  s += Axes(f, labels, true);
  for (const Series& se : series) {
    std::string d;
    double prev_y = 0;
    for (size_t i = 0; i < se.xy.size(); ++i) {
      const auto& [x, y] = se.xy[i];
      d += (i ? " L" : "M") + Num(f.X(x)) + "," + Num(f.Y(i ? prev_y : 0)) + " L" + Num(f.X(x)) + "," + Num(f.Y(y));
      prev_y = y;
    }
    s += "<path class=\"line\" d=\"" + d + "\" fill=\"none\" stroke=\"" + se.color + "\" stroke-width=\"1.5\"><title>" +
         Escape(se.name) + "</title></path>\n";
  }
  for (const auto& [name, x] : markers) {
    if (!(x > 0)) continue;
    const double px = f.X(std::clamp(x, lo, hi));
    s += "<line class=\"marker\" x1=\"" + Num(px) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(px) + "\" y2=\"" +
         Num(kTop + kPlotH) + "\" stroke=\"#888\" stroke-dasharray=\"3,3\"><title>" + Escape(name) + " = " + Label(x) +
         " s</title></line>\n";
  }
  return s + Legend(series) + "</svg>\n";
}

std::string SvgShareBar(const AxisLabels& labels, const std::vector<std::pair<std::string, double>>& parts,
                        const std::vector<std::string>& colors, double total, const std::string& unit) {
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 760 136\" width=\"760\" height=\"136\" "
                  "role=\"img\" aria-label=\"" + Escape(labels.title) + "\">\n<text x=\"" + Num(kLeft) +
                  "\" y=\"20\" class=\"title\">" + Escape(labels.title) + "</text>\n";
  double x = kLeft;
  const double width = 760 - kLeft - 20;
  std::vector<Series> legend;
  for (size_t i = 0; i < parts.size(); ++i) {
    const double w = total > 0 ? parts[i].second / total * width : 0;
    s += "<rect class=\"bar\" x=\"" + Num(x) + "\" y=\"32\" width=\"" + Num(std::max(w, 0.0)) + "\" height=\"28\" fill=\"" +
         colors[i % colors.size()] + "\"><title>" + Escape(parts[i].first) + ": " + Label(parts[i].second) + " " + unit +
         " (" + Label(total > 0 ? 100 * parts[i].second / total : 0) + "%)</title></rect>\n";
    x += w;
  }
  double lx = kLeft, ly = 74;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string text = parts[i].first + " " + Label(total > 0 ? 100 * parts[i].second / total : 0) + "%";
    const double w = 24 + 5.8 * static_cast<double>(text.size());  // ~5.8 px per character at 11 px
    if (lx + w > 750 && lx > kLeft) lx = kLeft, ly += 16;            // wrap the legend
    s += "<rect x=\"" + Num(lx) + "\" y=\"" + Num(ly) + "\" width=\"10\" height=\"10\" fill=\"" + colors[i % colors.size()] +
         "\"/><text x=\"" + Num(lx + 14) + "\" y=\"" + Num(ly + 9) + "\" class=\"tick\">" + Escape(text) + "</text>\n";
    lx += w;
  }
  s += "<text x=\"" + Num(kLeft) + "\" y=\"" + Num(ly + 32) + "\" class=\"axis\">" + Escape(labels.x) + "</text>\n";
  return s + "</svg>\n";
}

}  // namespace kvsim
