// A start-up log row run with LoRA or a speculative proposer is planned with them: the columns
// max_loras, max_lora_rank and speculative_config reach the deployment as the flags --max-loras,
// --max-lora-rank and --speculative-config do, and a value the flag refuses is an error naming the
// file, line and column.
//
// The rows plan meta-llama/Llama-3.1-8B-Instruct (preset; h 4096, 32 layers, 32 query heads x 128,
// 8 KV heads x 128, intermediate 14336, vocab 128256 untied, bf16) on an H100 80GB, vLLM 0.19 (V1),
// utilization 0.9, 8,192 tokens. Only the flags differ between rows, so the KV budget of a row
// with LoRA or a drafter is the plain row's minus the bytes those add, derived here by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "kvcache/base/error.h"
#include "kvcache/budget/log_validation.h"
#include "kvcache/budget/vllm_log_rows.h"
#include "kvcache/model/model_catalog.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The reader's columns (any order, others ignored) with the three serve-flag columns last.
const std::string kHeader =
    "row_id,engine,vllm_version,model_id,quantization,dtype,kv_cache_dtype,gpu_model,total_gpu_memory_gib,"
    "tensor_parallel_size,pipeline_parallel_size,gpu_memory_utilization,max_model_len,max_num_seqs,"
    "max_num_batched_tokens,block_size,weights_gib,non_torch_gib,activation_peak_gib,kv_cache_gib,"
    "gpu_kv_cache_tokens,num_gpu_blocks,max_concurrency,config_file,config_match,source,notes,source_detail,"
    "max_loras,max_lora_rank,speculative_config";

// A Llama-3.1-8B / H100 row with the three serve-flag cells given (CSV-quoted by the caller).
std::string Row(const std::string& id, const std::string& flags) {
  return id + ",v1,0.19.0,meta-llama/Llama-3.1-8B-Instruct,,,,NVIDIA H100 80GB HBM3,79.19,1,,0.9,8192,,,,"
              "14.99,,,50.0,400000,,,,,,,," + flags;
}

LogValidation Validate(const std::string& csv_text) {
  testing::TempDir dir;
  return ValidateAgainstLogs(ReadVllmLogRows(dir.Write("logs.csv", csv_text)), "", DataDirectory(), dir.path());
}

TEST(VllmLogServeFlagsTest, CellsMapOntoTheFlagsTheyStandFor) {
  testing::TempDir dir;
  const auto rows = ReadVllmLogRows(dir.Write(
      "logs.csv", kHeader + "\n" + Row("T1", ",,") + "\n" + Row("T2", "2,64,\"{\"\"method\"\":\"\"ngram\"\",\"\"num_speculative_tokens\"\":3}\"") +
                      "\n" + Row("T3", ",32,") + "\n"));
  ASSERT_EQ(rows.size(), 3u);
  const DeploymentOptions plain = OptionsForLogRow(rows[0]);
  EXPECT_FALSE(plain.enable_lora);
  EXPECT_TRUE(plain.speculative_config.empty());
  const DeploymentOptions both = OptionsForLogRow(rows[1]);
  EXPECT_TRUE(both.enable_lora);
  EXPECT_EQ(both.max_loras, "2");
  EXPECT_EQ(both.max_lora_rank, "64");
  EXPECT_EQ(both.speculative_config, R"({"method":"ngram","num_speculative_tokens":3})");
  // One of the two LoRA cells turns LoRA on; the other keeps vLLM's default.
  const DeploymentOptions rank_only = OptionsForLogRow(rows[2]);
  EXPECT_TRUE(rank_only.enable_lora);
  EXPECT_EQ(rank_only.max_loras, "");
  EXPECT_EQ(rank_only.max_lora_rank, "32");
}

