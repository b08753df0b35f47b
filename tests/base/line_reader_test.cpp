// LineReader, SplitCsvLine, PrintableExcerpt and the row parsers on hand-made inputs; the
// regression corpus of the fuzz targets (tests/fuzz/regressions/<target>/) replayed through the
// same readers the targets call.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "kvcache/base/csv_cells.h"
#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/vllm_log_rows.h"
#include "sim/sweep/sweep.h"
#include "sim/sweep/sweep_grid.h"
#include "tests/testutil.h"
#include "workloads/row_errors.h"
#include "workloads/trace_readers.h"
#include "workloads/trace_window.h"

namespace kvsim {
namespace {

TEST(LineReaderTest, LinesWithoutTerminatorsAndCarriageReturns) {
  const testing::TempDir dir;
  LineReader in(dir.Write("a.txt", "one\r\ntwo\n\nlast"), "the test file");
  std::string line;
  std::vector<std::string> lines;
  while (in.Next(line)) lines.push_back(line);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "", "last"}));
  EXPECT_EQ(in.line_number(), 4);
  EXPECT_EQ(in.bytes_read(), 14);  // 5 + 4 + 1 + 4 bytes
  EXPECT_TRUE(in.rereadable());
}

// Lone carriage returns end lines (classic Mac exports), CRLF stays one end, and a byte-order
// mark is not text. 300,000 lines cross the reader's buffer many times, so some CR lands last in
// a read and must wait for the next byte to tell CR from CRLF.
TEST(LineReaderTest, CarriageReturnsAloneEndLinesAndTheBomIsDropped) {
  testing::TempDir dir;
  std::string text = "\xEF\xBB\xBFhead\r";
  for (int i = 0; i < 300000; ++i) text += std::to_string(i) + (i % 3 == 0 ? "\r\n" : "\r");
  LineReader in(dir.Write("cr.txt", text), "the test file");
  std::string line;
  ASSERT_TRUE(in.Next(line));
  EXPECT_EQ(line, "head");
  for (int i = 0; i < 300000; ++i) {
    ASSERT_TRUE(in.Next(line)) << i;
    ASSERT_EQ(line, std::to_string(i));
  }
  EXPECT_FALSE(in.Next(line));
}

TEST(LineReaderTest, LongLineAndBinaryDataNameTheLine) {
  const testing::TempDir dir;
  LineReader in(dir.Write("b.txt", "ok\n" + std::string(LineReader::kMaxLineBytes + 1, 'x') + "\n"), "the test file");
  std::string line;
  ASSERT_TRUE(in.Next(line));
  try {
    in.Next(line);
    FAIL() << "a line over 1 MiB was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("b.txt:2: line longer than 1 MiB"), std::string::npos) << e.what();
  }
  LineReader bin(dir.Write("c.bin", std::string("a\nb\0c\n", 6)), "the test file");
  ASSERT_TRUE(bin.Next(line));
  EXPECT_THROW(bin.Next(line), Error);
  EXPECT_THROW(LineReader(dir.path(), "the test file"), Error);  // a directory
  EXPECT_THROW(LineReader(dir.File("missing"), "the test file"), Error);
}

TEST(LineReaderTest, ALineExactlyAtTheLimitIsRead) {
  const testing::TempDir dir;
  LineReader in(dir.Write("d.txt", std::string(LineReader::kMaxLineBytes, 'y') + "\n"), "the test file");
  std::string line;
  ASSERT_TRUE(in.Next(line));
  EXPECT_EQ(line.size(), LineReader::kMaxLineBytes);
  EXPECT_FALSE(in.Next(line));
}

TEST(CsvCellsTest, QuotesTrimAndErrors) {
  std::vector<std::string> cells;
  ASSERT_TRUE(SplitCsvLine(" a , \"b,c\" ,\"d\"\"e\",", cells));
  EXPECT_EQ(cells, (std::vector<std::string>{"a", "b,c", "d\"e", ""}));
  EXPECT_FALSE(SplitCsvLine("\"open,1", cells));
  EXPECT_FALSE(SplitCsvLine("\"x\"y,1", cells));
  EXPECT_TRUE(IsBlankLine(" \t\r"));
  EXPECT_FALSE(IsBlankLine(" ,"));
}

