// The btfc binary's command line as a user meets it: every command's
// --help, every flag encode's help names is one the parser takes, and
// mistakes on the command line (a number that is not one, an empty file
// name) are one line and exit status 2, never an abort or a changed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace btfc::test {
namespace {

std::string pahole_mode_binary() { return std::filesystem::path(BTFC_BINARY).parent_path() / "pahole"; }

// The command names `btfc help` lists ("  NAME ARGS  summary").
std::vector<std::string> command_names() {
  RunResult r = run_btfc("help");
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> names;
  std::regex line(R"(^  ([a-z]+)\b)");
  size_t start = 0;
  while (start < r.out.size()) {
    size_t end = r.out.find('\n', start);
    if (end == std::string::npos) end = r.out.size();
    std::smatch m;
    std::string l = r.out.substr(start, end - start);
    if (std::regex_search(l, m, line)) names.push_back(m[1]);
    start = end + 1;
  }
  return names;
}

TEST(Cli, EveryCommandHasHelp) {
  std::vector<std::string> names = command_names();
  // The commands the README documents are all there.
  for (const char* c : {"encode", "stats", "diff", "dump", "layout", "btfdiff", "version"})
    EXPECT_NE(std::find(names.begin(), names.end(), c), names.end()) << c;
  for (const std::string& c : names) {
    RunResult help = run_btfc(c + " --help");
    EXPECT_EQ(help.status, 0) << c << ": " << help.err;
    EXPECT_EQ(help.out.rfind("usage: btfc " + c + " ", 0) == 0 || help.out.rfind("usage: btfc " + c + "\n", 0) == 0,
              true)
        << help.out;
    // A usage line, a blank line, then at least a sentence of help.
    EXPECT_GT(help.out.size(), help.out.find("\n\n") + 20) << c << " has no help text:\n" << help.out;
    EXPECT_EQ(run_btfc(c + " -h").out, help.out) << c;
    EXPECT_EQ(run_btfc("help " + c).out, help.out) << c;
  }
  RunResult unknown = run_btfc("help no_such_command");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown command 'no_such_command'"), std::string::npos) << unknown.err;
}

TEST(Cli, VersionSpellings) {
  RunResult v = run_btfc("version"), dashed = run_btfc("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(dashed.status, 0);
  EXPECT_EQ(v.out, dashed.out);
  EXPECT_NE(v.out.find("pahole v1.31"), std::string::npos) << v.out;
}

// Output that does not reach stdout (a full disk) fails the command, one
// line and exit status 1 (2 for diff), whichever command wrote it: a script piping
// `btfc stats` into a file must not take a truncated file for a result.
TEST(Cli, FullOutputFails) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "SKIPPED: no /dev/full on this machine";
  std::string obj = compile_c("full_output", "struct s { int x; } v;\n", "gcc -g -c");
  std::string btf = obj + ".btf";
  ASSERT_EQ(run_btfc("encode --btf_encode_detached=" + btf + " " + obj).status, 0);
  for (const std::string& args : std::vector<std::string>{"stats " + obj, "--version", "help", "help stats",
                                  "dump " + btf, "dump --format c " + btf, "layout " + obj, "diff " + btf + " " + btf}) {
    RunResult r = run_btfc(args + " >/dev/full");
    // diff's 1 means "the files differ": its trouble is 2, as diff(1)'s.
    EXPECT_EQ(r.status, args.rfind("diff ", 0) == 0 ? 2 : 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": one line, not:\n" << r.err;
  }
  RunResult r = run(pahole_mode_binary() + " --version >/dev/full");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.err.rfind("pahole (btfc): writing to standard output: ", 0), 0u) << r.err;
}

// The long options a help text names: "--name" or "--name=VALUE", with
// "--prefix_{a,b}" expanded.
std::set<std::string> named_options(const std::string& help) {
  std::set<std::string> out;
  std::regex opt(R"(--[a-z_-]+(\{[a-z0-9_,]+\})?)");
  for (auto it = std::sregex_iterator(help.begin(), help.end(), opt); it != std::sregex_iterator(); ++it) {
    std::string o = it->str();
    size_t brace = o.find('{');
    if (brace == std::string::npos) {
      out.insert(o);
      continue;
    }
    std::string prefix = o.substr(0, brace), list = o.substr(brace + 1, o.size() - brace - 2);
    for (size_t p = 0; p <= list.size();) {
      size_t comma = std::min(list.find(',', p), list.size());
      out.insert(prefix + list.substr(p, comma - p));
      p = comma + 1;
    }
  }
  return out;
}

// Every option encode's help (and pahole mode's) names is one the parser
// takes: given a missing FILE, the run fails opening it (status 1) or
// prints what was asked (status 0), never with a usage error (status 2).
TEST(Cli, EncodeHelpNamesOnlyOptionsItTakes) {
  std::string dir = scratch_dir();
  for (bool pahole_mode : {false, true}) {
    std::string self = pahole_mode ? pahole_mode_binary() + " " : std::string(BTFC_BINARY) + " encode ";
    RunResult help = run(self + "--help");
    ASSERT_EQ(help.status, 0) << help.err;
    std::set<std::string> options = named_options(help.out);
    // The flags Linux's scripts/Makefile.btf and link-vmlinux.sh pass.
    for (const char* o : {"--btf_gen_floats", "--lang_exclude", "--skip_encoding_btf_inconsistent_proto",
                          "--btf_gen_optimized", "--btf_features", "--btf_encode_detached", "--btf_base",
                          "--skip_encoding_btf_enum64", "--skip_encoding_btf_vars", "--jobs"})
      EXPECT_EQ(options.count(o), 1u) << o << " missing from the help";
    EXPECT_EQ(options.count("--output-dir"), pahole_mode ? 0u : 1u);
    for (const std::string& o : options) {
      if (o == "--help" || o == "--usage") continue;
      std::string arg = o;
      if (o == "--lang" || o == "--lang_exclude") arg += "=c";
      else if (o == "--btf_features" || o == "--btf_features_strict") arg += "=default";
      else if (o == "--btf_encode_detached" || o == "--btf_base" || o == "--kabi_prefix") arg += "=" + dir + "/x";
      else if (o == "--output-dir") arg += "=" + dir + "/out";
      RunResult r = run(self + arg + " " + dir + "/missing.o");
      EXPECT_NE(r.status, 2) << self << arg << ": " << r.err;
      EXPECT_EQ(r.err.find("unknown option"), std::string::npos) << arg << ": " << r.err;
    }
    // Every feature --supported_btf_features lists is named in the help.
    std::string features = run(self + "--supported_btf_features").out;
    for (size_t p = 0; p < features.size();) {
      size_t end = features.find_first_of(",\n", p);
      std::string f = features.substr(p, end - p);
      EXPECT_NE(help.out.find(f), std::string::npos) << "feature " << f << " missing from the help";
      p = end + 1;
    }
  }
  for (const char* spelling : {"-?", "--usage"}) {
    RunResult r = run(pahole_mode_binary() + " '" + spelling + "'");
    EXPECT_EQ(r.status, 0) << spelling << ": " << r.err;
    EXPECT_EQ(r.out.rfind("Usage: pahole", 0), 0u) << r.out;
  }
}

// A numeric option given something else is a usage error naming the
// option: exit status 2 and one line, not an uncaught exception.
TEST(Cli, BadNumbersAreUsageErrors) {
  struct Case {
    const char* args;
    const char* option;
  } cases[] = {
      {"layout -jx f", "-j"},
      {"layout --jobs=99999999999999999999 f", "--jobs"},
      {"layout --cacheline_size=abc f", "--cacheline_size"},
      {"layout --cacheline_size= f", "--cacheline_size"},
      {"btfdiff -jx f", "-j"},
      {"btfdiff --jobs=-1 f", "--jobs"},
      {"stats -j x f", "-j"},
      {"stats --jobs=5000 f", "-j"},
      {"encode -jx f", "-j"},
      {"encode --jobs=1x f", "-j"},
  };
  for (const Case& c : cases) {
    RunResult r = run_btfc(c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(std::string(c.option) + ": '"), std::string::npos) << c.args << ": " << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos) << c.args << ": " << r.err;
  }
}

