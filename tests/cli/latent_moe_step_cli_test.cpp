// Nemotron-3's LatentMoE in a step: the routed experts work at the latent width, between projections
// down to it and back up (vLLM's nemotron_h.py NemotronHMoE). Figures by hand from the preset's config.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

// NVIDIA-Nemotron-3-Super-120B-A12B at TP 4: hidden 4,096, latent 1,024, 40 MoE layers of 512 experts of
// 2,688 (relu2, no gate: one up projection), 22 routed a token. 2,048 decode tokens: the experts' up
// projection does 2,048 x 22 x 2 x (2,688 / 4) x 1,024 x 40 = 2,480,343,613,440 FLOPs (four times that at
// the hidden width); each latent projection 2 x 2,048 x 1,024 x 4,096 x 40 = 687,194,767,360.
TEST(LatentMoeStepCliTest, ExpertsWorkAtTheLatentWidth) {
  const auto r = testing::RunCli({"step", "--model", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", "--gpu", "h200", "-tp", "4",
                                  "--decode-seqs", "2048", "--decode-context", "1000", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  double up = -1, down_proj = -1, up_proj = -1;
  for (const nlohmann::json& o : j.at("operators")) {
    if (o.at("name") == "experts_up") up = o.at("flops").get<double>();
    if (o.at("name") == "latent_down_proj") down_proj = o.at("flops").get<double>();
    if (o.at("name") == "latent_up_proj") up_proj = o.at("flops").get<double>();
  }
  EXPECT_DOUBLE_EQ(up, 2480343613440.0);
  EXPECT_DOUBLE_EQ(down_proj, 687194767360.0);
  EXPECT_DOUBLE_EQ(up_proj, 687194767360.0);
}

}  // namespace
}  // namespace kvsim
