// How far kvsim's predictions have been from real servers, by regime: the spread of measured /
// predicted ratios over the serving runs and start-up logs in data/validation, recomputed by
// scripts/error_bands.py into data/validation/error_bands.csv (never typed in). A plan multiplies
// a predicted latency by a band's edges to say whether an SLO still holds at the pessimistic edge.
#ifndef KVSIM_SIM_STATS_ERROR_BANDS_H_
#define KVSIM_SIM_STATS_ERROR_BANDS_H_

#include <string>
#include <vector>

#include "kvcache/base/enum_names.h"

namespace kvsim {

enum class ErrorMetric { kTtft, kTpot, kE2e, kThroughput };
template <>
struct EnumNames<ErrorMetric> {
  static constexpr EnumEntry<ErrorMetric> kEntries[] = {{ErrorMetric::kTtft, "ttft"},
                                                        {ErrorMetric::kTpot, "tpot"},
                                                        {ErrorMetric::kE2e, "e2e"},
                                                        {ErrorMetric::kThroughput, "throughput"}};
};

enum class ModelClass { kDense, kMoe };
template <>
struct EnumNames<ModelClass> {
  static constexpr EnumEntry<ModelClass> kEntries[] = {{ModelClass::kDense, "dense"}, {ModelClass::kMoe, "moe"}};
};

// Offered load relative to what the deployment can serve (the replay's saturation point).
enum class LoadRegime { kLight, kModerate, kSaturated };
template <>
struct EnumNames<LoadRegime> {
  static constexpr EnumEntry<LoadRegime> kEntries[] = {
      {LoadRegime::kLight, "light"}, {LoadRegime::kModerate, "moderate"}, {LoadRegime::kSaturated, "saturated"}};
};

// utilization = mean running requests per replica / max-num-seqs: how close a replica runs to the
// batch its scheduler saturates at (sim/plan/plan_bands.h RegimeOf; scripts/error_bands.py alike).
// Below kLightLoadBelow requests rarely queue; from kSaturatedLoadFrom on the batch is full.
// scripts/error_bands.py reads these two constants from this header so both classify alike.
inline constexpr double kLightLoadBelow = 0.5;
inline constexpr double kSaturatedLoadFrom = 0.9;
LoadRegime ClassifyLoad(double utilization);

struct ErrorRegime {
  ModelClass model = ModelClass::kDense;
  std::string gpu_family;  // "ampere", "ada", "hopper", "blackwell" (the GPU table's generation); a
                           // family without rows (or "") is answered by any GPU family
  LoadRegime load = LoadRegime::kModerate;
};

// measured / predicted lies in [low, high] for the stated share of the runs in the regime.
struct ErrorBand {
  double low = 1;
  double high = 1;
  int runs = 0;            // runs the band was computed from; 0: no data, the band is [1, 1]
  std::string regime;      // the regime actually used ("dense/hopper/moderate", or a wider fallback)
};

class ErrorBands {
 public:
  // A regime's band is used only when it was computed from at least this many runs; with fewer,
  // the next wider regime answers.
  static constexpr int kMinRuns = 3;

  // An empty table: every band is [1, 1] with runs = 0.
  ErrorBands() = default;
  // Reads the CSV scripts/error_bands.py writes. Throws kvsim::Error naming the file, line and field.
  static ErrorBands Read(const std::string& path);

  // The band for a latency metric in a regime; when the exact regime has too few runs, the nearest
  // wider one (any load, then any GPU family, then any model class), named in ErrorBand::regime and
  // widened to hold the ratios of the thinner regimes passed on the way (their runs are measured
  // errors too). No row with kMinRuns runs: [1, 1] with runs = 0.
  ErrorBand For(ErrorMetric metric, const ErrorRegime& regime) const;
  // The validated start-up memory error (KV-cache GiB, measured / predicted): the "kv_gib" row.
  ErrorBand Memory() const;

  struct Row {
    std::string metric;  // ErrorMetric name or "kv_gib"
    std::string model;   // ModelClass name or "*"
    std::string gpu_family;  // or "*"
    std::string load;    // LoadRegime name or "*"
    ErrorBand band;
  };
  const std::vector<Row>& rows() const { return rows_; }

 private:
  std::vector<Row> rows_;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_STATS_ERROR_BANDS_H_
