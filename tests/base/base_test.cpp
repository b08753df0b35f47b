// The base layer: checked arithmetic, quantity parsing, name tables, text helpers, atomic files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "kvcache/base/atomic_file.h"
#include "kvcache/base/check.h"
#include "kvcache/base/checked_math.h"
#include "kvcache/base/enum_names.h"
#include "kvcache/base/output_paths.h"
#include "kvcache/base/quantity_parse.h"
#include "kvcache/base/temp_file_registry.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "tests/testutil.h"

namespace kvsim {

enum class Fruit { kApple, kPear };
template <>
struct EnumNames<Fruit> {
  static constexpr EnumEntry<Fruit> kEntries[] = {
      {Fruit::kApple, "apple", "an apple"}, {Fruit::kPear, "pear"}, {Fruit::kApple, "malus"}};
};

namespace {

TEST(CheckedMathTest, OverflowIsAnErrorNotAWrappedNumber) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(MulOrThrow(1 << 20, 1 << 20, "x"), int64_t{1} << 40);
  EXPECT_THROW(MulOrThrow(kMax / 2 + 1, 2, "layers x hidden"), Error);
  EXPECT_THROW(AddOrThrow(kMax, 1, "tokens"), Error);
  EXPECT_FALSE(CheckedMul(int64_t{1} << 32, int64_t{1} << 31).has_value());
  EXPECT_EQ(*CheckedMul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  try {
    MulOrThrow(kMax, 3, "num_hidden_layers x hidden_size");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("num_hidden_layers x hidden_size"), std::string::npos);
  }
}

TEST(CheckedMathTest, DoublesOutsideTheRangeOrNotFiniteAreRejected) {
  EXPECT_EQ(RoundToInt64OrThrow(2.5, 0, 10, "v"), 3);  // llround: half away from zero
  EXPECT_EQ(RoundToInt64OrThrow(-0.4, -1, 10, "v"), 0);
  EXPECT_THROW(RoundToInt64OrThrow(1e30, 0, 1'000'000, "prompt"), Error);
  EXPECT_THROW(RoundToInt64OrThrow(std::nan(""), 0, 10, "v"), Error);
  EXPECT_THROW(RoundToInt64OrThrow(INFINITY, 0, 10, "v"), Error);
  EXPECT_THROW(RoundToInt64OrThrow(-1, 0, 10, "v"), Error);
}

TEST(UnitsTest, CeilDivIsVllmsCdiv) {
  EXPECT_EQ(CeilDiv(0, 16), 0);
  EXPECT_EQ(CeilDiv(1, 16), 1);
  EXPECT_EQ(CeilDiv(16, 16), 1);
  EXPECT_EQ(CeilDiv(17, 16), 2);
  EXPECT_DOUBLE_EQ(BytesToGiB(3.0 * 1024 * 1024 * 1024), 3.0);
}

TEST(QuantityParseTest, TokenCountsAndByteAmounts) {
  EXPECT_EQ(ParseTokenCount("32768", "--max-model-len"), 32768);
  EXPECT_EQ(ParseTokenCount("32k", "--max-model-len"), 32000);
  EXPECT_EQ(ParseTokenCount("32K", "--max-model-len"), 32768);
  EXPECT_EQ(ParseTokenCount("1M", "--max-model-len"), 1048576);
  EXPECT_THROW(ParseTokenCount("1.5", "--max-model-len"), Error);
  EXPECT_THROW(ParseTokenCount("12q", "--max-model-len"), Error);
  EXPECT_THROW(ParseTokenCount("nan", "--max-model-len"), Error);
  // vLLM's human_readable_int: int() or a decimal before k/m/g/t; no exponent, no bare decimal point.
  EXPECT_THROW(ParseTokenCount("1e4", "--max-model-len"), Error);
  EXPECT_THROW(ParseTokenCount("4096.0", "--max-model-len"), Error);
  EXPECT_THROW(ParseTokenCount(".5k", "--max-model-len"), Error);
  EXPECT_THROW(ParseTokenCount("5.k", "--max-model-len"), Error);
  EXPECT_EQ(ParseTokenCount("25.6k", "--max-model-len"), 25600);
  EXPECT_DOUBLE_EQ(ParseByteAmount("20GiB", "--kv-cache-memory"), 20.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(ParseByteAmount("20GB", "--kv-cache-memory"), 20e9);
  EXPECT_DOUBLE_EQ(ParseByteAmount("512M", "--kv-cache-memory"), 512.0 * 1024 * 1024);
  EXPECT_THROW(ParseByteAmount("0", "--kv-cache-memory"), Error);
  EXPECT_THROW(ParseByteAmount("inf", "--kv-cache-memory"), Error);
  EXPECT_DOUBLE_EQ(ParseFiniteNumber("0.95", "--gpu-memory-utilization"), 0.95);
  EXPECT_THROW(ParseFiniteNumber("0.95x", "--gpu-memory-utilization"), Error);
  // std::stod reads hexadecimal; a typed quantity is decimal (vLLM's int() refuses "0x1000" as well).
  EXPECT_THROW(ParseTokenCount("0x1000", "--max-model-len"), Error);
  EXPECT_THROW(ParseByteAmount("0x10GiB", "--kv-cache-memory"), Error);
  EXPECT_THROW(ParseFiniteNumber("-0X1p-1", "--gpu-memory-utilization"), Error);
}

TEST(EnumNamesTest, OneTableGivesNamesAliasesLabelsAndChoices) {
  EXPECT_STREQ(NameOf(Fruit::kApple), "apple");
  EXPECT_STREQ(LabelOf(Fruit::kApple), "an apple");
  EXPECT_STREQ(LabelOf(Fruit::kPear), "pear");  // no label: the name
  EXPECT_EQ(ParseEnum<Fruit>("malus", "--fruit"), Fruit::kApple);
  EXPECT_EQ(EnumChoices<Fruit>(), "apple | pear");  // aliases are accepted, not listed
  EXPECT_EQ(EnumValues<Fruit>().size(), 2u);
  try {
    ParseEnum<Fruit>("plum", "--fruit");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--fruit: 'plum' is not one of apple, pear");
  }
}

TEST(TextFormatTest, ThousandsJoinAndClosestMatches) {
  EXPECT_EQ(Thousands(8030261248), "8,030,261,248");
  EXPECT_EQ(Thousands(-1234), "-1,234");
  EXPECT_EQ(Thousands(999), "999");
  EXPECT_EQ(Join({"a", "b", "c"}, "; "), "a; b; c");
  EXPECT_EQ(ClosestMatches("h10", {"a100", "h100", "l4"}, 1), std::vector<std::string>{"h100"});
  // A pasted paragraph is ranked by its first 96 characters: "h100" + 92 x's is 92 edits from
  // "h100", 93 from "a100" and 95 from "l4", whatever follows.
  EXPECT_EQ(ClosestMatches("h100" + std::string(100000, 'x'), {"l4", "a100", "h100"}),
            (std::vector<std::string>{"h100", "a100", "l4"}));
  EXPECT_EQ(Format("%05.1f|%s", 3.14159, "x"), "003.1|x");
}

// Worked examples, then a property: the bit-vector path (either string up to 64 characters) agrees
// with the textbook recurrence on random strings over a small alphabet, across the 64-character edge.
TEST(TextFormatTest, EditDistanceMatchesTheRecurrence) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("flaw", "lawn"), 2u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance(std::string(64, 'a'), std::string(70, 'a')), 6u);
  EXPECT_EQ(EditDistance(std::string(64, 'a'), std::string(64, 'b')), 64u);
  const auto recurrence = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
      for (size_t j = 1; j <= b.size(); ++j)
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
    return d[a.size()][b.size()];
  };
  std::mt19937 rng(7);
  const auto random_string = [&rng](size_t max_length) {
    std::string s(std::uniform_int_distribution<size_t>(0, max_length)(rng), 'a');
    for (char& c : s) c = static_cast<char>('a' + std::uniform_int_distribution<int>(0, 3)(rng));
    return s;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const std::string a = random_string(trial % 2 ? 70 : 20), b = random_string(90);
    ASSERT_EQ(EditDistance(a, b), recurrence(a, b)) << a << " / " << b;
  }
}

