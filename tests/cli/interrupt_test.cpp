// Ctrl-C and friends: kvsim started on a big input (the bundled Azure
// conversation trace tiled with --repeat), a signal sent once the run is under way, then the exit
// code, the partial markers in every output and the absence of temporary files are checked.
// "Under way" is observed, not guessed, where kvsim shows it (a replay's temporary CSVs exist,
// a sweep has printed its point count), so a loaded machine only makes the tests slower.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <sstream>
#include <thread>

#include "tests/cli/cli_process.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using namespace std::chrono_literals;

// Waits (up to a minute) until `ready` holds, then a little longer so the work is well started.
void WaitUntil(const std::function<bool()>& ready) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!ready() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
  std::this_thread::sleep_for(300ms);
}

std::string LastLine(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) last = line;
  return last;
}

size_t DataRows(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  size_t n = 0;
  std::getline(in, line);  // header
  while (std::getline(in, line)) n += line.rfind("#", 0) != 0;
  return n;
}

struct ReplayRun {
  testing::TempDir dir, logs;
  testing::CliProcess process;
  ReplayRun() {
    process = testing::StartCli({"replay", "--repeat", "40", "--quiet", "--json", dir.File("a.json"), "--timeseries",
                                 dir.File("ts.csv"), "--requests", dir.File("rq.csv"), "--report", dir.File("r.html")},
                                logs.File("out"), logs.File("err"));
    // The CSVs' temporary files exist from just before the first step.
    WaitUntil([&] { return !testing::TempFilesIn(dir.path()).empty(); });
  }
};

TEST(InterruptTest, ReplayWritesItsOutputsSoFarMarkedPartialOnIntTermAndHup) {
  for (const auto& [sig, name] : {std::pair{SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}}) {
    SCOPED_TRACE(name);
    ReplayRun run;
    ASSERT_EQ(::kill(run.process.pid, sig), 0);
    const auto r = testing::WaitCli(run.process);
    EXPECT_EQ(r.exit_code, 128 + sig) << r.err;
    EXPECT_NE(r.err.find(std::string("interrupted by ") + name), std::string::npos) << r.err;
    const auto j = nlohmann::json::parse(testing::ReadFile(run.dir.File("a.json")));
    EXPECT_EQ(j.value("partial", false), true);
    EXPECT_LT(j["requests"]["finished"].get<int64_t>(), 40 * 19366);
    for (const char* csv : {"ts.csv", "rq.csv"}) {
      const std::string text = testing::ReadFile(run.dir.File(csv));
      EXPECT_EQ(LastLine(text).rfind(std::string("# partial: interrupted by ") + name + " at simulated ", 0), 0u)
          << csv << ": " << LastLine(text);
      EXPECT_GT(DataRows(text), 0u) << csv;
    }
    EXPECT_EQ(DataRows(testing::ReadFile(run.dir.File("rq.csv"))),
              static_cast<size_t>(j["requests"]["finished"].get<int64_t>() + j["requests"]["rejected"].get<int64_t>()));
    EXPECT_NE(testing::ReadFile(run.dir.File("r.html")).find("Partial"), std::string::npos);
    EXPECT_TRUE(testing::TempFilesIn(run.dir.path()).empty());
  }
}

// SIGQUIT, or a second Ctrl-C, ends the process at once: no outputs, and no temporary files either.
TEST(InterruptTest, QuitAndASecondCtrlCEndAtOnceLeavingNoTemporaryFiles) {
  for (const auto& [signals, expected] : {std::pair{std::vector<int>{SIGQUIT}, 128 + SIGQUIT},
                                          {std::vector<int>{SIGINT, SIGINT}, 128 + SIGINT}}) {
    ReplayRun run;
    for (int sig : signals) {
      ASSERT_EQ(::kill(run.process.pid, sig), 0);
      std::this_thread::sleep_for(1ms);
    }
    const auto r = testing::WaitCli(run.process);
    EXPECT_EQ(r.exit_code, expected) << r.err;  // killed by the signal, or (Ctrl-C) stopped cleanly
    EXPECT_TRUE(testing::TempFilesIn(run.dir.path()).empty());
    if (signals[0] == SIGQUIT) {
      EXPECT_FALSE(std::filesystem::exists(run.dir.File("ts.csv")));
    }
  }
}

