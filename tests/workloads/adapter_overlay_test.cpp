// Adapters drawn per request (workloads/adapter_overlay.h) and read from a trace column.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

#include "kvcache/base/error.h"
#include "workloads/adapter_overlay.h"
#include "workloads/trace_readers.h"

namespace kvsim {
namespace {

class CountingSource final : public RequestSource {
 public:
  CountingSource(int64_t n, uint64_t session_every = 0) : n_(n), session_every_(session_every) {}
  std::optional<TraceRequest> Next() override {
    if (next_ >= n_) return std::nullopt;
    TraceRequest r;
    r.id = static_cast<uint64_t>(next_++);
    r.prompt_tokens = r.output_tokens = 1;
    if (session_every_ > 0) r.session_id = 1 + r.id / session_every_;
    return r;
  }
  std::string Describe() const override { return "counting"; }

 private:
  int64_t n_, next_ = 0;
  uint64_t session_every_;
};

// Zipf with S = 1 over 3 adapters: weights 1, 1/2, 1/3, sum 11/6: probabilities 6/11, 3/11, 2/11.
TEST(AdapterOverlayTest, ZipfProbabilities) {
  const AdapterOverlayOptions o = ParseAdapterOverlay(3, "zipf:1", 1);
  EXPECT_NEAR(AdapterProbability(o, 1), 6.0 / 11, 1e-12);
  EXPECT_NEAR(AdapterProbability(o, 2), 3.0 / 11, 1e-12);
  EXPECT_NEAR(AdapterProbability(o, 3), 2.0 / 11, 1e-12);
  EXPECT_NEAR(AdapterProbability(ParseAdapterOverlay(4, "uniform", 1), 2), 0.25, 1e-12);
}

// 110,000 draws follow those probabilities within 4 standard deviations (sqrt(n p (1 - p)) < 170).
TEST(AdapterOverlayTest, DrawsFollowTheProbabilitiesAndTheSeed) {
  const AdapterOverlayOptions o = ParseAdapterOverlay(3, "zipf:1", 5);
  auto source = ApplyAdapterOverlay(std::make_unique<CountingSource>(110000), o);
  std::map<uint32_t, double> counts;
  std::vector<uint32_t> first;
  while (auto r = source->Next()) {
    ++counts[r->adapter];
    if (first.size() < 50) first.push_back(r->adapter);
  }
  EXPECT_EQ(counts.count(0), 0u);
  EXPECT_NEAR(counts[1], 60000, 680);
  EXPECT_NEAR(counts[2], 30000, 680);
  EXPECT_NEAR(counts[3], 20000, 680);
  auto again = ApplyAdapterOverlay(std::make_unique<CountingSource>(50), o);
  for (uint32_t a : first) EXPECT_EQ(again->Next()->adapter, a);
}

// The turns of a conversation keep one adapter.
TEST(AdapterOverlayTest, ASessionKeepsItsAdapter) {
  auto source = ApplyAdapterOverlay(std::make_unique<CountingSource>(400, 4), ParseAdapterOverlay(16, "uniform", 3));
  std::map<uint64_t, uint32_t> by_session;
  while (auto r = source->Next()) {
    auto [it, fresh] = by_session.emplace(r->session_id, r->adapter);
    EXPECT_EQ(it->second, r->adapter) << "session " << r->session_id;
  }
  EXPECT_EQ(by_session.size(), 100u);
}

TEST(AdapterOverlayTest, BadPopularityIsRefused) {
  EXPECT_THROW(ParseAdapterOverlay(3, "zipf:0", 1), Error);
  EXPECT_THROW(ParseAdapterOverlay(3, "pareto:1", 1), Error);
}

// A CSV trace's adapter column: names numbered from 1 as they first appear; an empty cell is the base model.
TEST(AdapterOverlayTest, TraceColumnNamesAdapters) {
  const std::string path = ::testing::TempDir() + "adapter_column.csv";
  {
    std::ofstream f(path);
    f << "arrival,prompt_tokens,output_tokens,lora\n0,10,5,sql\n1,10,5,\n2,10,5,chat\n3,10,5,sql\n";
  }
  TraceReaderOptions o;
  o.path = path;
  o.format = TraceFormat::kGenericCsv;
  o.adapter_column = "lora";
  auto source = OpenTraceReader(o);
  std::vector<uint32_t> got;
  while (auto r = source->Next()) got.push_back(r->adapter);
  EXPECT_EQ(got, (std::vector<uint32_t>{1, 0, 2, 1}));
  o.adapter_column = "adapter";
  EXPECT_THROW(OpenTraceReader(o), Error);  // a column the header lacks
  std::remove(path.c_str());
}

// A Mooncake trace names the adapter under a key: a string or an integer; null or absent is the base model.
TEST(AdapterOverlayTest, MooncakeKeyNamesAdapters) {
  const std::string path = ::testing::TempDir() + "adapter_key.jsonl";
  {
    std::ofstream f(path);
    f << R"({"timestamp": 0, "input_length": 10, "output_length": 5, "lora": "sql"})" << "\n"
      << R"({"timestamp": 1, "input_length": 10, "output_length": 5})" << "\n"
      << R"({"timestamp": 2, "input_length": 10, "output_length": 5, "lora": 7})" << "\n"
      << R"({"timestamp": 3, "input_length": 10, "output_length": 5, "lora": null})" << "\n"
      << R"({"timestamp": 4, "input_length": 10, "output_length": 5, "lora": "sql"})" << "\n";
  }
  TraceReaderOptions o;
  o.path = path;
  o.format = TraceFormat::kMooncake;
  o.adapter_column = "lora";
  auto source = OpenTraceReader(o);
  std::vector<uint32_t> got;
  while (auto r = source->Next()) got.push_back(r->adapter);
  EXPECT_EQ(got, (std::vector<uint32_t>{1, 0, 2, 0, 1}));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kvsim
