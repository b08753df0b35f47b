// One figure of the replay summary as its writers see it: its name (the JSON key), its unit and the
// member that holds it, and which outputs show it. Each plain section of ReplaySummary lists its
// members once, in a Fields() beside them (sim/stats/replay_summary.h); VisitSummaryFields
// (sim/stats/summary_fields.h) walks those lists for the JSON, wire, CSV and HTML writers.
#ifndef KVSIM_SIM_STATS_SUMMARY_FIELD_H_
#define KVSIM_SIM_STATS_SUMMARY_FIELD_H_

namespace kvsim {

// Where a field appears besides JSON and the MPI wire, which carry every field: the sweep CSV (a
// column "section.name") and the HTML report's table of figures. A field those two outputs already
// show through a row of their own ("finished / rejected / total", a ratio, a rounded rate) is
// kJsonAndWire, so they do not show it twice; a new field is kEverywhere unless it gets such a row.
enum class FieldOutputs { kEverywhere, kJsonAndWire };

template <class Section, class T>
struct SummaryField {
  const char* name;  // the key in the section's JSON object
  const char* unit;  // for tables (GiB = 2^30 bytes)
  T Section::*member;
  FieldOutputs outputs;
};

template <class Section, class T>
constexpr SummaryField<Section, T> Field(const char* name, const char* unit, T Section::*member,
                                         FieldOutputs outputs = FieldOutputs::kEverywhere) {
  return {name, unit, member, outputs};
}

}  // namespace kvsim

#endif  // KVSIM_SIM_STATS_SUMMARY_FIELD_H_
