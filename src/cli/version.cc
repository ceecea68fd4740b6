// `btfc version`: the btfc version and the pahole version whose encoding
// rules it follows.
#include <cstdio>

#include "cli/command.h"

namespace btfc::cli {
namespace {

int run_version(Args) {
  std::printf("btfc 0.1.0 (follows pahole v1.31)\n");
  return 0;
}

RegisterCommand reg{{"version", "version", "print the version", run_version,
                     "Prints btfc's version and the pahole version whose encoding rules it\n"
                     "follows (also `btfc --version`).\n"}};

}  // namespace
}  // namespace btfc::cli