// --max-loras 1 --max-lora-rank 16 on vLLM 0.19 (no extra vocabulary since 0.12). Per decoder layer,
// one slot at rank 16, bf16 (vllm/lora/layers/base_linear.py create_lora_weights; the module
// formula of lora_memory_test.cpp):
//   qkv_proj      A 3 slices x [16, 4096] x 2 B = 393,216;  B [4096 + 1024 + 1024, 16] x 2 B = 196,608
//   o_proj        A [16, 4096] x 2 B = 131,072;             B [4096, 16] x 2 B = 131,072
//   gate_up_proj  A 2 x [16, 4096] x 2 B = 262,144;         B 2 x [14336, 16] x 2 B = 917,504
//   down_proj     A [16, 14336] x 2 B = 458,752;            B [4096, 16] x 2 B = 131,072
//   = 2,621,440 per layer, x 32 layers = 83,886,080
// embed_tokens: A [128256, 16] x 2 B = 4,104,192, B [4096, 16] x 2 B = 131,072;
// lm_head: A [16, 4096] x 2 B = 131,072, B [128256, 16] x 2 B = 4,104,192.
// Total 83,886,080 + 2 x 4,235,264 = 92,356,608 bytes, loaded with the model (vLLM counts them in
// "Model loading took"), so the KV budget shrinks by exactly that.
TEST(VllmLogServeFlagsTest, LoraRowIsPlannedWithItsSlots) {
  const LogValidation v = Validate(kHeader + "\n" + Row("T1", ",,") + "\n" + Row("T2", "1,16,") + "\n");
  ASSERT_EQ(v.rows.size(), 2u);
  const ValidatedRow &plain = v.rows[0], &lora = v.rows[1];
  ASSERT_TRUE(plain.planned && lora.planned) << plain.note << lora.note;
  constexpr double kLoraBytes = 92356608;
  EXPECT_NEAR((*plain.kv_cache_gib.predicted - *lora.kv_cache_gib.predicted) * kGiB, kLoraBytes, 1.0);
  EXPECT_NEAR((*lora.weights_gib.predicted - *plain.weights_gib.predicted) * kGiB, kLoraBytes, 1.0);
}

// {"method": "eagle", "num_speculative_tokens": 3} without a draft config: an EAGLE head of the
// target's shape (vllm/v1/spec_decode/eagle.py, llama_eagle.py; embed_tokens and lm_head shared):
//   fc [4096, 2 x 4096] = 33,554,432; q [4096, 4096] = 16,777,216; k, v [1024, 4096] = 8,388,608;
//   o 16,777,216; gate_up [28672, 4096] = 117,440,512; down [4096, 14336] = 58,720,256;
//   2 layer norms 8,192 + the final norm 4,096
//   = 251,670,528 elements x 2 B = 503,341,056 bytes, out of the KV budget.
// Its one attention layer joins the pool: a 16-token block holds 33 layers x K and V x 8 heads x
// 128 x 2 B x 16 = 2,162,688 bytes (the target's 2,097,152 x 33 / 32), so the tokens are whole
// blocks of that.
TEST(VllmLogServeFlagsTest, DrafterRowIsPlannedWithItsHeadAndItsKvLayer) {
  const LogValidation v = Validate(kHeader + "\n" + Row("T1", ",,") + "\n" +
                                   Row("T2", ",,\"{\"\"method\"\":\"\"eagle\"\",\"\"num_speculative_tokens\"\":3}\"") + "\n");
  ASSERT_EQ(v.rows.size(), 2u);
  const ValidatedRow &plain = v.rows[0], &eagle = v.rows[1];
  ASSERT_TRUE(plain.planned && eagle.planned) << plain.note << eagle.note;
  constexpr double kHeadBytes = 503341056;
  EXPECT_NEAR((*plain.kv_cache_gib.predicted - *eagle.kv_cache_gib.predicted) * kGiB, kHeadBytes, 1.0);
  const double kv_bytes = *eagle.kv_cache_gib.predicted * kGiB;
  EXPECT_DOUBLE_EQ(*eagle.tokens.predicted, std::floor(kv_bytes / 2162688.0) * 16);
}