TEST(InterruptTest, SweepWritesThePointsAlreadyFinished) {
  const testing::TempDir dir, logs;
  const std::string csv = dir.File("s.csv"), json = dir.File("s.json");
  const auto p = testing::StartCli({"sweep", "--sweep", "max-num-seqs=32,64,128,256", "--repeat", "60", "--jobs", "1",
                                    "--csv", csv, "--json", json},
                                   logs.File("out"), logs.File("err"));
  WaitUntil([&] { return testing::ReadFile(logs.File("err")).find("4 points") != std::string::npos; });
  std::this_thread::sleep_for(1s);  // about one point's time: usually one finishes, any number is valid
  ASSERT_EQ(::kill(p.pid, SIGINT), 0);
  const auto r = testing::WaitCli(p);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  const auto j = nlohmann::json::parse(testing::ReadFile(json));
  EXPECT_EQ(j.value("partial", false), true);
  EXPECT_EQ(j["points"].size() + j["unfinished"].size(), 4u);
  EXPECT_EQ(j["unfinished"][0]["reason"], "interrupted by SIGINT");
  const std::string text = testing::ReadFile(csv);
  EXPECT_EQ(DataRows(text), j["points"].size());
  EXPECT_EQ(LastLine(text).rfind("# partial: interrupted by SIGINT; ", 0), 0u) << LastLine(text);
  EXPECT_TRUE(testing::TempFilesIn(dir.path()).empty());
}

TEST(InterruptTest, SweepFindWritesItsProbesSoFar) {
  const testing::TempDir dir, logs;
  const std::string csv = dir.File("s.csv"), json = dir.File("s.json");
  const auto p = testing::StartCli({"sweep", "--find", "rate-scale", "--slo", "ttft-p99=5s", "--repeat", "60", "--csv",
                                    csv, "--json", json},
                                   logs.File("out"), logs.File("err"));
  std::this_thread::sleep_for(1500ms);
  ASSERT_EQ(::kill(p.pid, SIGTERM), 0);
  const auto r = testing::WaitCli(p);
  EXPECT_EQ(r.exit_code, 143) << r.err;
  const auto j = nlohmann::json::parse(testing::ReadFile(json));
  EXPECT_EQ(j.value("partial", false), true);
  EXPECT_EQ(j["found"], false);
  const std::string text = testing::ReadFile(csv);
  EXPECT_EQ(DataRows(text), j["probes"].size());
  EXPECT_EQ(LastLine(text).rfind("# partial: interrupted by SIGTERM; ", 0), 0u) << LastLine(text);
  EXPECT_NE(r.out.find("interrupted: no answer"), std::string::npos) << r.out;
  EXPECT_TRUE(testing::TempFilesIn(dir.path()).empty());
}

TEST(InterruptTest, CompareWritesTheDeploymentsAlreadyFinished) {
  const testing::TempDir dir, logs;
  const std::string json = dir.File("c.json");
  const auto p = testing::StartCli({"compare", "--a", "--max-num-seqs 32", "--b", "--max-num-seqs 64", "--c",
                                    "--max-num-seqs 128", "--repeat", "60", "--jobs", "1", "--json", json, "--report",
                                    dir.File("c.html")},
                                   logs.File("out"), logs.File("err"));
  std::this_thread::sleep_for(1500ms);
  ASSERT_EQ(::kill(p.pid, SIGTERM), 0);
  const auto r = testing::WaitCli(p);
  EXPECT_EQ(r.exit_code, 143) << r.err;
  const auto j = nlohmann::json::parse(testing::ReadFile(json));
  ASSERT_TRUE(j.is_object()) << "a partial compare is an object with \"partial\": true";
  EXPECT_EQ(j.value("partial", false), true);
  EXPECT_EQ(j["deployments"].size() + j["unfinished"].size(), 3u);
  EXPECT_EQ(j["unfinished"].back()["deployment"], "c: --max-num-seqs 128");
  EXPECT_EQ(j["unfinished"].back()["reason"], "interrupted by SIGTERM");
  EXPECT_TRUE(testing::TempFilesIn(dir.path()).empty());
}

}  // namespace
}  // namespace kvsim