// Lines without quotes take the comma-scanning path: the same trimming, empty cells, a trailing
// comma, a longer line after a shorter one and back (cells reused), a cell of spaces only.
TEST(CsvCellsTest, UnquotedLinesSplitAsQuotedOnesWould) {
  std::vector<std::string> cells;
  ASSERT_TRUE(SplitCsvLine("2023-11-16 18:15:46.6805900 ,\t374, 44", cells));
  EXPECT_EQ(cells, (std::vector<std::string>{"2023-11-16 18:15:46.6805900", "374", "44"}));
  ASSERT_TRUE(SplitCsvLine(",a,,  ,b,", cells));
  EXPECT_EQ(cells, (std::vector<std::string>{"", "a", "", "", "b", ""}));
  ASSERT_TRUE(SplitCsvLine("x", cells));
  EXPECT_EQ(cells, (std::vector<std::string>{"x"}));
  ASSERT_TRUE(SplitCsvLine("", cells));
  EXPECT_EQ(cells, (std::vector<std::string>{""}));
  ASSERT_TRUE(SplitCsvLine(" \"q\" ,r", cells));  // the quoted path, after the others
  EXPECT_EQ(cells, (std::vector<std::string>{"q", "r"}));
  // Views give the same cells, unquoted (into the line) or quoted (into the storage).
  std::vector<std::string> storage;
  std::vector<std::string_view> views;
  for (const std::string line : {"2023-11-16 18:15:46.68 ,\t374, 44", ",a,,  ,b,", "", " \"q,1\" ,r", "x,\"\"\"y\""}) {
    ASSERT_TRUE(SplitCsvLine(line, cells)) << line;
    ASSERT_TRUE(SplitCsvLineViews(line, storage, views)) << line;
    EXPECT_EQ(std::vector<std::string>(views.begin(), views.end()), cells) << line;
  }
  EXPECT_FALSE(SplitCsvLineViews("\"open,1", storage, views));
}

TEST(PrintableExcerptTest, InvalidUtf8AndControlBytesBecomeQuestionMarks) {
  EXPECT_EQ(PrintableExcerpt("caf\xc3\xa9"), "caf\xc3\xa9");            // valid 2-byte
  EXPECT_EQ(PrintableExcerpt("a\xff" "b"), "a?b");                       // invalid lead byte
  EXPECT_EQ(PrintableExcerpt("\xc0\xaf"), "??");                         // overlong
  EXPECT_EQ(PrintableExcerpt("\xed\xa0\x80"), "???");                    // UTF-16 surrogate
  EXPECT_EQ(PrintableExcerpt("tab\there"), "tab?here");
  EXPECT_EQ(PrintableExcerpt(std::string(100, 'z'), 10), std::string(10, 'z') + "...");
  // What the JSON writer needs: every excerpt serialises.
  EXPECT_NO_THROW((void)nlohmann::json(PrintableExcerpt("\xf4\x90\x80\x80 \xe0\x80\x80")).dump());
}

