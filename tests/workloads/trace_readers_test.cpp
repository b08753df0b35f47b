// Trace readers: every public format, the windowing transforms, synthetic workloads, and the
// corpus of broken files (tests/data/traces), each of which must fail with file, line and column.
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "tests/testutil.h"
#include "workloads/row_errors.h"
#include "workloads/trace_readers.h"
#include "workloads/trace_window.h"

namespace kvsim {
namespace {

std::string Corpus(const std::string& name) { return std::string(KVSIM_TEST_DATA_DIR) + "/traces/" + name; }

std::vector<TraceRequest> ReadAll(RequestSource& s) {
  std::vector<TraceRequest> out;
  while (auto r = s.Next()) out.push_back(*r);
  return out;
}

std::unique_ptr<RequestSource> Open(const std::string& path, bool skip = false) {
  TraceReaderOptions o;
  o.path = path;
  o.format = DetectTraceFormat(path);
  o.skip_bad_rows = skip;
  return OpenTraceReader(o);
}

// Azure 2023 conversation trace: 19,366 rows over 0.97 h (shared/traces/README.md).
TEST(TraceReadersTest, AzureConversationTrace) {
  const auto path = testing::SharedPath("traces/azure_2023/AzureLLMInferenceTrace_conv.csv");
  EXPECT_EQ(DetectTraceFormat(path), TraceFormat::kAzure);
  auto src = Open(path);
  const auto all = ReadAll(*src);
  ASSERT_EQ(all.size(), 19366u);
  EXPECT_EQ(all.front().arrival_ns, 0);
  EXPECT_NEAR(static_cast<double>(all.back().arrival_ns) / 3.6e12, 0.97, 0.01);
  double prompt = 0;
  for (const auto& r : all) prompt += static_cast<double>(r.prompt_tokens);
  EXPECT_NEAR(prompt / static_cast<double>(all.size()), 1155, 1);  // README: input mean 1,155
}

// The Vidur copy of the Azure code trace holds the same 8,819 requests.
TEST(TraceReadersTest, VidurAndAzureCodeTracesAgree) {
  auto vidur = Open(testing::SharedPath("traces/vidur/splitwise_code.csv"));
  auto azure = Open(testing::SharedPath("traces/azure_2023/AzureLLMInferenceTrace_code.csv"));
  const auto a = ReadAll(*vidur), b = ReadAll(*azure);
  ASSERT_EQ(a.size(), 8819u);
  ASSERT_EQ(b.size(), 8819u);
  for (size_t i = 0; i < a.size(); i += 997) {
    EXPECT_EQ(a[i].prompt_tokens, b[i].prompt_tokens);
    EXPECT_EQ(a[i].output_tokens, b[i].output_tokens);
  }
}

TEST(TraceReadersTest, MooncakeCarriesBlockIds) {
  auto src = Open(testing::SharedPath("traces/mooncake/synthetic_trace.jsonl"));
  const auto all = ReadAll(*src);
  ASSERT_EQ(all.size(), 3993u);
  for (const auto& r : all) ASSERT_EQ(static_cast<int64_t>(r.block_ids.size()), (r.prompt_tokens + 511) / 512);
}

TEST(TraceReadersTest, BurstGptSkipsFailedRowsAndFilters) {
  auto all_models = Open(Corpus("burstgpt_small.csv"));
  EXPECT_EQ(ReadAll(*all_models).size(), 3u);  // the 0-response row is a failed request
  EXPECT_EQ(all_models->skipped_rows(), 1);
  TraceReaderOptions o;
  o.path = Corpus("burstgpt_small.csv");
  o.format = TraceFormat::kBurstGpt;
  o.model_filter = "ChatGPT";
  auto chat = OpenTraceReader(o);
  const auto rows = ReadAll(*chat);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].arrival_ns, 1000000000);  // 1.5 s − 0.5 s
}

TEST(TraceReadersTest, GenericCsvWithMilliseconds) {
  TraceReaderOptions o;
  o.path = Corpus("generic_ms.csv");
  o.format = TraceFormat::kGenericCsv;
  o.time_unit = TimeUnit::kMillis;
  auto src = OpenTraceReader(o);
  const auto rows = ReadAll(*src);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].arrival_ns, 250000000);
}

TEST(TraceReadersTest, LengthsFilePairedWithPoissonArrivals) {
  TraceReaderOptions o;
  o.path = testing::SharedPath("traces/lengths/sharegpt_8k_filtered_stats_llama2_tokenizer.csv");
  o.format = DetectTraceFormat(o.path);
  ASSERT_EQ(o.format, TraceFormat::kLengths);
  auto src = OpenTraceReader(o, ArrivalGenerator(ArrivalKind::kPoisson, 10.0, 1.0, 7));
  int64_t n = 0, last = 0;
  while (auto r = src->Next()) {
    EXPECT_GE(r->arrival_ns, last);
    last = r->arrival_ns;
    ++n;
  }
  EXPECT_EQ(n, 30731);
  EXPECT_NEAR(static_cast<double>(n) / (static_cast<double>(last) / 1e9), 10.0, 0.3);  // the asked rate
}

