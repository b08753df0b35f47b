// The replay summary's plain figures, walked for every writer of a summary: JSON
// (reports/replay_report.cpp), the MPI wire (sim/sweep/point_wire.cpp), the sweep CSV
// (reports/sweep_report.cpp) and the HTML report (reports/html_report.cpp). Each figure is declared
// once, in its section's Fields() (sim/stats/replay_summary.h), so a figure added there appears in
// all four. Parts of the summary that are not plain figures (distributions, shares by category, the
// configuration, optional sections) keep writers of their own.
#ifndef KVSIM_SIM_STATS_SUMMARY_FIELDS_H_
#define KVSIM_SIM_STATS_SUMMARY_FIELDS_H_

#include <cstddef>
#include <tuple>
#include <type_traits>

#include "sim/stats/replay_summary.h"

namespace kvsim {

// A figure as a visitor sees it: its section (the JSON object it sits in), name, unit and outputs.
struct SummaryFieldInfo {
  const char* section;
  const char* name;
  const char* unit;
  FieldOutputs outputs;
};

// The plain sections in the order of the struct, each with its JSON name.
template <class Summary, class Each>
void ForEachPlainSection(Summary& s, Each&& each) {
  each("requests", s.requests), each("concurrency", s.concurrency), each("kv", s.kv);
  each("throughput", s.throughput), each("goodput", s.goodput), each("memory_gib", s.memory_gib);
}

// Calls visit(const SummaryFieldInfo&, value&) for every plain figure, section by section, each
// section's figures in the order of its Fields(). `Summary` is ReplaySummary or const ReplaySummary,
// so the wire's reader and every writer walk one list.
template <class Summary, class Visit>
  requires std::is_same_v<std::remove_const_t<Summary>, ReplaySummary>
void VisitSummaryFields(Summary& s, Visit&& visit) {
  ForEachPlainSection(s, [&](const char* section, auto& part) {
    std::apply([&](const auto&... f) { (visit(SummaryFieldInfo{section, f.name, f.unit, f.outputs}, part.*(f.member)), ...); },
               std::remove_const_t<std::remove_reference_t<decltype(part)>>::Fields());
  });
}

namespace summary_fields_detail {

// The number of members of an aggregate whose members are not aggregates themselves: the most
// initializers T{...} accepts.
struct AnyValue {
  template <class T>
  operator T() const;  // declared only: used in unevaluated requires-expressions
};
template <class T, class... A>
constexpr size_t MemberCount() {
  if constexpr (requires { T{A{}..., AnyValue{}}; }) return MemberCount<T, A..., AnyValue>();
  else return sizeof...(A);
}
template <class Section>
constexpr size_t ListedFields() { return std::tuple_size_v<decltype(Section::Fields())>; }

// Every member of a plain section is in its Fields(), but requests.rejected_by_reason (a map, which
// the JSON writes itself and the wire carries as a list).
static_assert(MemberCount<ReplaySummary::Requests>() == ListedFields<ReplaySummary::Requests>() + 1,
              "a member of ReplaySummary::Requests is missing from its Fields()");
static_assert(MemberCount<ReplaySummary::Concurrency>() == ListedFields<ReplaySummary::Concurrency>(),
              "a member of ReplaySummary::Concurrency is missing from its Fields()");
static_assert(MemberCount<ReplaySummary::Kv>() == ListedFields<ReplaySummary::Kv>(),
              "a member of ReplaySummary::Kv is missing from its Fields()");
static_assert(MemberCount<ReplaySummary::Throughput>() == ListedFields<ReplaySummary::Throughput>(),
              "a member of ReplaySummary::Throughput is missing from its Fields()");
static_assert(MemberCount<ReplaySummary::Goodput>() == ListedFields<ReplaySummary::Goodput>(),
              "a member of ReplaySummary::Goodput is missing from its Fields()");
static_assert(MemberCount<ReplaySummary::Memory>() == ListedFields<ReplaySummary::Memory>(),
              "a member of ReplaySummary::Memory is missing from its Fields()");

}  // namespace summary_fields_detail

// How many plain figures there are (tests check each writer shows them all).
constexpr size_t kSummaryFieldCount =
    summary_fields_detail::ListedFields<ReplaySummary::Requests>() + summary_fields_detail::ListedFields<ReplaySummary::Concurrency>() +
    summary_fields_detail::ListedFields<ReplaySummary::Kv>() + summary_fields_detail::ListedFields<ReplaySummary::Throughput>() +
    summary_fields_detail::ListedFields<ReplaySummary::Goodput>() + summary_fields_detail::ListedFields<ReplaySummary::Memory>();

}  // namespace kvsim

#endif  // KVSIM_SIM_STATS_SUMMARY_FIELDS_H_