TEST(RowParsersTest, AzureDatesOutsideInt64NanosecondsAreRejected) {
  // 2262-04-11 23:47:16.854775807 is INT64_MAX ns; kvsim keeps arrivals below 2^62 ns (2116).
  EXPECT_EQ(ParseDateTimeNs("1970-01-01 00:00:01.5"), 1500000000);
  EXPECT_EQ(ParseDateTimeNs("2023-11-16 18:15:46"), 1700158546LL * 1000000000LL);
  EXPECT_FALSE(ParseDateTimeNs("2300-01-01 00:00:00"));
  EXPECT_FALSE(ParseDateTimeNs("2262-12-31 23:59:59"));
  EXPECT_FALSE(ParseDateTimeNs("1969-12-31 23:59:59"));
  // Fractions: nine digits are nanoseconds, more are checked and dropped, none is zero.
  EXPECT_EQ(ParseDateTimeNs("1970-01-01 00:00:00.123456789123"), 123456789);
  EXPECT_EQ(ParseDateTimeNs("1970-01-01 00:00:00."), 0);
  EXPECT_EQ(ParseDateTimeNs("1970-01-01 00:00:00.05"), 50000000);
  EXPECT_FALSE(ParseDateTimeNs("1970-01-01 00:00:00.1234567891x"));
  // A reader's day cache changes no answer: rows on one day, the next day, a bad date and a bad
  // time between good rows, a leap day.
  DayCache day;
  for (const char* cell : {"2023-11-16 18:15:46.6805900", "2023-11-16 23:59:59.9", "2023-11-17 00:00:00", "2023-13-17 00:00:00",
                           "2023-11-17 24:00:00", "2023-11-17 00:00:01.000000001", "2024-02-29 12:00:00", "2023-11-16 18:15:46"}) {
    EXPECT_EQ(ParseDateTimeNs(cell, &day), ParseDateTimeNs(cell)) << cell;
  }
  EXPECT_FALSE(ParseDateTimeNs("9999-99-99 00:00:00"));
}

// --- Fuzz regressions: every file in tests/fuzz/regressions/<target>/ through that target's readers.

std::vector<std::string> RegressionFiles(const std::string& target) {
  std::vector<std::string> files;
  const std::string dir = std::string(KVSIM_TEST_SOURCE_DIR) + "/fuzz/regressions/" + target;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file()) files.push_back(e.path().string());
  return files;
}

TEST(FuzzRegressionTest, ModelConfigs) {
  for (const std::string& file : RegressionFiles("fuzz_model_config")) {
    SCOPED_TRACE(file);
    DeploymentOptions o;
    o.model = file;
    o.max_model_len = "4096";
    try {
      const Deployment d = ResolveDeployment(o, KVSIM_DATA_DIR_FOR_TESTS);
      (void)PlanCapacity(d.model, d.gpu, d.config);
    } catch (const Error&) {
    }
  }
}

TEST(FuzzRegressionTest, Traces) {
  for (const std::string& file : RegressionFiles("fuzz_trace_reader")) {
    SCOPED_TRACE(file);
    // The fuzz input's first two bytes pick the format and options; the rest is the file.
    const std::string bytes = testing::ReadFile(file);
    if (bytes.size() < 2) continue;
    const testing::TempDir dir;
    TraceReaderOptions o;
    o.path = dir.Write("trace", bytes.substr(2));
    o.skip_bad_rows = (bytes[1] & 1) != 0;
    try {
      const int choice = static_cast<unsigned char>(bytes[0]) % 7;
      o.format = choice == 6 ? DetectTraceFormat(o.path) : static_cast<TraceFormat>(choice);
      WindowOptions w;
      w.max_requests = 5000;
      auto source = ApplyWindow([&] { return OpenTraceReader(o, ArrivalGenerator(ArrivalKind::kPoisson, 10, 1, 7)); }, w);
      while (source->Next()) {
      }
      (void)nlohmann::json(source->warnings()).dump();
    } catch (const Error&) {
    }
  }
}

TEST(FuzzRegressionTest, LogsAndGrids) {
  for (const std::string& file : RegressionFiles("fuzz_vllm_log")) {
    SCOPED_TRACE(file);
    try {
      (void)ReadVllmLogRows(file);
    } catch (const Error&) {
    }
  }
  for (const std::string& file : RegressionFiles("fuzz_sweep_grid")) {
    SCOPED_TRACE(file);
    try {
      (void)ExpandGrid(ReadGridFile(file));
    } catch (const Error&) {
    }
    try {
      (void)ParseCriteria("goodput", testing::ReadFile(file), 0.0);
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace kvsim
