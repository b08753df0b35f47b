// The shell around a pasted server command line, as users paste it in bug reports: the prompt it was
// copied with, comments, `sudo`, `export VAR=value` commands before it, redirections in the middle and
// placeholders left unfilled. Each is read as a shell reads it, or refused saying why; the server's
// own arguments are never dropped without a word.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::PastedLineSettings;
using testing::RunCli;

bool Noted(const std::string& line, const std::string& text) {
  const auto r = RunCli({"capacity", "--gpu", "h200", "--json", "-", "--vllm-cmd", line});
  if (r.exit_code != 0) return false;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const auto& note : j.at("notes"))
    if (note.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

const char* const kPlain = "vllm serve Qwen/Qwen3-8B --max-model-len 4096 --max-num-seqs 8";

// `sudo docker run ...` (vllm-project/vllm PR #35720), `export CUDA_VISIBLE_DEVICES=1,2` on a line of its
// own before the command (vllm-project/vllm#22303), `export X=1; ...` and `export X=1 && ...` were refused as
// not starting with vllm serve; a shell runs the server with that environment.
TEST(PastedShellTextTest, SudoAndExportBeforeTheCommandAreTheShells) {
  const nlohmann::json plain = PastedLineSettings(kPlain);
  for (const std::string prefix : {"sudo ", "sudo -E ", "sudo -u ubuntu ", "export CUDA_VISIBLE_DEVICES=1,2\n\n",
                                   "export CUDA_VISIBLE_DEVICES=0; ", "export HF_HOME=/data CUDA_VISIBLE_DEVICES=0 && "})
    EXPECT_EQ(PastedLineSettings(prefix + kPlain), plain) << prefix;
  const auto docker = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd",
                              "sudo docker run --gpus=all --ipc=host vllm/vllm-openai:latest --model Qwen/Qwen3-8B "
                              "--max-model-len 4096"});
  EXPECT_EQ(docker.exit_code, 0) << docker.err;
}

// A prompt copied with the line (`$ `, a root prompt `# `, `(venv) user@host:dir# `) is not the command.
TEST(PastedShellTextTest, APromptBeforeTheCommandIsDroppedAndSaid) {
  const nlohmann::json plain = PastedLineSettings(kPlain);
  for (const std::string prompt : {"$ ", "# ", "(vllm) root@ubuntu:/home/ubuntu/workspace/vllm# ", "user@gpu01:~$ "}) {
    EXPECT_EQ(PastedLineSettings(prompt + kPlain), plain) << prompt;
    EXPECT_TRUE(Noted(prompt + kPlain, "is the shell prompt it was copied with")) << prompt;
  }
}

// A comment ends at its line: after the command it is dropped (it was refused as a second positional); in
// the middle of a backslash-continued command it ends the command in a shell, so the lines after it would
// never reach the server: refused, naming them, rather than planned with or without them.
TEST(PastedShellTextTest, CommentsAreTheShellsAndOneThatCutsTheCommandIsRefused) {
  const nlohmann::json plain = PastedLineSettings(kPlain);
  EXPECT_EQ(PastedLineSettings(std::string(kPlain) + "  # 4k context for the 24 GB card"), plain);
  EXPECT_EQ(PastedLineSettings("vllm serve Qwen/Qwen3-8B \\\n  --max-model-len 4096 \\\n  --max-num-seqs 8\n# --enforce-eager"), plain);
  const auto cut = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd",
                           "vllm serve Qwen/Qwen3-8B \\\n  # --max-model-len 4096 \\\n  --max-num-seqs 8"});
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_NE(cut.err.find("the comment '# --max-model-len 4096 \\' ends the command in a shell"), std::string::npos) << cut.err;
  EXPECT_NE(cut.err.find("'--max-num-seqs 8' and what follows are not the server's arguments"), std::string::npos) << cut.err;
  // A # inside a word or in quotes is no comment.
  EXPECT_EQ(PastedLineSettings(std::string(kPlain) + " --served-model-name 'qwen #1' --api-key abc#def"), plain);
}

