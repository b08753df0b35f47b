// Outputs never destroy anything: an output that is the same file as an input or as
// another output is refused before anything runs; a full disk or device is exit 2 naming the
// file, with no temporary file left and an existing output untouched; sweep --find writes its CSV.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/cli/cli_process.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

// The first `rows` requests of the Azure code trace: a small real input to protect.
std::string SmallTrace(const testing::TempDir& dir, const std::string& name, int rows = 300) {
  std::istringstream in(testing::ReadFile(testing::SharedPath("traces/azure_2023/AzureLLMInferenceTrace_code.csv")));
  std::string text, line;
  for (int i = 0; i <= rows && std::getline(in, line); ++i) text += line + "\n";
  return dir.Write(name, text);
}

size_t FilesIn(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

void ExpectRefused(const std::vector<std::string>& args, const std::string& option) {
  const auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 2) << args[0] << " " << option << ": " << r.err;
  EXPECT_NE(r.err.find(option), std::string::npos) << r.err;
}

TEST(OutputSafetyTest, AnOutputThatIsAnInputIsRefusedAndTheInputSurvives) {
  const testing::TempDir dir;
  const std::string trace = SmallTrace(dir, "t.csv");
  const std::string original = testing::ReadFile(trace);
  const std::string dotted = dir.path() + "/./t.csv";
  const std::string hard = dir.File("hard.csv");
  ASSERT_EQ(::link(trace.c_str(), hard.c_str()), 0);
  const std::string sym = dir.File("sym.csv");
  ASSERT_EQ(::symlink(trace.c_str(), sym.c_str()), 0);
  ExpectRefused({"replay", "--trace", trace, "--quiet", "--json", trace}, "--json");
  ExpectRefused({"replay", "--trace", trace, "--quiet", "--json=" + dotted}, "--json");
  ExpectRefused({"replay", "--trace", hard, "--quiet", "--timeseries", trace}, "--timeseries");
  ExpectRefused({"replay", "--trace", sym, "--quiet", "--requests", trace}, "--requests");
  ExpectRefused({"replay", "--trace", trace, "--quiet", "--report", hard}, "--report");
  ExpectRefused({"sweep", "--sweep", "max-num-seqs=8,16", "--trace", trace, "--csv", hard}, "--csv");
  ExpectRefused({"compare", "--a", "--trace " + trace, "--b", "--trace " + trace, "--json", sym}, "--json");
  const std::string config = dir.Write("config.json", testing::LlamaConfig(4096, 14336, 32, 32, 8, 128256));
  ExpectRefused({"capacity", "--model", config, "--json", config}, "--json");
  ExpectRefused({"step", "--model", config, "--decode-seqs", "4", "--json", config}, "--json");
  EXPECT_EQ(testing::ReadFile(trace), original);
  EXPECT_TRUE(std::filesystem::is_symlink(sym));
  EXPECT_TRUE(testing::TempFilesIn(dir.path()).empty());
}

