// btfc's entry point: picks the subcommand and turns errors into one line
// on stderr and an exit status (1 for bad input, 2 for bad usage).
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string_view>

#include "base/error.h"
#include "cli/command.h"

namespace btfc::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}

void print_help(std::FILE* out) {
  std::fprintf(out, "usage: btfc COMMAND [ARGS]\n\ncommands:\n");
  for (const Command& c : commands())
    std::fprintf(out, "  %-40.*s %.*s\n", static_cast<int>(c.usage.size()), c.usage.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
}
}  // namespace

RegisterCommand::RegisterCommand(Command c) { registry().push_back(c); }
const std::vector<Command>& commands() { return registry(); }

int run_pahole(Args args);  // encode.cc

namespace {
// Pahole mode (btfc installed or symlinked as `pahole`): argv is pahole's.
int pahole_main(int argc, char** argv) {
  try {
    return run_pahole(Args(argv + 1, argc - 1));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "pahole (btfc): %s\n", e.message.c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "pahole (btfc): %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "pahole (btfc): out of memory\n");
    return 1;
  }
}
}  // namespace

int main(int argc, char** argv) {
  std::string_view self = argc > 0 ? argv[0] : "";
  if (size_t slash = self.rfind('/'); slash != std::string_view::npos) self.remove_prefix(slash + 1);
  if (self == "pahole") return pahole_main(argc, argv);
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    print_help(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string_view name = argv[1];
  for (const Command& c : commands()) {
    if (c.name != name) continue;
    try {
      return c.run(Args(argv + 2, argc - 2));
    } catch (const UsageError& e) {
      std::fprintf(stderr, "btfc %.*s: %s\nusage: btfc %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                   e.message.c_str(), static_cast<int>(c.usage.size()), c.usage.data());
      return 2;
    } catch (const Error& e) {
      std::fprintf(stderr, "btfc: %s\n", e.what());
      return 1;
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "btfc: out of memory\n");
      return 1;
    }
  }
  std::fprintf(stderr, "btfc: unknown command '%s' (try 'btfc help')\n", argv[1]);
  return 2;
}

}  // namespace btfc::cli

int main(int argc, char** argv) { return btfc::cli::main(argc, argv); }