// `vllm serve <PATH>/model ...` (vllm-project/vllm#17327) was read as a redirection that ended the
// command: the flags after it dropped and vLLM's default model planned. A placeholder is refused, naming it;
// a real redirection in the middle of the command leaves the arguments after it to the server, as a shell does.
TEST(PastedShellTextTest, APlaceholderIsRefusedAndARedirectionKeepsTheArgumentsAfterIt) {
  for (const std::string line : {"VLLM_USE_V1=0 vllm serve <PATH>/nytopop_Qwen3-30B-A3B.w4a16 --max-num-seqs 8",
                                 "vllm serve <model> --max-model-len 4096", "vllm serve --model <your-model-path>"}) {
    const auto r = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", line});
    EXPECT_EQ(r.exit_code, 2) << line;
    EXPECT_NE(r.err.find("is a placeholder to fill in"), std::string::npos) << line << ": " << r.err;
  }
  const nlohmann::json plain = PastedLineSettings(kPlain);
  const std::string redirected = "vllm serve Qwen/Qwen3-8B > server.log --max-model-len 4096 2> err.log --max-num-seqs 8";
  EXPECT_EQ(PastedLineSettings(redirected), plain);
  EXPECT_TRUE(Noted(redirected, "`> server.log 2> err.log` in the server command is the shell's"));
}

// A script pasted whole sets a variable and uses it (`model_path=...` then `vllm serve $model_path`,
// vllm-project/vllm#15386): the value is the one set before the command. An unset one standing for the model
// is refused as such (it was looked up as a model named '$model_path'); elsewhere it is left as written, so a
// flag without effect (--master-addr $HEAD_ADDR) keeps the line and a number refuses it naming the flag.
// `uv run vllm serve` (vllm-project/vllm#33155) runs the command in the project's environment.
TEST(PastedShellTextTest, VariablesSetInThePasteAreExpandedAndUvRunIsTheShells) {
  const nlohmann::json plain = PastedLineSettings(kPlain);
  EXPECT_EQ(PastedLineSettings("M=Qwen/Qwen3-8B\nLEN=4096\nvllm serve $M --max-model-len ${LEN} --max-num-seqs 8"), plain);
  EXPECT_EQ(PastedLineSettings(std::string("uv run ") + kPlain), plain);
  EXPECT_EQ(PastedLineSettings(std::string(kPlain) + " --master-addr $HEAD_ADDR").at("max_model_len"), 4096);
  for (const std::string line : {"vllm serve $MODEL -tp 2", "vllm serve ${MODEL_PATH} -tp 2", "vllm serve --model=$MODEL"}) {
    const auto r = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", line});
    EXPECT_EQ(r.exit_code, 2) << line;
    EXPECT_NE(r.err.find("is a shell variable the pasted text does not set"), std::string::npos) << line << ": " << r.err;
  }
  const auto len = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", "vllm serve Qwen/Qwen3-8B --max-model-len $LEN"});
  EXPECT_EQ(len.exit_code, 2);
  EXPECT_NE(len.err.find("--max-model-len: '$LEN' is not a number"), std::string::npos) << len.err;
}

// docker run options that take a value beyond the common ones (--stop-timeout 30, --health-interval 30s,
// --memory-swap -1, --sysctl, --dns) took their value for the image ("image 30 is not vLLM's").
TEST(PastedShellTextTest, EveryDockerRunOptionWithAValueSkipsIt) {
  const nlohmann::json plain = PastedLineSettings(kPlain);
  for (const std::string options : {"--stop-timeout 30", "--health-interval 30s --health-retries 3", "--memory-swap -1",
                                    "--sysctl net.core.somaxconn=1024 --dns 8.8.8.8", "-c 512 --pids-limit 4096"})
    EXPECT_EQ(PastedLineSettings("docker run --gpus all " + options +
                       " vllm/vllm-openai:latest Qwen/Qwen3-8B --max-model-len 4096 --max-num-seqs 8"),
              plain)
        << options;
}