// `--btf_encode_detached=` with an empty name once meant "no detached
// file", and the run rewrote the input ELF's .BTF in place.
TEST(Cli, EmptyFileNameLeavesTheInputAlone) {
  std::string obj = compile_c("empty_name", "struct s { int a; } v;\n", "gcc -g -c");
  std::string before = read_file(obj);
  for (const char* flag : {"--btf_encode_detached=", "--btf_base="}) {
    RunResult r = run_btfc(std::string("encode ") + flag + " " + obj);
    EXPECT_EQ(r.status, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find("needs a file name"), std::string::npos) << r.err;
    RunResult p = run(pahole_mode_binary() + " -J " + flag + " " + obj);
    EXPECT_EQ(p.status, 2) << flag << ": " << p.err;
  }
  EXPECT_EQ(read_file(obj), before) << obj << " was changed";
}

// A detached output naming FILE or BASE itself (here through a symlink and
// another spelling) is refused before anything is written.
TEST(Cli, OutputOverAnInputIsRefused) {
  std::string obj = compile_c("output_is_input", "struct s { int a; } v;\n", "gcc -g -c");
  std::string dir = std::filesystem::path(obj).parent_path().string();
  std::filesystem::create_symlink(obj, dir + "/alias.o");
  std::string base = dir + "/base.btf";
  ASSERT_EQ(run_btfc("encode --btf_encode_detached=" + base + " " + obj).status, 0);
  std::string obj_before = read_file(obj), base_before = read_file(base);
  for (const std::string& args : {"--btf_encode_detached=" + obj + " " + obj,
                                  "--btf_encode_detached=" + dir + "/alias.o " + obj,
                                  "--btf_encode_detached=" + dir + "/./" + std::filesystem::path(obj).filename().string() +
                                      " " + obj,
                                  "--btf_base=" + base + " --btf_encode_detached=" + base + " " + obj}) {
    RunResult r = run_btfc("encode " + args);
    EXPECT_EQ(r.status, 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find("name another file"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_file(obj), obj_before);
  EXPECT_EQ(read_file(base), base_before);
}

}  // namespace
}  // namespace btfc::test
