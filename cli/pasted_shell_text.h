// What a shell removes from a pasted server command line before it splits it into words: comments
// (`# ...` to the end of the line) and the prompt the line was copied with (`$ vllm serve ...`,
// `(venv) user@host:~# vllm serve ...`).
#ifndef KVSIM_CLI_PASTED_SHELL_TEXT_H_
#define KVSIM_CLI_PASTED_SHELL_TEXT_H_

#include <string>
#include <vector>

namespace kvsim {

struct PastedShellText {
  std::string text;                // the command line without its comments and prompt
  std::vector<std::string> notes;  // what was removed that a reader might think the server saw
};

// Throws kvsim::Error, naming `what` (where the text came from), when a comment cuts the command short
// in a shell: a backslash at the end of a comment continues nothing, so the lines after it are commands
// of their own, not the server's arguments.
PastedShellText WithoutShellCommentsAndPrompt(const std::string& text, const std::string& what);

}  // namespace kvsim

#endif  // KVSIM_CLI_PASTED_SHELL_TEXT_H_
