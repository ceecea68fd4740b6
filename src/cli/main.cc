// btfc's entry point: picks the subcommand and turns errors into one line
// on stderr and an exit status (1 for bad input, 2 for bad usage).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "base/error.h"
#include "base/mapping_guard.h"
#include "base/trace.h"
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

unsigned parse_number(std::string_view option, std::string_view value, unsigned most) {
  unsigned long n = 0;
  bool ok = !value.empty();
  for (char c : value) {
    if (c < '0' || c > '9' || n > most) {
      ok = false;
      break;
    }
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  if (!ok || n > most)
    throw UsageError{std::string(option) + ": '" + std::string(value) + "' is not a number from 0 to " +
                     std::to_string(most)};
  return static_cast<unsigned>(n);
}

int run_pahole(Args args);  // encode.cc
extern const std::string_view kPaholeHelp;  // encode.cc

namespace {

// The usage line (two forms, "A | btfc B", on two lines), then the help.
void print_command_help(const Command& c) {
  std::string usage(c.usage);
  if (size_t bar = usage.find(" | btfc "); bar != std::string::npos) usage.replace(bar, 3, "\n       ");
  std::printf("usage: btfc %s\n\n%.*s", usage.c_str(), static_cast<int>(c.help.size()), c.help.data());
}

// `--help` or `-h` among a command's options (not after `--`, where it
// would be a file's name).
bool asks_for_help(int argc, char** argv, std::initializer_list<std::string_view> spellings) {
  for (int i = 0; i < argc; i++) {
    std::string_view a = argv[i];
    if (a == "--") return false;
    for (std::string_view s : spellings)
      if (a == s) return true;
  }
  return false;
}

// Pahole mode (btfc installed or symlinked as `pahole`): argv is pahole's.
int pahole_main(int argc, char** argv) {
  if (asks_for_help(argc - 1, argv + 1, {"--help", "-?", "--usage"})) {
    std::printf("%.*s", static_cast<int>(kPaholeHelp.size()), kPaholeHelp.data());
    return 0;
  }
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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pahole (btfc): internal error: %s\n", e.what());
    return 1;
  }
}
}  // namespace

// Installed or symlinked as `pahole`: argv is pahole's, messages say so.
bool called_as_pahole(int argc, char** argv) {
  std::string_view self = argc > 0 ? argv[0] : "";
  if (size_t slash = self.rfind('/'); slash != std::string_view::npos) self.remove_prefix(slash + 1);
  return self == "pahole";
}

int main(int argc, char** argv) {
  if (called_as_pahole(argc, argv)) return pahole_main(argc, argv);
  if (argc < 2 || (!std::strcmp(argv[1], "help") && argc == 2) || !std::strcmp(argv[1], "--help") ||
      !std::strcmp(argv[1], "-h")) {
    print_help(argc < 2 ? stderr : stdout);
    if (argc >= 2) std::printf("\n'btfc help COMMAND' or 'btfc COMMAND --help': a command's options.\n");
    return argc < 2 ? 2 : 0;
  }
  std::string_view name = argv[1];
  if (name == "--version") name = "version";
  if (name == "help") {
    // `btfc help CMD`
    for (const Command& c : commands())
      if (c.name == argv[2]) {
        print_command_help(c);
        return 0;
      }
    std::fprintf(stderr, "btfc: unknown command '%s' (try 'btfc help')\n", argv[2]);
    return 2;
  }
  for (const Command& c : commands()) {
    if (c.name != name) continue;
    if (asks_for_help(argc - 2, argv + 2, {"--help", "-h"})) {
      print_command_help(c);
      return 0;
    }
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
    } catch (const std::exception& e) {
      // A bug, not bad input (that is an Error): one line rather than an abort.
      std::fprintf(stderr, "btfc: internal error: %s\n", e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "btfc: unknown command '%s' (try 'btfc help')\n", argv[1]);
  return 2;
}

// A command that succeeded but whose output did not all reach stdout (a
// full disk, `>&-`) has failed: say so once, exit 1. Commands that check
// their own writes (dump, layout, diff) have returned non-zero already.
int finish_stdout(int status, std::string_view prefix) {
  const int error = std::fflush(stdout) == 0 ? 0 : errno;
  if ((!error && !std::ferror(stdout)) || status != 0) return status;
  std::fprintf(stderr, "%.*s: writing to standard output: %s\n", static_cast<int>(prefix.size()), prefix.data(),
               error ? std::strerror(error) : "write error");
  return 1;
}

}  // namespace btfc::cli

int main(int argc, char** argv) {
  // How messages begin that no command prints (a failed write of standard
  // output, a mapped input that shrank).
  const char* program = btfc::cli::called_as_pahole(argc, argv) ? "pahole (btfc)" : "btfc";
  btfc::MappingGuard::set_program(program);
  btfc::trace::start_from_env();
  const int status = btfc::cli::main(argc, argv);
  btfc::trace::finish();
  return btfc::cli::finish_stdout(status, program);
}
