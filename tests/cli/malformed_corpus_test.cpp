// Replays tests/malformed/: every file there is a malformed input for one reader (config.json,
// each trace format, the vLLM log CSV, sweep grids, compare specs, calibration JSON), run through
// the kvsim executable as MANIFEST.tsv says; the exit code and a substring of the message are
// checked, and an error must be one line (no usage text, no raw library message without a file).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/testutil.h"

namespace kvsim {
namespace {

struct CorpusCase {
  std::string file;
  int exit_code = 0;
  std::string expected;
  std::string args;
};

std::string CorpusDir() { return std::string(KVSIM_TEST_SOURCE_DIR) + "/malformed"; }

std::vector<CorpusCase> ReadManifest() {
  std::ifstream in(CorpusDir() + "/MANIFEST.tsv");
  std::vector<CorpusCase> cases;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    CorpusCase c;
    std::string code;
    std::getline(ss, c.file, '\t');
    std::getline(ss, code, '\t');
    std::getline(ss, c.expected, '\t');
    std::getline(ss, c.args);
    c.exit_code = std::stoi(code);
    cases.push_back(c);
  }
  return cases;
}

// Whitespace-separated words, double quotes grouping; "{}" is the file, "{content}" its text.
std::vector<std::string> Arguments(const CorpusCase& c) {
  const std::string path = CorpusDir() + "/" + c.file;
  std::ifstream in(path, std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::string cur;
  bool quoted = false, any = false;
  for (char ch : c.args + " ") {
    if (ch == '"') {
      quoted = !quoted;
      any = true;
    } else if (ch == ' ' && !quoted) {
      if (any) args.push_back(cur == "{}" ? path : cur == "{content}" ? content : cur);
      cur.clear();
      any = false;
    } else {
      cur += ch;
      any = true;
    }
  }
  return args;
}

TEST(MalformedCorpusTest, EveryFileGivesItsMessageAndExitCode) {
  const std::vector<CorpusCase> cases = ReadManifest();
  ASSERT_GE(cases.size(), 60u);
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(CorpusDir()))
    files += entry.is_regular_file() && entry.path().filename() != "MANIFEST.tsv";
  EXPECT_EQ(files, cases.size()) << "every corpus file needs a MANIFEST.tsv line";
  for (const CorpusCase& c : cases) {
    SCOPED_TRACE(c.file + ": kvsim " + c.args);
    const testing::CommandResult r = testing::RunCli(Arguments(c));
    EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
    const std::string& text = c.exit_code == 0 ? r.out + r.err : r.err;
    EXPECT_NE(text.find(c.expected), std::string::npos) << "stderr: " << r.err;
    if (c.exit_code != 0) {
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line, no usage text: " << r.err;
      EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    }
  }
}

}  // namespace
}  // namespace kvsim
