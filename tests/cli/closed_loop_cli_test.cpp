// Benchmarks as people run them: closed-loop load (`vllm bench serve --max-concurrency N`) and the
// benchmarks' datasets by name, run through the CLI. Every figure is derived by hand from a fixed
// step time, so it checks the clients' pacing, not the step model.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::ExpectOneLineError;
using testing::ReplayJson;
using testing::RunCli;

// Llama-3.1-8B on one H100, every step 10 ms: a request of P prompt tokens (P <= the step budget)
// and O output tokens takes O steps from an idle engine (its prefill samples the first token).
std::vector<std::string> Fixed(std::vector<std::string> extra) {
  std::vector<std::string> a = {"--gpu", "h100", "--max-model-len", "4096", "--step-time-ms", "10", "--no-async-scheduling"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

double Get(const nlohmann::json& j, const char* section, const char* key) { return j.at(section).at(key).get<double>(); }
double Latency(const nlohmann::json& j, const char* metric, const char* stat) {
  return j.at("latency_s").at(metric).at(stat).get<double>();
}

// One client: each request is sent when the previous one ends, so the engine always holds one
// request. 12 requests x 8 steps x 10 ms = 0.96 s; TTFT one step, TPOT one step, 12.5 requests/s.
TEST(ClosedLoopCliTest, OneClientSendsEachRequestWhenTheLastEnds) {
  const nlohmann::json j = ReplayJson(Fixed({"--synthetic", "12", "--max-concurrency", "1", "--prompt-len", "fixed:100",
                                             "--output-len", "fixed:8"}));
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j.at("requests").at("finished").get<int64_t>(), 12);
  EXPECT_EQ(j.at("concurrency").at("peak_running").get<int64_t>(), 1);
  EXPECT_NEAR(Get(j, "throughput", "simulated_s"), 0.96, 1e-9);
  EXPECT_NEAR(Get(j, "throughput", "requests_per_s"), 12.5, 1e-6);
  EXPECT_NEAR(Latency(j, "server_ttft", "p99"), 0.010, 1e-9);
  EXPECT_NEAR(Latency(j, "tpot", "mean"), 0.010, 1e-9);
  EXPECT_NE(j.at("config").at("trace").get<std::string>().find("closed loop of 1 clients"), std::string::npos);
}

// Four clients, 12 requests sent at once (rate inf, vllm bench serve's default): three waves of
// four, each one 400-token prefill step (within the 2,048-token budget) and 7 decode steps:
// 3 x 80 ms = 0.24 s, 50 requests/s, never more than four running. Open loop, all twelve would run.
TEST(ClosedLoopCliTest, FourClientsRunInWavesOfFour) {
  const nlohmann::json j = ReplayJson(Fixed({"--synthetic", "12", "--max-concurrency", "4", "--prompt-len", "fixed:100",
                                             "--output-len", "fixed:8"}));
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j.at("concurrency").at("peak_running").get<int64_t>(), 4);
  EXPECT_NEAR(Get(j, "throughput", "simulated_s"), 0.24, 1e-9);
  EXPECT_NEAR(Get(j, "throughput", "requests_per_s"), 50, 1e-6);
  EXPECT_NEAR(Latency(j, "server_ttft", "p99"), 0.010, 1e-9);  // each sent as a client frees, into an idle engine
  const nlohmann::json open = ReplayJson(Fixed({"--synthetic", "12", "--rate", "1e9", "--prompt-len", "fixed:100",
                                                "--output-len", "fixed:8"}));
  ASSERT_FALSE(open.empty());
  EXPECT_EQ(open.at("concurrency").at("peak_running").get<int64_t>(), 12);
}