TEST(CheckTest, FailedChecksAreInternalErrorsNamingTheSite) {
  try {
    KVSIM_CHECK(1 + 1 == 3, "arithmetic broke");
    FAIL();
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("arithmetic broke (base_test.cpp:"), std::string::npos);
  }
  EXPECT_NO_THROW(KVSIM_CHECK(true, "never"));
}

TEST(AtomicFileTest, CommittedFilesAppearWholeAndAbandonedOnesLeaveNothing) {
  const testing::TempDir dir;
  const std::string path = dir.File("out.csv");
  {
    AtomicOutputFile f(path);
    f.stream() << "a,b\n";
    EXPECT_FALSE(std::filesystem::exists(path));  // not before Commit
    f.Commit();
  }
  EXPECT_EQ(testing::ReadFile(path), "a,b\n");
  {
    AtomicOutputFile f(dir.File("abandoned.csv"));
    f.stream() << "half";
  }
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);  // only out.csv: no temporary left behind
  WriteFileAtomically(path, "new");
  EXPECT_EQ(testing::ReadFile(path), "new");
  EXPECT_THROW(WriteFileAtomically(dir.File("no/such/dir/x"), "x"), Error);
}

TEST(AtomicFileTest, KeepsTheReplacedFilesModeAndFollowsSymbolicLinks) {
  const testing::TempDir dir;
  const std::string path = dir.Write("private.json", "old");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  WriteFileAtomically(path, "new");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const std::string link = dir.File("link.json");
  ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
  WriteFileAtomically(link, "through the link");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(testing::ReadFile(path), "through the link");
  EXPECT_THROW(WriteFileAtomically(dir.path(), "x"), Error);  // a directory
}