TEST(OutputSafetyTest, TwoOutputsOnOneFileAreRefusedBeforeAnythingIsWritten) {
  const testing::TempDir dir;
  const std::string a = dir.File("a.json");
  ExpectRefused({"replay", "--synthetic", "50", "--rate", "5", "--quiet", "--json", a, "--timeseries", dir.path() + "/./a.json"},
                "--timeseries");
  ExpectRefused({"replay", "--synthetic", "50", "--rate", "5", "--quiet", "--timeseries", a, "--requests", a}, "--requests");
  ExpectRefused({"sweep", "--sweep", "max-num-seqs=8,16", "--synthetic", "50", "--rate", "5", "--csv", a, "--json", a},
                "--json");
  ExpectRefused({"compare", "--a", "", "--b", "--max-num-seqs 8", "--synthetic", "50", "--rate", "5", "--json", "-",
                 "--report", "-"},
                "standard output");
  EXPECT_EQ(FilesIn(dir.path()), 0u);  // nothing written, no temporary file
  // /dev/null may take any number of outputs: writing to it destroys nothing.
  const auto ok = RunCli({"replay", "--synthetic", "50", "--rate", "5", "--quiet", "--json", "/dev/null", "--timeseries",
                          "/dev/null"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(OutputSafetyTest, AFullDeviceIsExitTwoNamingIt) {
  const testing::TempDir dir;
  const std::string full = testing::FullDevice(dir.path());
  if (full.empty()) GTEST_SKIP() << "no device that fails writes with ENOSPC here";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"replay", "--synthetic", "50", "--rate", "5", "--quiet", "--json", full},
        {"replay", "--synthetic", "50", "--rate", "5", "--quiet", "--timeseries", full},
        {"replay", "--synthetic", "50", "--rate", "5", "--quiet", "--report", full},
        {"sweep", "--sweep", "max-num-seqs=8,16", "--synthetic", "50", "--rate", "5", "--csv", full},
        {"capacity", "--json", full}}) {
    const auto r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(full + ": write failed (No space left on device)"), std::string::npos) << r.err;
  }
  // Standard output on a full device.
  const testing::TempDir logs;
  const auto r = testing::WaitCli(
      testing::StartCli({"replay", "--synthetic", "50", "--rate", "5", "--quiet", "--json", "-"}, full, logs.File("err")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("standard output: write failed"), std::string::npos) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(full.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device was replaced by a file";
}

// A disk that fills up in the middle of a streamed CSV (a file-size limit makes write(2) fail with
// EFBIG): exit 2 naming the file, the earlier version of the file untouched, no temporary file.
TEST(OutputSafetyTest, AWriteThatFailsMidStreamKeepsTheOldFileAndLeavesNoTemporary) {
  const testing::TempDir dir, logs;
  const std::string series = dir.Write("ts.csv", "the previous run's rows\n");
  const auto p = testing::StartCli({"replay", "--synthetic", "3000", "--rate", "50", "--quiet", "--timeseries", series},
                                   logs.File("stdout"), logs.File("stderr"), [] {
                                     std::signal(SIGXFSZ, SIG_IGN);
                                     const rlimit limit{64 << 10, 64 << 10};
                                     ::setrlimit(RLIMIT_FSIZE, &limit);
                                   });
  const auto r = testing::WaitCli(p);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(series + ": write failed (File too large)"), std::string::npos) << r.err;
  EXPECT_EQ(testing::ReadFile(series), "the previous run's rows\n");
  EXPECT_EQ(FilesIn(dir.path()), 1u);
}

TEST(OutputSafetyTest, AFailedRunLeavesAnExistingOutputUntouched) {
  const testing::TempDir dir;
  const std::string json = dir.Write("out.json", "keep");
  const std::string bad = dir.Write("bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\nnot-a-time,10,10\n");
  const auto r = RunCli({"replay", "--trace", bad, "--quiet", "--json", json, "--timeseries", dir.File("ts.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(testing::ReadFile(json), "keep");
  EXPECT_EQ(FilesIn(dir.path()), 2u);
}

// Was: 1e-10 s truncated to 0 ns (a SIGFPE in older builds, then sampling every step) and left
// its temporary file. The clock counts whole nanoseconds.
TEST(OutputSafetyTest, SampleIntervalBelowOneNanosecondIsAnError) {
  const testing::TempDir dir;
  for (const char* interval : {"1e-10", "1e30"}) {
    const auto r = RunCli({"replay", "--synthetic", "50", "--rate", "5", "--quiet", "--sample-interval", interval,
                           "--timeseries", dir.File("f.csv")});
    EXPECT_EQ(r.exit_code, 2) << interval;
    EXPECT_NE(r.err.find("--sample-interval"), std::string::npos) << r.err;
  }
  EXPECT_EQ(FilesIn(dir.path()), 0u);
  const auto ok = RunCli({"replay", "--synthetic", "50", "--rate", "5", "--quiet", "--sample-interval", "1e-9",
                          "--timeseries", dir.File("f.csv")});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(OutputSafetyTest, SweepFindWritesOneCsvRowPerProbe) {
  const testing::TempDir dir;
  const std::string csv = dir.File("probes.csv"), json = dir.File("probes.json");
  const auto r = RunCli({"sweep", "--find", "max-num-seqs", "--find-max", "8", "--synthetic", "200", "--rate", "5",
                         "--gpu", "l4", "--max-model-len", "4096", "--slo", "tpot-p99=10s", "--csv", csv, "--json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(testing::ReadFile(json));
  std::istringstream rows(testing::ReadFile(csv));
  std::string line;
  std::getline(rows, line);
  EXPECT_EQ(line.rfind("point,requests_per_s,", 0), 0u) << line;
  size_t n = 0;
  for (; std::getline(rows, line); ++n) EXPECT_EQ(line.rfind("\"max-num-seqs=", 0), 0u) << line;
  EXPECT_GE(n, 4u);  // caps 1, 2, 4, 8 at least
  EXPECT_EQ(n, j["probes"].size());
  EXPECT_FALSE(j.contains("partial"));
}

}  // namespace
}  // namespace kvsim
