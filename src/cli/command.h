// Subcommands of the btfc binary. Each command lives in its own file in this
// folder and registers itself with a static RegisterCommand, so adding a
// command touches no shared table:
//
//   static int run_stats(Args args);
//   static RegisterCommand reg{{"stats", "stats FILE", "count DIEs per tag", run_stats, kHelp}};
//
// `btfc help CMD`, `btfc CMD --help` and `btfc CMD -h` print the usage line
// and the command's help text (its options), and exit 0.
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
  std::string_view help;     // what it does and its options, a line each
};

struct RegisterCommand {
  explicit RegisterCommand(Command c);
};

const std::vector<Command>& commands();

// The value of a numeric option (`-j 4`, `--cacheline_size=64`): a decimal
// number from 0 to `most`, or a UsageError naming the option.
unsigned parse_number(std::string_view option, std::string_view value, unsigned most);

// Thrown for bad command-line usage; main() prints it with the usage line
// and exits with status 2.
struct UsageError {
  std::string message;
};

}  // namespace btfc::cli
