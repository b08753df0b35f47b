// A pasted server command line that sets one thing twice: vLLM's argparse keeps the last of a
// repeated flag, and of --X and --no-X the one given last.
#ifndef KVSIM_CLI_REPEATED_SETTINGS_H_
#define KVSIM_CLI_REPEATED_SETTINGS_H_

#include <string>
#include <vector>

namespace kvsim {

// Keeps the last of each setting in `kvsim_args` (flags, each followed by its value if it takes one) and
// adds each flag it dropped to `dropped` (once).
void KeepLastOfEachSetting(std::vector<std::string>& kvsim_args, std::vector<std::string>& dropped);

}  // namespace kvsim

#endif  // KVSIM_CLI_REPEATED_SETTINGS_H_
