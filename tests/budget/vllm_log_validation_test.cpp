// Acceptance: against shared/validation/vllm_memory_logs_dev.csv, weights within 2% on >= 90% of
// rows, KV cache GiB and GPU KV cache tokens within 5% on >= 80% of rows.
#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace kvsim {
namespace {

TEST(VllmLogValidationTest, MeetsTheAccuracyThresholds) {
  const auto r = testing::RunCli({"validate", "--logs", testing::SharedPath("validation/vllm_memory_logs_dev.csv"),
                                  "--configs", testing::SharedPath("models"), "--min-weights-pass", "0.9",
                                  "--min-kv-pass", "0.8"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("-> PASS"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kvsim