// A draft "model" naming a config shipped beside the table is read from there, as config_file is.
// yuhuili/EAGLE3-LLaMA3.1-Instruct-8B's config (one layer of Llama-3.1-8B's shape, draft vocabulary
// 32,000) as an EAGLE-3 head (vllm/model_executor/models/llama_eagle3.py; embed_tokens shared):
//   fc [4096, 3 x 4096] = 50,331,648; q [4096, 2 x 4096] = 33,554,432 and k, v [1024, 8192] =
//   16,777,216 (the first layer reads embedding ++ hidden state); o 16,777,216; gate_up
//   117,440,512; down 58,720,256; 2 layer norms + final norm + hidden_norm 16,384; lm_head
//   [32000, 4096] = 131,072,000 -> 424,689,664 elements x 2 B = 849,379,328 B, plus the int64
//   draft-to-target map over 32,000 ids, 256,000 B: 849,635,328 bytes out of the KV budget.
TEST(VllmLogServeFlagsTest, DraftConfigBesideTheTableIsRead) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("configs"));
  dir.Write("configs/eagle3-llama31-8b.json", R"({
    "architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_act": "silu",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
    "num_hidden_layers": 1, "max_position_embeddings": 2048, "rms_norm_eps": 1e-05,
    "tie_word_embeddings": false, "torch_dtype": "float16", "vocab_size": 128256, "draft_vocab_size": 32000})");
  const std::string csv = dir.Write(
      "logs.csv", kHeader + "\n" + Row("T1", ",,") + "\n" +
                      Row("T2", ",,\"{\"\"method\"\":\"\"eagle3\"\",\"\"model\"\":\"\"configs/eagle3-llama31-8b.json\"\","
                                "\"\"num_speculative_tokens\"\":3}\"") + "\n");
  const LogValidation v = ValidateAgainstLogs(ReadVllmLogRows(csv), "", DataDirectory(), dir.path());
  ASSERT_EQ(v.rows.size(), 2u);
  ASSERT_TRUE(v.rows[0].planned && v.rows[1].planned) << v.rows[0].note << v.rows[1].note;
  EXPECT_NEAR((*v.rows[0].kv_cache_gib.predicted - *v.rows[1].kv_cache_gib.predicted) * kGiB, 849635328.0, 1.0);
}

// A table written before the serve-flag columns existed still reads: every row without LoRA or a
// proposer.
TEST(VllmLogServeFlagsTest, TableWithoutTheColumnsReads) {
  testing::TempDir dir;
  const std::string old_header = kHeader.substr(0, kHeader.find(",max_loras"));
  const std::string row = Row("T1", "");  // ends in the comma before the flag cells
  const auto rows = ReadVllmLogRows(dir.Write("logs.csv", old_header + "\n" + row.substr(0, row.size() - 1) + "\n"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].lora_enabled());
  EXPECT_TRUE(rows[0].speculative_config.empty());
}

// The flag's own check, with file, line and column in front.
TEST(VllmLogServeFlagsTest, ValuesTheFlagRefusesNameFileLineAndColumn) {
  struct Case {
    std::string flags, message;
  };
  for (const Case& c : {Case{",12,", ":3: column max_lora_rank: --max-lora-rank: 12 is not one vLLM takes"},
                        Case{"0,,", ":3: column max_loras: --max-loras: must be between 1 and 4096"},
                        Case{"x,,", ":3: column max_loras: --max-loras"},
                        Case{",,{oops", ":3: column speculative_config: --speculative-config: '{oops' is not valid JSON"},
                        Case{",,\"{\"\"num_speculative_tokens\"\":2}\"",
                             ":3: column speculative_config: --speculative-config: give \"method\""}}) {
    testing::TempDir dir;
    const std::string path = dir.Write("logs.csv", kHeader + "\n" + Row("T1", ",,") + "\n" + Row("T2", c.flags) + "\n");
    try {
      ReadVllmLogRows(path);
      ADD_FAILURE() << c.flags << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + c.message), std::string::npos) << e.what();
    }
  }
}

// The dev table's rows logged with LoRA (R131-R135) or an n-gram proposer (R136, R137), planned
// with those settings from their columns: KV cache GiB within 5% of the log on at least 80% of
// them, for each kind.
TEST(VllmLogServeFlagsTest, DevTableLoraAndSpeculativeRowsMatchTheirLogs) {
  const std::string dir = std::string(KVSIM_DATA_DIR_FOR_TESTS) + "/validation";
  const auto rows = ReadVllmLogRows(dir + "/vllm_memory_logs_dev.csv");
  std::vector<VllmLogRow> lora, speculative;
  for (const VllmLogRow& r : rows) {
    if (r.lora_enabled()) lora.push_back(r);
    if (!r.speculative_config.empty()) speculative.push_back(r);
  }
  ASSERT_GE(lora.size(), 5u);
  ASSERT_GE(speculative.size(), 2u);
  for (const auto* kind : {&lora, &speculative}) {
    const LogValidation v = ValidateAgainstLogs(*kind, "", DataDirectory(), dir);
    EXPECT_EQ(v.planned, static_cast<int>(kind->size()));
    EXPECT_EQ(v.kv_cache.checked, static_cast<int>(kind->size()));
    EXPECT_GE(v.kv_cache.rate(), 0.8) << v.kv_cache.within << "/" << v.kv_cache.checked;
  }
}

}  // namespace
}  // namespace kvsim