// With a request rate the requests are scheduled as in the open loop, and each is sent at the later
// of its scheduled time and its client's last reply: send(i) = max(scheduled(i), send(i-1) + 80 ms)
// for one client, computed here from the open loop's arrivals (every request takes 8 steps alone).
TEST(ClosedLoopCliTest, ARequestRateStillSchedulesTheRequests) {
  const testing::TempDir dir;
  const std::vector<std::string> common = {"--synthetic", "30", "--rate", "20", "--prompt-len", "fixed:100", "--output-len",
                                           "fixed:8"};
  auto arrivals = [&](std::vector<std::string> extra, const std::string& name) {
    std::vector<std::string> args = Fixed(common);
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--requests", dir.File(name)});
    EXPECT_FALSE(ReplayJson(args).empty());
    std::vector<double> at;
    std::istringstream rows(testing::ReadFile(dir.File(name)));
    std::string row;
    std::getline(rows, row);  // header: id,arrival_s,...
    while (std::getline(rows, row)) at.push_back(std::stod(row.substr(row.find(',') + 1)));
    return at;
  };
  const std::vector<double> scheduled = arrivals({}, "open.csv");
  const std::vector<double> sent = arrivals({"--max-concurrency", "1"}, "closed.csv");
  ASSERT_EQ(scheduled.size(), 30u);
  ASSERT_EQ(sent.size(), 30u);
  double expected = 0;
  int waited = 0;
  for (size_t i = 0; i < scheduled.size(); ++i) {
    expected = i == 0 ? scheduled[0] : std::max(scheduled[i], expected + 0.080);
    waited += expected > scheduled[i] + 1e-9;
    EXPECT_NEAR(sent[i], expected, 2e-6) << "request " << i;
  }
  EXPECT_GT(waited, 5);  // at 20/s against 12.5/s of service the client is the bottleneck often
}

// Two replicas behind round-robin, two clients: each replica serves one request at a time, both in
// lockstep: 10 requests = 5 rounds of 80 ms = 0.4 s.
TEST(ClosedLoopCliTest, ClientsSpanTheFleet) {
  const nlohmann::json j = ReplayJson(Fixed({"--synthetic", "10", "--max-concurrency", "2", "--replicas", "2",
                                             "--prompt-len", "fixed:100", "--output-len", "fixed:8"}));
  ASSERT_FALSE(j.empty());
  EXPECT_NEAR(Get(j, "throughput", "simulated_s"), 0.40, 1e-9);
  EXPECT_NEAR(Latency(j, "server_ttft", "p99"), 0.010, 1e-9);
}

// vllm bench serve --dataset-name random with range ratio 0: every prompt is the prefix plus the
// input length; 160 = 10 blocks of 16 tokens are shared, so with one client every request after the
// first finds them (prefix caching on by default): hit tokens 9 x 160.
TEST(ClosedLoopCliTest, RandomDatasetByName) {
  const nlohmann::json j = ReplayJson(Fixed({"--synthetic", "10", "--max-concurrency", "1", "--dataset-name", "random",
                                             "--random-input-len", "200", "--random-output-len", "8",
                                             "--random-prefix-len", "160"}));
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j.at("prefix_cache").at("queried_tokens").get<int64_t>(), 10 * 360);
  EXPECT_EQ(j.at("prefix_cache").at("hit_tokens").get<int64_t>(), 9 * 160);
  EXPECT_NEAR(Get(j, "throughput", "simulated_s"), 10 * 0.080, 1e-9);
}

// Range ratio R draws lengths uniformly from [floor(L(1-R)), ceil(L(1+R))]: 0.5 of 100 gives 50..150
// and of 10 gives 5..15, both ends reached over 400 requests.
TEST(ClosedLoopCliTest, RandomDatasetRangeRatio) {
  const testing::TempDir dir;
  const nlohmann::json j = ReplayJson({"--synthetic", "400", "--rate", "50", "--dataset-name", "random", "--random-input-len",
                                       "100", "--random-output-len", "10", "--random-range-ratio", "0.5", "--requests",
                                       dir.File("r.csv"), "--gpu", "h100", "--max-model-len", "4096"});
  ASSERT_FALSE(j.empty());
  std::istringstream rows(testing::ReadFile(dir.File("r.csv")));
  std::string row;
  std::getline(rows, row);  // id,arrival_s,admitted_s,first_token_s,finished_s,prompt_tokens,output_tokens,...
  int64_t lo_in = 1 << 30, hi_in = 0, lo_out = 1 << 30, hi_out = 0;
  while (std::getline(rows, row)) {
    std::vector<std::string> cells;
    std::istringstream cut(row);
    for (std::string c; std::getline(cut, c, ',');) cells.push_back(c);
    ASSERT_GE(cells.size(), 7u);
    const int64_t in = std::stoll(cells[5]), out = std::stoll(cells[6]);
    lo_in = std::min(lo_in, in), hi_in = std::max(hi_in, in), lo_out = std::min(lo_out, out), hi_out = std::max(hi_out, out);
  }
  EXPECT_EQ(lo_in, 50);
  EXPECT_EQ(hi_in, 150);
  EXPECT_EQ(lo_out, 5);
  EXPECT_EQ(hi_out, 15);
}

