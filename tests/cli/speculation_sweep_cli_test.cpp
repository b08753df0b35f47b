// Speculative decoding as a sweep axis and in compare specs: JSON values keep their commas in
// --sweep (split only at the commas between values), a --grid file may list objects, and a
// compare spec may give --speculative-config unquoted, single-quoted or double-quoted with escapes.
// Each point replays one request on a fixed step time with every draft accepted, so k shows by hand:
// 13 output tokens are the prefill's 1 and 12 at k + 1 per step, 12 / (k + 1) verify steps of k drafts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "sim/sweep/sweep_grid.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

constexpr const char* kK2 = R"({"method":"ngram","num_speculative_tokens":2})";
constexpr const char* kK3 = R"({"method":"ngram","num_speculative_tokens":3})";

const std::vector<std::string> kOneRequest = {"--synthetic", "1", "--rate", "1", "--prompt-len", "fixed:100", "--output-len",
                                              "fixed:13", "--step-time-ms", "10", "--spec-acceptance", "1", "--quiet"};

// steps = 1 + 12 / (k + 1), drafts = k x 12 / (k + 1).
void ExpectK(const nlohmann::json& summary, int64_t k) {
  EXPECT_EQ(summary.at("sim").at("steps").get<int64_t>(), 1 + 12 / (k + 1)) << "k " << k;
  EXPECT_EQ(summary.at("speculation").at("draft_tokens").get<int64_t>(), k * (12 / (k + 1))) << "k " << k;
}

TEST(SweepAxisTest, JsonValuesKeepTheirCommas) {
  const GridAxis a = ParseGridAxis(std::string("speculative-config=") + kK2 + "," + kK3);
  EXPECT_EQ(a.option, "speculative-config");
  ASSERT_EQ(a.values.size(), 2u);
  EXPECT_EQ(a.values[0], kK2);
  EXPECT_EQ(a.values[1], kK3);
  // Plain values split as before; brackets and commas inside JSON strings and nested values stay.
  EXPECT_EQ(ParseGridAxis("max-num-seqs=16,32,,64").values, (std::vector<std::string>{"16", "32", "64"}));
  EXPECT_EQ(ParseGridAxis(R"(x=[1,[2,3]],{"a":"},{,"},7)").values,
            (std::vector<std::string>{"[1,[2,3]]", R"({"a":"},{,"})", "7"}));
  EXPECT_EQ(ParseGridAxis(R"(x={"a":"\"}"})").values, (std::vector<std::string>{R"({"a":"\"}"})"}));
  EXPECT_THROW(ParseGridAxis(R"(x={"a":1)"), Error);
  EXPECT_THROW(ParseGridAxis(R"(x={"a":1],2)"), Error);
  EXPECT_THROW(ParseGridAxis(R"(x={"a":"1})"), Error);
}

TEST(SweepAxisTest, SweepsSpeculativeConfigOnTheCommandLineAndInAGridFile) {
  const testing::TempDir dir;
  const std::string axis = std::string("speculative-config=") + kK2 + "," + kK3;
  std::vector<std::string> args = {"sweep", "--jobs", "1", "--sweep", axis, "--json", dir.File("cli.json"), "--csv",
                                   dir.File("points.csv")};
  args.insert(args.end(), kOneRequest.begin(), kOneRequest.end());
  const auto r = RunCli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json cli = nlohmann::json::parse(testing::ReadFile(dir.File("cli.json")));
  ASSERT_EQ(cli.at("points").size(), 2u);
  EXPECT_EQ(cli.at("points")[0].at("point"), std::string("speculative-config=") + kK2);
  EXPECT_EQ(cli.at("points")[1].at("point"), std::string("speculative-config=") + kK3);
  ExpectK(cli.at("points")[0].at("summary"), 2);
  ExpectK(cli.at("points")[1].at("summary"), 3);
  // The CSV quotes the name and doubles the quotes inside it (RFC 4180).
  const std::string csv = testing::ReadFile(dir.File("points.csv"));
  const size_t row = csv.find('\n') + 1;
  EXPECT_EQ(csv.substr(row, csv.find(',', csv.find("}\"", row)) - row),
            R"("speculative-config={""method"":""ngram"",""num_speculative_tokens"":2}")");

  // The same axis as a grid file's list of objects (written back compactly, as on the command line).
  const std::string grid = dir.Write("grid.json", std::string(R"({"speculative-config": [)") + kK2 + ", " + kK3 + "]}");
  args = {"sweep", "--jobs", "1", "--grid", grid, "--json", dir.File("grid_out.json")};
  args.insert(args.end(), kOneRequest.begin(), kOneRequest.end());
  const auto g = RunCli(args);
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const nlohmann::json file = nlohmann::json::parse(testing::ReadFile(dir.File("grid_out.json")));
  ASSERT_EQ(file.at("points").size(), 2u);
  EXPECT_EQ(file.at("points")[0].at("point"), cli.at("points")[0].at("point"));
  EXPECT_EQ(file.at("points")[1].at("point"), cli.at("points")[1].at("point"));
  ExpectK(file.at("points")[0].at("summary"), 2);
  ExpectK(file.at("points")[1].at("summary"), 3);
}

TEST(CompareSpecTest, SpeculativeConfigJsonUnquotedSingleOrDoubleQuoted) {
  const testing::TempDir dir;
  std::vector<std::string> args = {
      "compare", "--jobs", "1", "--json", dir.File("compare.json"),
      "--a", R"(--speculative-config {"method": "ngram", "num_speculative_tokens": 2})",
      "--b", R"(--speculative-config '{"method":"ngram","num_speculative_tokens":3}')",
      "--c", R"(--speculative-config "{\"method\": \"ngram\", \"num_speculative_tokens\": 1}")"};
  args.insert(args.end(), kOneRequest.begin(), kOneRequest.end());
  const auto r = RunCli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(testing::ReadFile(dir.File("compare.json")));
  ASSERT_EQ(j.size(), 3u);
  ExpectK(j[0].at("summary"), 2);
  ExpectK(j[1].at("summary"), 3);
  ExpectK(j[2].at("summary"), 1);
  // An unclosed JSON value is refused, naming the spec.
  args = {"compare", "--a", R"(--speculative-config {"method": "ngram")", "--b", "--max-num-seqs 8"};
  args.insert(args.end(), kOneRequest.begin(), kOneRequest.end());
  testing::ExpectOneLineError(RunCli(args), "--a: the JSON value '{\"method\": \"ngram\"' is not closed");
}

}  // namespace
}  // namespace kvsim
