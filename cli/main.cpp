// The kvsim executable: a thin shell over RunKvsim so the whole command line is testable in-process.
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return kvsim::RunKvsim(args, std::cout, std::cerr);
}
