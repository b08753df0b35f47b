// Input defects, each through the kvsim executable: numeric options with their ranges,
// traces read once from a FIFO or stdin, over-long lines, the sweep search that never converged.
// The expected figures are the documented ranges (README "Limits, errors and exit codes").
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::ExpectOneLineError;
using testing::RunCli;

constexpr const char* kAzure =
    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    "2023-11-16 18:15:46.6805900,374,44\n"
    "2023-11-16 18:15:50.9951690,396,109\n"
    "2023-11-16 18:15:51.0000000,100,10\n";

TEST(InputLimitsTest, NanInfAndOutOfRangeNumericOptionsNameTheRange) {
  ExpectOneLineError(RunCli({"replay", "--rate-scale", "nan"}), "--rate-scale: nan is outside the accepted range [0.001, 1e+06]");
  ExpectOneLineError(RunCli({"replay", "--rate-scale", "inf"}), "--rate-scale: inf is outside");
  ExpectOneLineError(RunCli({"replay", "--rate-scale", "1e-10"}), "--rate-scale: 1e-10 is outside the accepted range");
  ExpectOneLineError(RunCli({"replay", "--duration", "1e10"}), "--duration: 1e+10 is outside the accepted range (0, 1e+09]");
  ExpectOneLineError(RunCli({"replay", "--start", "1e10"}), "--start: 1e+10 is outside the accepted range [0, 1e+09]");
  ExpectOneLineError(RunCli({"replay", "--start", "-1"}), "--start: -1 is outside");
  ExpectOneLineError(RunCli({"replay", "--step-time-ms", "0"}), "--step-time-ms: 0 is outside the accepted range (0, 1e+06]");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "-inf"}), "--rate: -inf is outside");
  ExpectOneLineError(RunCli({"step", "--compute-efficiency", "nan"}), "--compute-efficiency: nan is outside the accepted range (0, 1]");
  ExpectOneLineError(RunCli({"sweep", "--find", "rate-scale", "--precision", "1e-16"}),
                     "--precision: 1e-16 is outside the accepted range [1e-06, 0.5]");
  ExpectOneLineError(RunCli({"validate", "--min-kv-pass", "nan"}), "--min-kv-pass: nan is outside the accepted range [0, 1]");
  ExpectOneLineError(RunCli({"capacity", "--gpu-memory-utilization", "nan"}), "--gpu-memory-utilization");
  ExpectOneLineError(RunCli({"capacity", "--max-model-len", "1e30"}), "--max-model-len");
  ExpectOneLineError(RunCli({"capacity", "--kv-cache-memory", "1e30"}), "--kv-cache-memory: 1e+30 is outside");
  ExpectOneLineError(RunCli({"sweep", "--sweep", "max-num-seqs=8", "--slo", "ttft-p99=nan"}), "--slo: 'ttft-p99=nan'");
}

TEST(InputLimitsTest, AbsurdLengthsAreRejectedNotTruncated) {
  // 1e30 used to become 1 token (an out-of-range float-to-int conversion).
  ExpectOneLineError(RunCli({"replay", "--synthetic", "5", "--rate", "1", "--prompt-len", "fixed:1e30"}),
                     "--prompt-len: 'fixed:1e30': '1e30' must be a number in (0, 4.29497e+09]");
}

TEST(InputLimitsTest, ValidateOnAMissingDirectoryIsBadInput) {
  ExpectOneLineError(RunCli({"validate", "--configs", "/nonexistent"}), "/nonexistent");
}

TEST(InputLimitsTest, ErrorsAreOneLineWithoutUsageText) {
  const auto r = RunCli({"replay", "--rate-scale", "zero"});
  ExpectOneLineError(r, "--rate-scale");
  EXPECT_EQ(r.err.find("Options"), std::string::npos) << r.err;
}