TEST(TraceReadersTest, WindowRepeatAndRateScale) {
  const auto path = testing::SharedPath("traces/azure_2023/AzureLLMInferenceTrace_code.csv");
  WindowOptions w;
  w.repeat = 3;
  w.rate_scale = 2.0;
  auto src = ApplyWindow([&] { return Open(path); }, w);
  const auto all = ReadAll(*src);
  ASSERT_EQ(all.size(), 3u * 8819u);
  for (size_t i = 1; i < all.size(); ++i) ASSERT_GE(all[i].arrival_ns, all[i - 1].arrival_ns);
  EXPECT_EQ(all[8819].id, 8819u);
  // The second copy starts one mean gap after the first copy's last arrival (halved by the scale).
  const int64_t span = all[8818].arrival_ns;
  EXPECT_GT(all[8819].arrival_ns, span);
  EXPECT_LT(all[8819].arrival_ns, span + span / 8818 + 2);
  WindowOptions cut;
  cut.start_s = 600;
  cut.duration_s = 600;
  cut.max_requests = 100;
  auto windowed = ApplyWindow([&] { return Open(path); }, cut);
  const auto some = ReadAll(*windowed);
  EXPECT_EQ(some.size(), 100u);
  EXPECT_LT(some.back().arrival_ns, 600000000000);
}

// A repeated window is read from the file once and replayed from memory: every copy is the first
// with its arrivals shifted (so equal lengths, in order), and the file is opened once.
TEST(TraceReadersTest, RepeatedCopiesReplayTheFirstFromMemory) {
  const auto path = testing::SharedPath("traces/azure_2023/AzureLLMInferenceTrace_code.csv");
  WindowOptions w;
  w.repeat = 4;
  w.start_s = 60;
  int opens = 0;
  auto src = ApplyWindow([&] { ++opens; return Open(path); }, w);
  const auto all = ReadAll(*src);
  EXPECT_EQ(opens, 1);
  ASSERT_EQ(all.size() % 4, 0u);
  const size_t copy = all.size() / 4;
  for (size_t i = 0; i < copy; ++i)
    for (size_t k = 1; k < 4; ++k) {
      ASSERT_EQ(all[k * copy + i].prompt_tokens, all[i].prompt_tokens);
      ASSERT_EQ(all[k * copy + i].output_tokens, all[i].output_tokens);
      ASSERT_EQ(all[k * copy + i].arrival_ns - all[k * copy].arrival_ns, all[i].arrival_ns - all[0].arrival_ns);
    }
}

TEST(TraceReadersTest, SyntheticIsSeeded) {
  auto make = [](uint64_t seed) {
    return MakeSyntheticSource(50, ArrivalGenerator(ArrivalKind::kGamma, 5.0, 2.0, seed), LengthSampler("uniform:10:100", "p", ""),
                               LengthSampler("lognormal:50:0.5", "o", ""), seed);
  };
  auto a = make(3), b = make(3), c = make(4);
  const auto ra = ReadAll(*a), rb = ReadAll(*b), rc = ReadAll(*c);
  ASSERT_EQ(ra.size(), 50u);
  for (size_t i = 0; i < ra.size(); ++i) {
    EXPECT_EQ(ra[i].arrival_ns, rb[i].arrival_ns);
    EXPECT_EQ(ra[i].prompt_tokens, rb[i].prompt_tokens);
    EXPECT_GE(ra[i].prompt_tokens, 10);
    EXPECT_LE(ra[i].prompt_tokens, 100);
  }
  EXPECT_NE(ra[10].arrival_ns, rc[10].arrival_ns);
  EXPECT_THROW(LengthSampler("normal:5", "--prompt-len", ""), Error);
  EXPECT_THROW(ParseEnum<ArrivalKind>("weekly", "--arrival"), Error);
  EXPECT_THROW(ArrivalGenerator(ArrivalKind::kGamma, 1, 0, 1), Error);  // cv must be positive
  EXPECT_THROW(ArrivalGenerator(ArrivalKind::kPoisson, 0, 1, 1), Error);  // so must the rate
}

TEST(TraceReadersTest, AzureDatetimesParseExactly) {
  EXPECT_EQ(ParseDateTimeNs("1970-01-01 00:00:01.5"), 1500000000);
  EXPECT_EQ(*ParseDateTimeNs("2023-11-16 18:15:46.6805900") - *ParseDateTimeNs("2023-11-16 18:15:46.0000000"), 680590000);
  EXPECT_FALSE(ParseDateTimeNs("2023-13-16 18:15:46"));
}