// vLLM's prefix_repetition: 4 prefixes x (12 / 4) prompts, prefix 64 (4 blocks) + suffix 64; one
// client, so each prefix misses once: hits (12 - 4) x 64 tokens of 12 x 128.
TEST(ClosedLoopCliTest, PrefixRepetitionDatasetByName) {
  const nlohmann::json j = ReplayJson(Fixed({"--synthetic", "12", "--max-concurrency", "1", "--dataset-name",
                                             "prefix_repetition", "--prefix-repetition-prefix-len", "64",
                                             "--prefix-repetition-suffix-len", "64", "--prefix-repetition-num-prefixes", "4",
                                             "--prefix-repetition-output-len", "8"}));
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j.at("prefix_cache").at("queried_tokens").get<int64_t>(), 12 * 128);
  EXPECT_EQ(j.at("prefix_cache").at("hit_tokens").get<int64_t>(), 8 * 64);
}

// inference-perf's shared_prefix: 2 groups x 3 prompts, sent round and round: 12 requests are each
// of the 6 prompts twice. One client: the 6 first sends hit their group's system prompt (48 tokens,
// 3 blocks) except the first of each group; the 6 repeats find all 5 blocks of their 80-token
// prompt but, as vLLM, compute at least the last token, so hit 4 blocks (64 tokens):
// (6 - 2) x 48 + 6 x 64 hit tokens.
TEST(ClosedLoopCliTest, SharedPrefixDatasetByName) {
  const nlohmann::json j = ReplayJson(Fixed({"--synthetic", "12", "--max-concurrency", "1", "--dataset-name",
                                             "shared_prefix", "--num-groups", "2", "--num-prompts-per-group", "3",
                                             "--system-prompt-len", "48", "--question-len", "32",
                                             "--shared-prefix-output-len", "8"}));
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j.at("prefix_cache").at("queried_tokens").get<int64_t>(), 12 * 80);
  EXPECT_EQ(j.at("prefix_cache").at("hit_tokens").get<int64_t>(), 4 * 48 + 6 * 64);
}

// The clients see each reply end at its step, whether quiet decode steps are skipped or not: the
// event and token stepping replay the same closed loop, request for request, on one replica or three.
TEST(ClosedLoopCliTest, EventSteppingEqualsTokenStepping) {
  for (const char* replicas : {"1", "3"}) {
    auto run = [&](const char* stepping) {
      nlohmann::json j = ReplayJson({"--gpu", "h100", "--max-model-len", "4096", "--synthetic", "200", "--dataset-name",
                                     "random", "--random-input-len", "500", "--random-output-len", "100",
                                     "--random-range-ratio", "0.5", "--max-concurrency", "9", "--replicas", replicas,
                                     "--router", "least-requests", "--stepping", stepping});
      EXPECT_FALSE(j.empty());
      j.erase("sim");
      j.erase("fleet");  // its per-replica sections carry their own sim counters
      return j;
    };
    EXPECT_EQ(run("event").dump(), run("token").dump()) << replicas << " replicas";
  }
}

TEST(ClosedLoopCliTest, DatasetAndClientFlagsOutOfPlaceAreRefused) {
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--random-input-len", "100", "--quiet"}),
                     "--random-input-len: sets the random dataset; give --dataset-name random");
  ExpectOneLineError(RunCli({"replay", "--dataset-name", "random", "--quiet"}), "--dataset-name: draws the --synthetic requests");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--dataset-name", "sharegpt", "--quiet"}),
                     "--dataset-name: 'sharegpt' is not one of");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--dataset-name", "shared_prefix", "--num-groups", "2",
                             "--max-concurrency", "2", "--quiet"}),
                     "--num-prompts-per-group: the shared_prefix dataset needs it");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--dataset-name", "random", "--random-range-ratio", "1",
                             "--max-concurrency", "2", "--quiet"}),
                     "--random-range-ratio: 1 is outside [0, 1)");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--max-concurrency", "0", "--quiet"}),
                     "--max-concurrency: must be a positive number of clients");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--dataset-name", "random", "--prompt-len", "fixed:5",
                             "--max-concurrency", "2", "--quiet"}),
                     "--prompt-len: the --dataset-name dataset sets the lengths");
  // Open loop still needs a rate for generated arrivals.
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--dataset-name", "random", "--quiet"}), "--rate");
}

}  // namespace
}  // namespace kvsim