TEST(InputLimitsTest, RateSearchEndsAtTheFinestAcceptedPrecision) {
  // --precision 1e-16 spun forever: the geometric midpoint rounds to an end of the bracket.
  // The finest accepted precision (1e-6) needs ~20 bisections of a 2x bracket.
  const auto r = RunCli({"sweep", "--find", "rate-scale", "--precision", "1e-6", "--gpu", "h100", "--max-requests", "30",
                         "--slo", "ttft-p99=2s", "--json", "-"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Opens the FIFO's write end once a reader has it (O_NONBLOCK fails with ENXIO until then), so a
// kvsim that never opens it cannot hang the test.
void FeedFifo(const std::string& path, const std::string& text) {
  for (int i = 0; i < 2000; ++i) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) {
      ::fcntl(fd, F_SETFL, 0);
      size_t done = 0;
      while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      ::close(fd);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(InputLimitsTest, FifoTraceIsReadOnce) {
  const testing::TempDir dir;
  const std::string fifo = dir.File("trace.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer(FeedFifo, fifo, std::string(kAzure));
  const auto r = RunCli({"replay", "--trace", fifo, "--trace-format", "azure", "--gpu", "h100", "--json", "-", "--quiet"});
  writer.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["requests"]["finished"].get<int64_t>(), 3) << r.out;
}

// A FIFO can be read only once, so a 64-point sweep over a trace fed through one completes only
// when the trace is parsed once and every point replays the parsed copy.
TEST(InputLimitsTest, SweepParsesItsTraceOnceForEveryPoint) {
  const testing::TempDir dir;
  const std::string fifo = dir.File("trace.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string mooncake =
      "{\"timestamp\": 0, \"input_length\": 1200, \"output_length\": 8, \"hash_ids\": [1, 2, 3]}\n"
      "{\"timestamp\": 50, \"input_length\": 1100, \"output_length\": 4, \"hash_ids\": [1, 2, 4]}\n"
      "{\"timestamp\": 90, \"input_length\": 700, \"output_length\": 6, \"hash_ids\": [5, 6]}\n";
  std::thread writer(FeedFifo, fifo, mooncake);
  const std::string json = dir.File("sweep.json");
  const auto r = RunCli({"sweep", "--trace", fifo, "--trace-format", "mooncake", "--gpu", "h100", "--json", json,
                         "--sweep", "max-num-seqs=1,2,3,4,5,6,7,8",
                         "--sweep", "max-num-batched-tokens=512,1024,2048,4096,8192,16384,32768,65536"});
  writer.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(testing::ReadFile(json));
  ASSERT_EQ(j["points"].size(), 64u);
  for (const auto& p : j["points"]) EXPECT_EQ(p["summary"]["requests"]["finished"].get<int64_t>(), 3) << p;
}

TEST(InputLimitsTest, FifoWithoutFormatOrWithRepeatIsAClearError) {
  const testing::TempDir dir;
  const std::string fifo = dir.File("trace.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ExpectOneLineError(RunCli({"replay", "--trace", fifo, "--gpu", "h100"}), "give --trace-format");
  std::thread writer(FeedFifo, fifo, std::string(kAzure));
  const auto r = RunCli({"replay", "--trace", fifo, "--trace-format", "azure", "--repeat", "2", "--gpu", "h100"});
  writer.join();
  ExpectOneLineError(r, "can be read only once; --repeat needs a regular file");
}

TEST(InputLimitsTest, StdinTrace) {
  const testing::TempDir dir;
  const std::string trace = dir.Write("t.csv", kAzure);
  const std::string cmd = std::string("cat '") + trace + "' | '" + KVSIM_BIN +
                          "' replay --trace - --trace-format azure --gpu h100 --json - --quiet > '" + dir.File("out") +
                          "' 2> '" + dir.File("err") + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << testing::ReadFile(dir.File("err"));
  const auto j = nlohmann::json::parse(testing::ReadFile(dir.File("out")));
  EXPECT_EQ(j["requests"]["finished"].get<int64_t>(), 3);
}

TEST(InputLimitsTest, OverlongLineIsAnErrorWithItsLineNumber) {
  const testing::TempDir dir;
  const std::string trace =
      dir.Write("long.csv", std::string(kAzure) + "2023-11-16 18:15:52," + std::string(2 << 20, '7') + ",4\n");
  ExpectOneLineError(RunCli({"replay", "--trace", trace, "--gpu", "h100"}), ":5: line longer than 1 MiB");
  const std::string config = dir.Write("config.json", "{\"pad\": \"" + std::string(3 << 20, 'x') + "\"}");
  ExpectOneLineError(RunCli({"capacity", "--model", config}), ":1: line longer than 1 MiB");
}

TEST(InputLimitsTest, WindowArithmeticStaysInRange) {
  // The largest accepted --start/--duration and the smallest --rate-scale are computed exactly
  // (no signed overflow under UBSan): nothing is left in a 1e9 s window starting at 1e9 s.
  const testing::TempDir dir;
  const std::string trace = dir.Write("t.csv", kAzure);
  const auto r = RunCli({"replay", "--trace", trace, "--gpu", "h100", "--start", "1e9", "--duration", "1e9",
                         "--rate-scale", "0.001", "--json", "-", "--quiet"});
  EXPECT_NE(r.exit_code, 3) << r.err;
  const auto scaled = RunCli({"replay", "--trace", trace, "--gpu", "h100", "--rate-scale", "0.001", "--json", "-", "--quiet"});
  ASSERT_EQ(scaled.exit_code, 0) << scaled.err;
  EXPECT_EQ(nlohmann::json::parse(scaled.out)["requests"]["finished"].get<int64_t>(), 3);
}

}  // namespace
}  // namespace kvsim

namespace kvsim {
namespace {

TEST(InputLimitsTest, OptionParserPlaceholdersInArgumentsDoNotHang) {
  // Boost.Program_options looped forever filling "%original_token%" into its own message.
  ExpectOneLineError(RunCli({"validate", "--m%original_token%in-weights-pass", "4"}), "is reserved by the option parser");
  ExpectOneLineError(RunCli({"capacity", "--max-num-seqs", "%value%"}), "is reserved by the option parser");
}

// tests/fuzz/regressions/fuzz_cli_options/: the first byte picks the command, NUL or newline
// separate the arguments, "--help" comes first (as in the fuzz target). None may be an internal error.
TEST(FuzzRegressionTest, CliOptions) {
  static const char* kCommands[] = {"capacity", "step", "calibrate", "replay", "sweep", "compare", "models", "gpus", "validate"};
  const std::string dir = std::string(KVSIM_TEST_SOURCE_DIR) + "/fuzz/regressions/fuzz_cli_options";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string bytes = testing::ReadFile(e.path().string());
    if (bytes.empty()) continue;
    SCOPED_TRACE(e.path().string());
    std::vector<std::string> args = {kCommands[static_cast<unsigned char>(bytes[0]) % 9], "--help"};
    std::string cur;
    for (size_t i = 1; i < bytes.size(); ++i) {
      if (bytes[i] == '\0' || bytes[i] == '\n') {
        args.push_back(cur);
        cur.clear();
      } else {
        cur += bytes[i];
      }
    }
    if (!cur.empty()) args.push_back(cur);
    const auto r = RunCli(args);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.err;
  }
}

}  // namespace
}  // namespace kvsim