// ISO 8601 as exports write it: a T, a fraction, a zone. 12:00:00+02:00 is 10:00:00 UTC.
TEST(TraceReadersTest, IsoDatetimesWithZonesParseToUtc) {
  const int64_t base = *ParseDateTimeNs("2024-05-01 10:00:00");
  EXPECT_EQ(ParseDateTimeNs("2024-05-01T10:00:00.036Z"), base + 36000000);
  EXPECT_EQ(ParseDateTimeNs("2024-05-01T12:00:00+02:00"), base);
  EXPECT_EQ(ParseDateTimeNs("2024-05-01T05:30:00-0430"), base);
  EXPECT_EQ(ParseDateTimeNs("2024-05-01T11:00:00.5+01"), base + 500000000);
  EXPECT_FALSE(ParseDateTimeNs("2024-05-01T10:00:00+2:00"));
  EXPECT_FALSE(ParseDateTimeNs("2024-05-01T10:00:00Q"));
  EXPECT_FALSE(ParseDateTimeNs("2024-05-01T10:00:00+24:00"));
}

// Exports of the same two Azure rows (arrivals 4.3145790 s apart, 374/44 and 396/109 tokens):
// with a byte-order mark, CRLF or CR line ends, tabs or semicolons between the cells. Each reads the same.
TEST(TraceReadersTest, ExportsWithABomCrlfTabsOrSemicolonsReadAlike) {
  const testing::TempDir dir;
  const std::string rows[3][3] = {{"TIMESTAMP", "ContextTokens", "GeneratedTokens"},
                                  {"2023-11-16 18:15:46.6805900", "374", "44"},
                                  {"2023-11-16 18:15:50.9951690", "396", "109"}};
  auto write = [&](const std::string& name, const std::string& bom, char sep, const std::string& eol) {
    std::string text = bom;
    for (const auto& row : rows) text += row[0] + sep + row[1] + sep + row[2] + eol;
    return dir.Write(name, text);
  };
  for (const std::string& path : {write("bom.csv", "\xEF\xBB\xBF", ',', "\n"), write("crlf.csv", "", ',', "\r\n"),
                                   write("tabs.tsv", "", '\t', "\n"), write("semi.csv", "\xEF\xBB\xBF", ';', "\r\n"),
                                   write("mac.csv", "", ',', "\r")}) {
    auto src = Open(path);
    const auto all = ReadAll(*src);
    ASSERT_EQ(all.size(), 2u) << path;
    EXPECT_EQ(all[1].arrival_ns - all[0].arrival_ns, 4314579000) << path;
    EXPECT_EQ(all[1].prompt_tokens, 396) << path;
    EXPECT_EQ(all[1].output_tokens, 109) << path;
  }
}

// The broken-file corpus: each fails with "<file>:<line>: column <name>: ..." (or names the file
// and what is missing), and --skip-bad-rows turns row errors into counted warnings.
TEST(TraceReadersTest, BrokenFilesNameFileLineAndColumn) {
  struct Case { const char* file; const char* expect; };
  for (const Case& c : {Case{"azure_bad_timestamp.csv", ":3: column TIMESTAMP"},
                        Case{"azure_negative_tokens.csv", ":3: column ContextTokens"},
                        Case{"azure_unsorted.csv", "goes backwards"},
                        Case{"azure_missing_column.csv", "missing column 'GeneratedTokens'"},
                        Case{"vidur_non_numeric.csv", ":3: column num_prefill_tokens"},
                        Case{"mooncake_bad_json.jsonl", ":2: column (json)"},
                        Case{"mooncake_missing_field.jsonl", ":2: column input_length"},
                        Case{"unknown_header.csv", "unrecognised trace header"}}) {
    try {
      auto src = Open(Corpus(c.file));
      ReadAll(*src);
      ADD_FAILURE() << c.file << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << c.file << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.file), std::string::npos) << e.what();
    }
  }
  auto lenient = Open(Corpus("azure_bad_timestamp.csv"), /*skip=*/true);
  EXPECT_EQ(ReadAll(*lenient).size(), 1u);
  EXPECT_EQ(lenient->skipped_rows(), 1);
  EXPECT_EQ(lenient->warnings().size(), 1u);
}

// A decimal cell is read as written: std::stod's hexadecimal ("0x10", read as 16 tokens before) and
// infinities are not numbers of a trace.
TEST(TraceReadersTest, HexadecimalCellsAreNotNumbers) {
  for (const char* cell : {"0x10", "0X1p4", "inf", "nan", "1e3x"}) {
    EXPECT_FALSE(ParseDecimal(cell).has_value()) << cell;
    EXPECT_FALSE(ParseInteger(cell).has_value()) << cell;
  }
  EXPECT_EQ(ParseDecimal("1.5e3").value_or(0), 1500.0);
  EXPECT_EQ(ParseInteger("374.0").value_or(0), 374);
  EXPECT_EQ(ParseInteger("+374").value_or(0), 374);
}

}  // namespace
}  // namespace kvsim
