// Subcommands of the btfc binary. Each command lives in its own file in this
// folder and registers itself with a static RegisterCommand, so adding a
// command touches no shared table:
//
//   static int run_stats(Args args);
//   static RegisterCommand reg{{"stats", "stats FILE", "count DIEs per tag", run_stats}};
//
// A command returns the exit status; it reports bad input by throwing
// btfc::Error, which main() prints as `btfc: FILE: SECTION+0xOFF: message`.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace btfc::cli {

// The arguments after the command name.
using Args = std::span<char* const>;

struct Command {
  std::string_view name;
  std::string_view usage;    // "stats FILE"
  std::string_view summary;  // one line for `btfc help`
  int (*run)(Args args);
};

struct RegisterCommand {
  explicit RegisterCommand(Command c);
};

const std::vector<Command>& commands();

// Thrown for bad command-line usage; main() prints it with the usage line
// and exits with status 2.
struct UsageError {
  std::string message;
};

}  // namespace btfc::cli
