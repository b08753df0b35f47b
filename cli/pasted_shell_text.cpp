#include "cli/pasted_shell_text.h"

#include <cctype>
#include <regex>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"

namespace kvsim {
namespace {

// The first word of a command that launches a server (or sets up its environment): what a prompt precedes.
bool StartsALaunch(const std::string& word) {
  static const char* const kWords[] = {"vllm", "python", "python3", "docker", "podman", "sudo", "nohup", "exec", "export", "sglang"};
  for (const char* w : kWords)
    if (word == w) return true;
  const size_t eq = word.find('=');
  if (eq != std::string::npos && eq > 0) {  // VAR=value
    for (size_t i = 0; i < eq; ++i)
      if (!(std::isalnum(static_cast<unsigned char>(word[i])) || word[i] == '_')) return false;
    return true;
  }
  return word.size() > 5 && word.compare(word.size() - 5, 5, "/vllm") == 0;
}

// A prompt copied with the line: `$`, `#` or `%` alone, or ending `user@host:dir` (after an optional
// `(venv)`), then a space and the command. Returns the prompt's length, or 0.
size_t PromptLength(const std::string& text) {
  static const std::regex kPrompt(R"(^[ \t]*(\([^()\n]*\)[ \t]*)?[^ \t\n'"]*[$#%][ \t]+)");
  std::smatch m;
  if (!std::regex_search(text, m, kPrompt)) return 0;
  const size_t end = static_cast<size_t>(m.length(0));
  const size_t word_end = text.find_first_of(" \t\n", end);
  return StartsALaunch(text.substr(end, word_end == std::string::npos ? std::string::npos : word_end - end)) ? end : 0;
}

}  // namespace

PastedShellText WithoutShellCommentsAndPrompt(const std::string& text, const std::string& what) {
  // A script saved with a byte-order mark and pasted whole ($(cat start.sh)): invisible in any message, and a
  // shell reads it as part of the first command's name, so the command would not run.
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
    throw Error(what + ": the text starts with a UTF-8 byte-order mark (invisible, written by some editors), which a "
                "shell reads as part of the first command's name, so the command would not run; save it without one");
  PastedShellText out;
  size_t i = PromptLength(text);
  if (i > 0) {
    std::string prompt = text.substr(0, i);
    while (!prompt.empty() && (prompt.back() == ' ' || prompt.back() == '\t')) prompt.pop_back();
    out.notes.push_back("`" + prompt + "` before the command is the shell prompt it was copied with, not part of it");
  }
  char quote = 0;
  bool word_start = true;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (quote == '"' && c == '\\' && i + 1 < text.size()) out.text += c, out.text += text[++i];
      else {
        if (c == quote) quote = 0;
        out.text += c;
      }
      continue;
    }
    if (c == '\\' && i + 1 < text.size()) {  // an escaped character (\# is no comment), or a continuation
      out.text += c, out.text += text[++i];
      word_start = false;
      continue;
    }
    if (c == '#' && word_start) {
      const size_t eol = std::min(text.find('\n', i), text.size());
      std::string comment = text.substr(i, eol - i);
      while (!comment.empty() && std::isspace(static_cast<unsigned char>(comment.back()))) comment.pop_back();
      const size_t next = text.find_first_not_of(" \t\r\n", eol);
      // A shell ends the command at the comment's line; the backslash inside it continues nothing.
      if (!comment.empty() && comment.back() == '\\' && next != std::string::npos) {
        const size_t next_eol = std::min(text.find('\n', next), text.size());
        throw Error(what + ": the comment '" + comment + "' ends the command in a shell (a backslash inside a comment "
                    "continues nothing), so '" + text.substr(next, next_eol - next) + "' and what follows are not the "
                    "server's arguments; delete the commented line, or put the comment after the command");
      }
      i = eol - 1;  // the newline itself is kept
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    word_start = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    out.text += c;
  }
  return out;
}

}  // namespace kvsim