TEST(AtomicFileTest, OpenTemporaryFilesAreRegisteredForSignalCleanup) {
  const testing::TempDir dir;
  const int before = RegisteredTempFileCount();
  {
    AtomicOutputFile a(dir.File("a.csv")), b(dir.File("b.csv"));
    a.stream() << "rows";
    EXPECT_EQ(RegisteredTempFileCount(), before + 2);
    RemoveRegisteredTempFiles();  // what a SIGQUIT handler does
    size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
    EXPECT_EQ(files, 0u);
    EXPECT_THROW(b.Commit(), Error);  // nothing left to rename: an error naming the file, not a crash
  }
  EXPECT_EQ(RegisteredTempFileCount(), before);
}

TEST(OutputPathsTest, SameFileByIdentityNotByText) {
  const testing::TempDir dir;
  const std::string a = dir.Write("a.csv", "x");
  const std::string hard = dir.File("hard.csv");
  ASSERT_EQ(::link(a.c_str(), hard.c_str()), 0);
  EXPECT_TRUE(SameFile(a, dir.path() + "/./a.csv"));
  EXPECT_TRUE(SameFile(a, hard));
  EXPECT_TRUE(SameFile(dir.File("new.json"), dir.path() + "/../" + std::filesystem::path(dir.path()).filename().string() + "/new.json"));
  EXPECT_FALSE(SameFile(a, dir.File("new.json")));
  EXPECT_THROW(CheckOutputPaths({{"--json", hard}}, {a}), Error);
  EXPECT_NO_THROW(CheckOutputPaths({{"--json", a}}, {a}));  // the output's own value
  EXPECT_THROW(CheckOutputPaths({{"--json", a}}, {a, a}), Error);
  EXPECT_THROW(CheckOutputPaths({{"--json", "-"}, {"--report", "-"}}, {}), Error);
  EXPECT_NO_THROW(CheckOutputPaths({{"--json", "-"}, {"--timeseries", "-", false}}, {}));  // a file named "-"
  EXPECT_THROW(CheckOutputPaths({{"--json", dir.File("n.json")}, {"--csv", dir.path() + "/./n.json"}}, {}), Error);
}

}  // namespace
}  // namespace kvsim
