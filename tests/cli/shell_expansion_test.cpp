// Scripts parameterize a serve line with the shell's expansions: a default for a variable the caller may
// set (${MAXLEN:-8192}), integer arithmetic ($((32*1024))). A pasted line is read as the shell would
// expand it; what a shell would only know by running a command is refused saying so.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::PastedLineSettings;
using testing::RunCli;

std::string ExpansionRefusal(const std::string& line) {
  const auto r = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", line});
  EXPECT_EQ(r.exit_code, 2) << line << ": " << r.err;
  return r.err;
}

// `--max-model-len ${MAXLEN:-8192}` was refused as "not a number": a shell gives the default when
// MAXLEN is unset (or empty, with the colon), and MAXLEN's value when the pasted text sets it.
TEST(ShellExpansionTest, ADefaultIsTakenWhenTheVariableIsUnset) {
  const std::string serve = "vllm serve Qwen/Qwen3-8B --max-num-seqs 8 --max-model-len ";
  EXPECT_EQ(PastedLineSettings(serve + "${MAXLEN:-8192}").value("max_model_len", 0), 8192);
  EXPECT_EQ(PastedLineSettings("MAXLEN=4096 " + serve + "${MAXLEN:-8192}").value("max_model_len", 0), 4096);
  EXPECT_EQ(PastedLineSettings("MAXLEN= " + serve + "${MAXLEN:-8192}").value("max_model_len", 0), 8192);
  EXPECT_EQ(PastedLineSettings("export MAXLEN=2048; " + serve + "${MAXLEN-8192}").value("max_model_len", 0), 2048);
  EXPECT_EQ(PastedLineSettings("vllm serve ${MODEL:-Qwen/Qwen3-8B} --max-model-len 4096").value("max_model_len", 0), 4096);
  // ${NAME:+word}: the word when NAME is set, else nothing at all (no empty argument).
  const std::string optional = "vllm serve Qwen/Qwen3-8B ${PP:+--pipeline-parallel-size=2} --max-model-len 4096";
  EXPECT_EQ(PastedLineSettings(optional).value("pipeline_parallel_size", 0), 1);
  EXPECT_EQ(PastedLineSettings("PP=1 " + optional).value("pipeline_parallel_size", 0), 2);
}

// $((...)) is evaluated as bash's integer arithmetic: 32*1024 = 32768; 2**6 = 64 (with spaces inside,
// still one word to the shell); N*2 with N=4 set before the command = 8; an assignment may use one
// before it (TP=2, LEN=TP*4096 = 8192); 010 is octal (8) and 0x10 hexadecimal (16), as in bash.
TEST(ShellExpansionTest, ArithmeticIsEvaluatedAsTheShellDoes) {
  const std::string serve = "vllm serve Qwen/Qwen3-8B ";
  EXPECT_EQ(PastedLineSettings(serve + "--max-num-seqs 8 --max-model-len $((32*1024))").value("max_model_len", 0), 32768);
  EXPECT_EQ(PastedLineSettings(serve + "--max-model-len 4096 --max-num-seqs $(( 2 ** 6 ))").value("max_num_seqs", 0), 64);
  EXPECT_EQ(PastedLineSettings("N=4 " + serve + "--max-model-len 4096 --max-num-seqs $((N*2))").value("max_num_seqs", 0), 8);
  const nlohmann::json s = PastedLineSettings("TP=2 LEN=$((TP*4096)) " + serve + "-tp $TP --max-model-len $LEN");
  EXPECT_EQ(s.value("tensor_parallel_size", 0), 2);
  EXPECT_EQ(s.value("max_model_len", 0), 8192);
  EXPECT_EQ(PastedLineSettings(serve + "--max-model-len 4096 --max-num-seqs $((010 + 0x10 - (3 - 1) * 2))").value("max_num_seqs", 0),
            20);
}

// What the shell cannot evaluate without guessing is refused with the reason: a variable the text does
// not set inside arithmetic (bash reads it as 0), division by zero, and a command substitution (`$(nproc)`,
// backquotes), which kvsim does not run. Backquotes were split at their spaces and the line refused for
// a stray `-L`.
TEST(ShellExpansionTest, WhatOnlyRunningTheShellWouldTellIsRefused) {
  const std::string serve = "vllm serve Qwen/Qwen3-8B --max-model-len 4096 ";
  EXPECT_NE(ExpansionRefusal(serve + "--max-num-seqs $((BATCH*2))").find("BATCH is not set in the pasted text"), std::string::npos);
  EXPECT_NE(ExpansionRefusal(serve + "--max-num-seqs $((8/0))").find("division by zero"), std::string::npos);
  EXPECT_NE(ExpansionRefusal(serve + "--max-num-seqs $((8 > 2))").find("is not arithmetic kvsim evaluates"), std::string::npos);
  EXPECT_NE(ExpansionRefusal(serve + "-tp $(nvidia-smi -L | wc -l)").find("'$(nvidia-smi -L | wc -l)' in the pasted command line is a command substitution"),
            std::string::npos);
  const std::string backquotes = ExpansionRefusal(serve + "-tp `nvidia-smi -L | wc -l`");
  EXPECT_NE(backquotes.find("'`nvidia-smi -L | wc -l`' in the pasted command line is a command substitution"), std::string::npos)
      << backquotes;
  // A variable set by a command the server never reads stays harmless.
  EXPECT_EQ(PastedLineSettings("GPUS=$(nvidia-smi -L | wc -l) " + serve + "--max-num-seqs 8").value("max_num_seqs", 0), 8);
}

}  // namespace
}  // namespace kvsim
