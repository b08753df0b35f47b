// ErrorBands reads the table scripts/error_bands.py writes and answers a regime with its own band or
// the nearest wider one that has enough runs. The tables here are written by hand; every expected
// band is a row of the table the fallback order of the header picks.
#include <gtest/gtest.h>

#include <string>

#include "kvcache/base/error.h"
#include "sim/stats/error_bands.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::TempDir;

// Hopper dense runs are plentiful at moderate load, thin at light load (2 runs, inside the Hopper
// band) and saturated load (1 run, above it); one Ada dense band of 3 runs; the MoE rows have 2 runs
// at most, so MoE falls back to */*/*, widened to the MoE runs' lowest ratio and highest ratio.
const char kTable[] =
    "# written by hand for error_bands_test\n"
    "metric,model,gpu_family,load,runs,low,high\n"
    "ttft,dense,hopper,moderate,5,1.10,1.90\n"
    "ttft,dense,hopper,light,2,1.50,1.70\n"
    "ttft,dense,hopper,saturated,1,2.10,2.40\n"
    "ttft,dense,hopper,*,7,1.12,1.85\n"
    "ttft,dense,ada,*,3,0.80,1.30\n"
    "ttft,dense,*,*,10,0.85,1.80\n"
    "ttft,moe,hopper,moderate,2,0.60,1.05\n"
    "ttft,moe,*,*,2,0.60,1.80\n"
    "ttft,*,*,*,12,0.90,1.75\n"
    "tpot,dense,hopper,moderate,5,0.85,0.95\n"
    "kv_gib,*,*,*,40,0.97,1.02\n";

ErrorRegime Regime(ModelClass model, const std::string& family, LoadRegime load) { return {model, family, load}; }

void ExpectBand(const ErrorBand& b, double low, double high, int runs, const std::string& regime) {
  EXPECT_DOUBLE_EQ(b.low, low) << b.regime;
  EXPECT_DOUBLE_EQ(b.high, high) << b.regime;
  EXPECT_EQ(b.runs, runs) << b.regime;
  EXPECT_EQ(b.regime, regime);
}

TEST(ErrorBandsTest, ClassifiesLoadAtTheHeadersThresholds) {
  EXPECT_EQ(ClassifyLoad(0.0), LoadRegime::kLight);
  EXPECT_EQ(ClassifyLoad(0.49), LoadRegime::kLight);
  EXPECT_EQ(ClassifyLoad(0.5), LoadRegime::kModerate);
  EXPECT_EQ(ClassifyLoad(0.89), LoadRegime::kModerate);
  EXPECT_EQ(ClassifyLoad(0.9), LoadRegime::kSaturated);
  EXPECT_EQ(ClassifyLoad(3.0), LoadRegime::kSaturated);
}

TEST(ErrorBandsTest, AnEmptyTableAnswersOneToOneWithNoRuns) {
  const ErrorBands none;
  ExpectBand(none.For(ErrorMetric::kTtft, Regime(ModelClass::kDense, "hopper", LoadRegime::kLight)), 1, 1, 0,
             "no validation data");
  ExpectBand(none.Memory(), 1, 1, 0, "no validation data");
}

TEST(ErrorBandsTest, FallsBackToTheNearestWiderRegimeWithThreeRuns) {
  TempDir dir;
  const ErrorBands bands = ErrorBands::Read(dir.Write("bands.csv", kTable));
  ASSERT_EQ(bands.rows().size(), 11u);
  // The exact regime has 5 runs.
  ExpectBand(bands.For(ErrorMetric::kTtft, Regime(ModelClass::kDense, "hopper", LoadRegime::kModerate)), 1.10, 1.90,
             5, "dense/hopper/moderate");
  // Light load has 2 runs: any load on Hopper.
  ExpectBand(bands.For(ErrorMetric::kTtft, Regime(ModelClass::kDense, "hopper", LoadRegime::kLight)), 1.12, 1.85, 7,
             "dense/hopper/*");
  // The one saturated run (2.10..2.40) lies above the Hopper band: [1.12, 2.40].
  ExpectBand(bands.For(ErrorMetric::kTtft, Regime(ModelClass::kDense, "hopper", LoadRegime::kSaturated)), 1.12, 2.40,
             7, "dense/hopper/*, widened to hold dense/hopper/saturated (1 run)");
  // Ada has only the any-load row, with exactly the 3 runs a band needs.
  ExpectBand(bands.For(ErrorMetric::kTtft, Regime(ModelClass::kDense, "ada", LoadRegime::kLight)), 0.80, 1.30, 3,
             "dense/ada/*");
  // Blackwell has nothing: any GPU family of dense models.
  ExpectBand(bands.For(ErrorMetric::kTtft, Regime(ModelClass::kDense, "blackwell", LoadRegime::kLight)), 0.85, 1.80,
             10, "dense/*/*");
  // An unknown family, or none, is any GPU family.
  ExpectBand(bands.For(ErrorMetric::kTtft, Regime(ModelClass::kDense, "", LoadRegime::kLight)), 0.85, 1.80, 10,
             "dense/*/*");
  // MoE rows all have 2 runs: every model class, [0.90, 1.75] widened to [0.60, 1.80].
  ExpectBand(bands.For(ErrorMetric::kTtft, Regime(ModelClass::kMoe, "hopper", LoadRegime::kModerate)), 0.60, 1.80, 12,
             "*/*/*, widened to hold moe/hopper/moderate (2 runs) and moe/*/* (2 runs)");
  // MoE on Ada has no regime of its own: moe/*/* (0.60..1.80) still widens */*/*.
  ExpectBand(bands.For(ErrorMetric::kTtft, Regime(ModelClass::kMoe, "ada", LoadRegime::kLight)), 0.60, 1.80, 12,
             "*/*/*, widened to hold moe/*/* (2 runs)");
  // TPOT has one row; E2E and throughput none.
  ExpectBand(bands.For(ErrorMetric::kTpot, Regime(ModelClass::kDense, "hopper", LoadRegime::kModerate)), 0.85, 0.95, 5,
             "dense/hopper/moderate");
  ExpectBand(bands.For(ErrorMetric::kTpot, Regime(ModelClass::kMoe, "hopper", LoadRegime::kModerate)), 1, 1, 0,
             "no validation data");
  ExpectBand(bands.For(ErrorMetric::kE2e, Regime(ModelClass::kDense, "hopper", LoadRegime::kModerate)), 1, 1, 0,
             "no validation data");
  ExpectBand(bands.Memory(), 0.97, 1.02, 40, "*/*/*");
}