// A compare deployment pasted with its prompt or a comment ("unexpected argument '$'" or '#' before).
TEST(PastedShellTextTest, ACompareDeploymentIsReadWithoutItsPromptAndComments) {
  const auto r = RunCli({"compare", "--gpu", "h200", "--synthetic", "10", "--rate", "2", "--json", "-", "--a",
                         "--max-num-seqs 16  # the small batch", "--b", "$ vllm serve Qwen/Qwen3-8B --max-num-seqs 32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("is the shell prompt it was copied with"), std::string::npos) << r.out.substr(0, 2000);
}

// Launch wrappers that run the command unchanged were refused as not starting with vllm serve: the
// interpreter by path or with its own options, vLLM's CLI module, time, env, taskset and numactl.
TEST(PastedShellTextTest, LaunchWrappersAndInterpreterFormsRunTheServer) {
  const nlohmann::json plain = PastedLineSettings(kPlain);
  const std::string args = " --max-model-len 4096 --max-num-seqs 8";
  for (const std::string launch :
       {"/usr/bin/python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B",
        ".venv/bin/python -u -X faulthandler -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B",
        "python -m vllm.entrypoints.cli.main serve Qwen/Qwen3-8B", "time vllm serve Qwen/Qwen3-8B",
        "env -u HF_TOKEN CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-8B", "taskset -c 0-15 vllm serve Qwen/Qwen3-8B",
        "numactl --cpunodebind=0 -m 0 vllm serve Qwen/Qwen3-8B"})
    EXPECT_EQ(PastedLineSettings(launch + args), plain) << launch;
}

// `bash -c "vllm serve ..."` (a container's or a job's command string) is the command inside the string,
// read as the shell reads it; a string that runs no server is refused naming what it starts with.
TEST(PastedShellTextTest, AShellGivenTheCommandAsAStringRunsIt) {
  const nlohmann::json plain = PastedLineSettings(kPlain);
  EXPECT_EQ(PastedLineSettings(std::string("bash -c '") + kPlain + "'"), plain);
  EXPECT_EQ(PastedLineSettings(std::string("HF_HOME=/data /bin/sh -lc \"export A=1 && ") + kPlain + " 2>&1 | tee log\""), plain);
  // A container whose entrypoint is the shell: `docker run --entrypoint /bin/bash IMAGE -c "vllm serve ..."`.
  EXPECT_EQ(PastedLineSettings(std::string("docker run --gpus all --entrypoint /bin/bash vllm/vllm-openai:latest -c '") + kPlain + "'"),
            plain);
  const auto echo = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", "bash -c 'echo hi'"});
  EXPECT_EQ(echo.exit_code, 2);
  EXPECT_NE(echo.err.find("(got 'echo hi')"), std::string::npos) << echo.err;
}

// A line copied from a blog or a document whose editor turned `--` into an en dash (–max-model-len), an
// em dash or a minus sign was refused as "a second positional argument"; vLLM refuses it too, and the
// reason now names the dash.
TEST(PastedShellTextTest, ATypographicDashIsNamedAsTheReason) {
  for (const char* flag : {"\u2013max-model-len", "\u2014max-model-len", "\u2212\u2212max-model-len"}) {
    const auto r = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", std::string(kPlain) + " " + flag + " 2048"});
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_NE(r.err.find("starts with a typographic dash, not --"), std::string::npos) << r.err;
  }
}

// A script saved with a byte-order mark and pasted whole was refused as "must start with `vllm serve`
// (got 'vllm serve ...')", the mark invisible in the message; a shell fails to run it too.
TEST(PastedShellTextTest, AByteOrderMarkIsNamedAsTheReason) {
  const auto r = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", std::string("\xEF\xBB\xBF") + kPlain});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the text starts with a UTF-8 byte-order mark"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvsim
