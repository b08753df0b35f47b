// Helpers shared by the kvsim tests.
#ifndef KVSIM_TESTS_TESTUTIL_H_
#define KVSIM_TESTS_TESTUTIL_H_

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kvcache/model/model_config_parser.h"
#include "kvcache/model/model_spec.h"
#include "workloads/request_source.h"

namespace kvsim::testing {

// Hand-made requests, in the order given, as a request source.
class VectorSource final : public RequestSource {
 public:
  explicit VectorSource(std::vector<TraceRequest> requests) : requests_(std::move(requests)) {}
  std::optional<TraceRequest> Next() override {
    if (next_ >= requests_.size()) return std::nullopt;
    return requests_[next_++];
  }
  std::string Describe() const override { return "hand-made"; }

 private:
  std::vector<TraceRequest> requests_;
  size_t next_ = 0;
};

inline std::string SharedPath(const std::string& rel) { return std::string(KVSIM_SHARED_DIR) + "/" + rel; }
inline std::string TestDataPath(const std::string& rel) { return std::string(KVSIM_TEST_DATA_DIR) + "/" + rel; }

// Parses a config.json written inline in a test.
inline ModelSpec SpecFromJson(const std::string& text) {
  return ParseModelConfig(nlohmann::json::parse(text), "inline-config.json");
}

// A config.json kvsim must refuse, the message naming `reason`.
inline void ExpectConfigRefused(const std::string& config, const std::string& reason) {
  try {
    SpecFromJson(config);
    ADD_FAILURE() << "accepted " << config;
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

inline ModelSpec SharedModel(const std::string& file) { return LoadModelConfigFile(SharedPath("models/" + file)); }

// A Llama-style dense config: gated MLP, RMSNorm, untied embeddings unless told otherwise.
std::string LlamaConfig(int hidden, int inter, int layers, int heads, int kv_heads, int vocab, bool tied = false,
                        int max_pos = 4096);

// A fresh directory under the system's temporary directory, removed with everything in it when
// the object goes out of scope; every test that writes files writes them here, so `ctest -j`
// runs never share a path.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // `path()/name`.
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  // Writes `text` to `path()/name` and returns the path.
  std::string Write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

std::string ReadFile(const std::string& path);

struct CommandResult {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs the kvsim executable with `args` (the CLI is linked into it only), capturing stdout,
// stderr and the exit code; a signal death is reported as 128 + the signal number.
CommandResult RunCli(const std::vector<std::string>& args);

// Bad input: exit 2 and one line on stderr (no usage dump) that contains `must_contain`.
inline void ExpectOneLineError(const CommandResult& r, const std::string& must_contain) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(must_contain), std::string::npos) << r.err;
}

// `kvsim replay --quiet --omit-wall-time --json - ARGS`, parsed (an empty object, and a test
// failure, when it exits non-zero).
nlohmann::json ReplayJson(const std::vector<std::string>& args);

// The "settings" object of `kvsim capacity --gpu h200 --json - --vllm-cmd LINE`: what a pasted serve
// line plans (an empty value, and a test failure, when it exits non-zero).
nlohmann::json PastedLineSettings(const std::string& line);

// One Mooncake JSONL row: `ids` consecutive 512-token block ids from `first_id`.
std::string MooncakeRow(int64_t ms, int64_t input, int64_t output, int64_t first_id, int64_t ids);

}  // namespace kvsim::testing

#endif  // KVSIM_TESTS_TESTUTIL_H_