TEST(ErrorBandsTest, AMemoryRowWithTooFewLogsIsNoBand) {
  TempDir dir;
  const ErrorBands bands =
      ErrorBands::Read(dir.Write("bands.csv", "metric,model,gpu_family,load,runs,low,high\nkv_gib,*,*,*,2,0.9,1.1\n"));
  ExpectBand(bands.Memory(), 1, 1, 0, "no validation data");
}

// Reads `text` and expects one kvsim::Error whose message holds every part of `parts`.
void ExpectReadError(const std::string& text, std::initializer_list<std::string> parts) {
  TempDir dir;
  const std::string path = dir.Write("bad.csv", text);
  try {
    ErrorBands::Read(path);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    for (const std::string& p : parts) EXPECT_NE(what.find(p), std::string::npos) << what << " lacks " << p;
  }
}

TEST(ErrorBandsTest, RefusesBadTablesNamingFileLineAndField) {
  const std::string h = "metric,model,gpu_family,load,runs,low,high\n";
  ExpectReadError("", {"empty file"});
  ExpectReadError("metric,model,gpu_family,load,runs,low\n", {":1:", "missing column 'high'"});
  ExpectReadError(h.substr(0, h.size() - 1) + ",median\n", {":1:", "unknown column 'median'"});
  ExpectReadError(h + "ttft,dense,hopper,moderate,5,1.1\n", {":2:", "6 cells"});
  ExpectReadError(h + "itl,dense,hopper,moderate,5,1.1,1.2\n", {":2:", "column metric", "'itl'"});
  ExpectReadError(h + "ttft,sparse,hopper,moderate,5,1.1,1.2\n", {":2:", "column model", "'sparse'"});
  ExpectReadError(h + "ttft,dense,Hopper H100,moderate,5,1.1,1.2\n", {":2:", "column gpu_family"});
  ExpectReadError(h + "ttft,dense,hopper,heavy,5,1.1,1.2\n", {":2:", "column load", "'heavy'"});
  ExpectReadError(h + "ttft,dense,hopper,light,0,1.1,1.2\n", {":2:", "column runs"});
  ExpectReadError(h + "ttft,dense,hopper,light,2.5,1.1,1.2\n", {":2:", "column runs"});
  ExpectReadError(h + "ttft,dense,hopper,light,5,-1,1.2\n", {":2:", "column low"});
  ExpectReadError(h + "ttft,dense,hopper,light,5,1.1,nan\n", {":2:", "column high"});
  ExpectReadError(h + "ttft,dense,hopper,light,5,1.3,1.2\n", {":2:", "above column high"});
  ExpectReadError(h + "kv_gib,dense,*,*,5,0.9,1.1\n", {":2:", "kv_gib"});
  ExpectReadError("# provenance\n" + h + "ttft,*,*,*,5,0.9,1.1\n\nttft,*,*,*,6,0.8,1.2\n", {":5:", "second row"});
}

// The table the script ships reads, and every metric has a band over all runs, so every regime has
// an answer. Its figures are checked where they are computed (the error_bands_cover CTest).
TEST(ErrorBandsTest, TheShippedTableReadsAndAnswersEveryRegime) {
  const ErrorBands bands = ErrorBands::Read(std::string(KVSIM_DATA_DIR_FOR_TESTS) + "/validation/error_bands.csv");
  for (ErrorMetric metric : EnumValues<ErrorMetric>())
    for (ModelClass model : EnumValues<ModelClass>())
      for (LoadRegime load : EnumValues<LoadRegime>()) {
        const ErrorBand b = bands.For(metric, {model, "ada", load});
        EXPECT_GE(b.runs, ErrorBands::kMinRuns) << NameOf(metric) << " " << b.regime;
        EXPECT_LE(b.low, b.high) << b.regime;
      }
  EXPECT_GE(bands.Memory().runs, ErrorBands::kMinRuns);
}

TEST(ErrorBandsTest, AMissingFileIsAnError) {
  EXPECT_THROW(ErrorBands::Read("/nonexistent/error_bands.csv"), Error);
}

}  // namespace
}  // namespace kvsim
