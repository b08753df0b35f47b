#include "tests/testutil.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kvsim::testing {

std::string LlamaConfig(int hidden, int inter, int layers, int heads, int kv_heads, int vocab, bool tied, int max_pos) {
  std::ostringstream s;
  s << R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":)" << hidden
    << R"(,"intermediate_size":)" << inter << R"(,"num_hidden_layers":)" << layers << R"(,"num_attention_heads":)"
    << heads << R"(,"num_key_value_heads":)" << kv_heads << R"(,"vocab_size":)" << vocab
    << R"(,"max_position_embeddings":)" << max_pos << R"(,"tie_word_embeddings":)" << (tied ? "true" : "false")
    << R"(,"torch_dtype":"float16"})";
  return s.str();
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "kvsim_test_XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name, const std::string& text) const {
  const std::string path = File(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CommandResult RunCli(const std::vector<std::string>& args) {
  const TempDir dir;
  const std::string out_path = dir.File("stdout"), err_path = dir.File("stderr");
  std::vector<std::string> argv_storage = {KVSIM_BIN};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return {code, ReadFile(out_path), ReadFile(err_path)};
}

nlohmann::json ReplayJson(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"replay", "--quiet", "--omit-wall-time", "--json", "-"};
  all.insert(all.end(), args.begin(), args.end());
  const CommandResult r = RunCli(all);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

nlohmann::json PastedLineSettings(const std::string& line) {
  const CommandResult r = RunCli({"capacity", "--gpu", "h200", "--json", "-", "--vllm-cmd", line});
  EXPECT_EQ(r.exit_code, 0) << line << ": " << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out).at("settings") : nlohmann::json();
}

std::string MooncakeRow(int64_t ms, int64_t input, int64_t output, int64_t first_id, int64_t ids) {
  std::string h;
  for (int64_t i = 0; i < ids; ++i) h += (i ? "," : "") + std::to_string(first_id + i);
  return "{\"timestamp\": " + std::to_string(ms) + ", \"input_length\": " + std::to_string(input) +
         ", \"output_length\": " + std::to_string(output) + ", \"hash_ids\": [" + h + "]}\n";
}

}  // namespace kvsim::testing
