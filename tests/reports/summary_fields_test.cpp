// The replay summary's plain figures are declared once (each section's Fields(), walked by
// VisitSummaryFields) and every writer takes them from there: a summary whose every figure holds a
// value of its own shows each one in the JSON under its section and name, survives the MPI wire
// bit for bit, and, unless the figure has a row of its own in the tables, is a column of the sweep
// CSV and a row of the HTML report. Nothing here lists the figures, so a figure added to a
// section's Fields() is checked by these tests as it is.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>

#include "reports/chart_recorder.h"
#include "reports/html_report.h"
#include "reports/replay_report.h"
#include "reports/sweep_report.h"
#include "sim/stats/summary_fields.h"
#include "sim/sweep/point_wire.h"

namespace kvsim {
namespace {

// Figure i gets i + 1 (integers), i + 1.25 (floating point): no two figures alike, none the default.
ReplaySummary Distinct() {
  ReplaySummary s;
  int i = 0;
  VisitSummaryFields(s, [&](const SummaryFieldInfo&, auto& value) {
    using T = std::remove_reference_t<decltype(value)>;
    value = std::is_floating_point_v<T> ? static_cast<T>(i + 1.25) : static_cast<T>(i + 1);
    ++i;
  });
  return s;
}

template <class T>
double AsDouble(const T& v) { return static_cast<double>(v); }

TEST(SummaryFieldsTest, EveryFigureHasAUniqueKeyAndAUnit) {
  std::set<std::string> keys;
  size_t n = 0;
  const ReplaySummary s = Distinct();
  VisitSummaryFields(s, [&](const SummaryFieldInfo& f, const auto&) {
    EXPECT_TRUE(keys.insert(std::string(f.section) + "." + f.name).second) << f.section << "." << f.name;
    EXPECT_NE(std::string(f.unit), "") << f.name;
    ++n;
  });
  EXPECT_EQ(n, kSummaryFieldCount);
}

TEST(SummaryFieldsTest, JsonShowsEveryFigureUnderItsSectionAndName) {
  const ReplaySummary s = Distinct();
  const nlohmann::json j = ReplaySummaryToJson(s);
  std::set<std::string> sections;
  VisitSummaryFields(s, [&](const SummaryFieldInfo& f, const auto& value) {
    sections.insert(f.section);
    ASSERT_TRUE(j.contains(f.section) && j[f.section].contains(f.name)) << f.section << "." << f.name;
    EXPECT_EQ(j[f.section][f.name].get<double>(), AsDouble(value)) << f.section << "." << f.name;
  });
  // Nothing in those sections is written by hand but the two parts that are not figures.
  size_t keys = 0;
  for (const std::string& section : sections) keys += j[section].size();
  EXPECT_EQ(keys, kSummaryFieldCount + 2) << "requests.rejected_by_reason and memory_gib.units";
}

TEST(SummaryFieldsTest, TheWireCarriesEveryFigure) {
  PointOutcome p;
  p.label = "one";
  p.summary = Distinct();
  const PointOutcome back = DecodePointOutcome(EncodePointOutcome(p));
  ASSERT_TRUE(back.summary.has_value());
  std::vector<double> sent, received;
  VisitSummaryFields(*p.summary, [&](const SummaryFieldInfo&, const auto& v) { sent.push_back(AsDouble(v)); });
  VisitSummaryFields(*back.summary, [&](const SummaryFieldInfo&, const auto& v) { received.push_back(AsDouble(v)); });
  EXPECT_EQ(received, sent);
  EXPECT_EQ(ReplaySummaryToJson(*back.summary).dump(), ReplaySummaryToJson(*p.summary).dump());
}

TEST(SummaryFieldsTest, CsvAndHtmlShowEveryFigureWithoutARowOfItsOwn) {
  const ReplaySummary s = Distinct();
  std::vector<std::pair<std::string, std::string>> expected;  // "section.name", value
  VisitSummaryFields(s, [&](const SummaryFieldInfo& f, const auto& value) {
    if (f.outputs != FieldOutputs::kEverywhere) return;
    using T = std::remove_cvref_t<decltype(value)>;
    expected.emplace_back(std::string(f.section) + "." + f.name,
                          std::is_floating_point_v<T> ? std::to_string(static_cast<int>(value)) + ".25" : std::to_string(value));
  });
  const std::vector<FigureText> shown = FiguresWithoutOwnRow(s);
  ASSERT_EQ(shown.size(), expected.size());
  for (size_t i = 0; i < shown.size(); ++i) {
    EXPECT_EQ(shown[i].key, expected[i].first);
    EXPECT_EQ(shown[i].value, expected[i].second);
  }

  PointOutcome p;
  p.label = "one";
  p.summary = s;
  const std::string csv = RenderPointsCsv({p}, "");
  const std::string header = csv.substr(0, csv.find('\n'));
  const std::string row = csv.substr(header.size() + 1);
  size_t columns = 1;
  for (char c : header) columns += c == ',';
  EXPECT_EQ(columns, 8 + expected.size()) << header;  // the fixed columns, then one per figure
  for (const auto& [key, value] : expected) {
    EXPECT_NE(header.find("," + key), std::string::npos) << key;
    EXPECT_NE(row.find("," + value), std::string::npos) << key;
  }

  const std::string html = RenderHtmlReport(s, ChartRecorder());
  for (const auto& [key, value] : expected) {
    EXPECT_NE(html.find("<th>" + key + "</th><td>" + value + " "), std::string::npos) << key;
  }
}

}  // namespace
}  // namespace kvsim
