// The btfc binary's command line as a user meets it: every command's
// --help, every flag encode's help names is one the parser takes, and
// mistakes on the command line (a number that is not one, an empty file
// name) are one line and exit status 2, never an abort or a changed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
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
    // (pahole encodes only with -J or --btf_encode_detached)
    std::string self = pahole_mode ? pahole_mode_binary() + " -J " : std::string(BTFC_BINARY) + " encode ";
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
      else if (o == "--class_name") arg += "=T";
      else if (o == "--format_path") arg += "=dwarf";
      else if (o == "--cacheline_size" || o == "--holes" || o == "--bit_holes" || o == "--hole_size_ge") arg += "=1";
      else if (o == "--exclude" || o == "--prefix_filter") arg += "=x";
      else if (o == "--separator") arg += "=,";
      RunResult r = run(self + arg + " " + dir + "/missing.o");
      // pahole mode: a layout option is taken without -J.
      if (pahole_mode && r.status == 2) r = run(pahole_mode_binary() + " " + arg + " " + dir + "/missing.o");
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

// An encode in place ended by a signal while it writes (a file size limit
// here; Ctrl-C in a kernel build the same way) leaves the input as it was
// and no temporary file beside it, and ends as the signal says (a shell's
// 128 + SIGXFSZ).
TEST(Cli, SignalDuringWriteLeavesNoTemporaryFile) {
  std::string source;  // enough types that the BTF alone outgrows the limit
  for (int i = 0; i < 200; ++i) {
    const std::string n = std::to_string(i);
    source += "struct s" + n + " { int a" + n + "; long b" + n + "[4]; struct s" + n + " *next; } v" + n + ";\n";
  }
  std::string obj = compile_c("signalled", source, "gcc -g -c");
  const std::string before = read_file(obj);
  RunResult size = run_btfc("encode --btf_encode_detached=" + obj + ".size.btf " + obj);
  ASSERT_EQ(size.status, 0) << size.err;
  ASSERT_GT(read_file(obj + ".size.btf").size(), 4096u) << "the BTF must outgrow the 2 KB limit";
  std::filesystem::remove(obj + ".size.btf");
  std::string base_obj = compile_c("signalled_base", "struct s0 { int a0; long b0[4]; struct s0 *next; } v0;\n", "gcc -g -c");
  ASSERT_EQ(run_btfc("encode --btf_encode_detached=" + base_obj + ".btf " + base_obj).status, 0);
  for (const std::string& args : {obj, "--btf_encode_detached=" + obj + ".btf " + obj,
                                  "--btf_features=default,distilled_base --btf_base=" + base_obj + ".btf " + obj}) {
    RunResult r = run("bash -c \"ulimit -f 2; exec " + std::string(BTFC_BINARY) + " encode " + args + "\"");
    EXPECT_EQ(r.status, 128 + SIGXFSZ) << args << ": " << r.err;
    EXPECT_EQ(read_file(obj), before) << args;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(obj).parent_path())) {
      const std::string name = e.path().filename().string();
      EXPECT_EQ(name.find(".tmp."), std::string::npos) << args << ": left behind: " << name;
      EXPECT_EQ(name.find(".btfc-distill"), std::string::npos) << args << ": left behind: " << name;
    }
  }
}

// A FIFO (or any file that is not a regular one) given as an input is
// refused at once: opening one to read would otherwise wait for a writer
// that never comes. `timeout` turns a hang into status 124.
TEST(Cli, FifoInputIsRefusedNotWaitedOn) {
  const std::string fifo = scratch_dir() + "/input.fifo";
  ASSERT_EQ(run("mkfifo '" + fifo + "'").status, 0);
  for (const std::string& command : {"encode --btf_encode_detached=" + fifo + ".btf " + fifo, "stats " + fifo,
                                     "dump " + fifo, "layout " + fifo, "diff " + fifo + " " + fifo}) {
    RunResult r = run("timeout 20 " + std::string(BTFC_BINARY) + " " + command);
    EXPECT_EQ(r.status, 1) << command << ": " << r.err;
    EXPECT_EQ(r.err, "btfc: " + fifo + ": not a regular file\n") << command;
  }
  std::string obj = compile_c("fifo_base", "struct s { int a; } v;\n", "gcc -g -c");
  RunResult base = run("timeout 20 " + std::string(BTFC_BINARY) + " encode --btf_base=" + fifo +
                       " --btf_encode_detached=" + fifo + ".btf " + obj);
  EXPECT_EQ(base.status, 1) << base.err;
  EXPECT_NE(base.err.find(fifo + ": not a regular file"), std::string::npos) << base.err;
}

// Split BTF (a module's) read alone, as encode's base or by dump without
// --base, is one line that says so, and the output is left alone.
TEST(Cli, SplitBtfAsABaseIsRefused) {
  std::string a = compile_c("split_base_a", "struct a { int x; } va;\n", "gcc -g -c");
  std::string b = compile_c("split_base_b", "struct a { int x; } va;\nstruct b { long y; } vb;\n", "gcc -g -c");
  ASSERT_EQ(run_btfc("encode --btf_encode_detached=" + a + ".btf " + a).status, 0);
  ASSERT_EQ(run_btfc("encode --btf_base=" + a + ".btf --btf_encode_detached=" + b + ".btf " + b).status, 0);
  const std::string out = a + ".again.btf";
  std::ofstream(out) << "previous";
  const std::string hint = "string section does not start with the empty string (split BTF? it needs its base, and cannot be one)";
  RunResult r = run_btfc("encode --btf_base=" + b + ".btf --btf_encode_detached=" + out + " " + a);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("btfc: " + b + ".btf: .BTF+0x", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(hint), std::string::npos) << r.err;
  EXPECT_EQ(read_file(out), "previous");
  RunResult dump = run_btfc("dump " + b + ".btf");
  EXPECT_EQ(dump.status, 1);
  EXPECT_NE(dump.err.find(hint), std::string::npos) << dump.err;
  EXPECT_EQ(run_btfc("dump " + b + ".btf --base " + a + ".btf").status, 0);
}

// A file with no DWARF is an error, as for pahole (Debian's, the oracle),
// never an empty output and exit 0: an object built without -g, and a
// stripped program whose debug file is nowhere to be found, whose message
// names the places looked at. The previous output and the input stay as
// they were.
TEST(Cli, FileWithoutDwarfIsAnError) {
  ASSERT_TRUE(tool_exists("pahole")) << "pahole (dwarves) is a test dependency";
  const std::string source = "struct s { int a; } v;\nint main(void) { return v.a; }\n";
  std::string plain = compile_c("no_dwarf", source, "gcc -O2 -c");
  std::string exe = compile_c("stripped_alone", source, "gcc -g -Wl,--build-id=none");
  ASSERT_EQ(run("objcopy --strip-debug --add-gnu-debuglink=/dev/null " + exe).status, 0);  // links 'null'
  const std::string dir = std::filesystem::path(exe).parent_path().string();
  const std::string no_dwarf = ": no DWARF type information (no .debug_info section)";
  const std::pair<std::string, std::string> cases[] = {
      {plain, plain + no_dwarf},
      {exe, exe + no_dwarf + ", and no debug file of its build at " + dir + "/null, " + dir + "/.debug/null or " +
                "/usr/lib/debug" + dir + "/null"},
  };
  for (const auto& [file, message] : cases) {
    const std::string out = file + ".btf";
    std::ofstream(out) << "previous";
    const std::string before = read_file(file);
    for (const std::string& command : {"encode --btf_encode_detached=" + out + " " + file, "encode " + file,
                                       "layout -F dwarf " + file, "layout " + file, "btfdiff " + file}) {
      RunResult r = run_btfc(command);
      EXPECT_EQ(r.status, 1) << command;
      EXPECT_EQ(r.err, "btfc: " + message + "\n") << command;
    }
    EXPECT_EQ(read_file(out), "previous");
    EXPECT_EQ(read_file(file), before) << file << " was changed";
    RunResult p = run("pahole -J --btf_encode_detached=" + file + ".pahole.btf " + file);
    EXPECT_NE(p.status, 0) << "pahole encoded " << file << " without DWARF";
    // Its DIEs can be counted all the same: none.
    RunResult stats = run_btfc("stats " + file);
    EXPECT_EQ(stats.status, 0) << stats.err;
    EXPECT_EQ(stats.out, "units 0\ndies 0\n");
  }
}

// A stripped program's types come from its debug file, found as pahole
// (libdwfl) finds it: by build ID, or by the .gnu_debuglink name beside
// it or in .debug/ with its CRC-32 checked; one of another build is passed
// over. The encode (detached and in place, into the stripped file) gives
// the types of the unstripped program, and pahole finds the same file.
TEST(Cli, StrippedFileReadsItsDebugFile) {
  ASSERT_TRUE(tool_exists("pahole")) << "pahole (dwarves) is a test dependency";
  const std::string source = "struct s { int a; long b; } v;\nint main(void) { return v.a; }\n";
  for (const std::string build_id : {"--build-id=sha1", "--build-id=none"}) {
    const std::string name = build_id == "--build-id=none" ? "by_crc" : "by_build_id";
    std::string exe = compile_c(name, source, "gcc -g -Wl," + build_id);
    const std::string dir = std::filesystem::path(exe).parent_path().string();
    ASSERT_EQ(run_btfc("encode --btf_encode_detached=" + exe + ".full.btf " + exe).status, 0);
    // The debug file in .debug/, the program stripped and linked to it.
    std::filesystem::create_directories(dir + "/.debug");
    const std::string debug = dir + "/.debug/" + name + ".debug";
    ASSERT_EQ(run("objcopy --only-keep-debug " + exe + " " + debug).status, 0);
    ASSERT_EQ(run("objcopy --strip-debug --add-gnu-debuglink=" + debug + " " + exe).status, 0);
    RunResult r = run_btfc("encode --btf_encode_detached=" + exe + ".btf " + exe);
    ASSERT_EQ(r.status, 0) << build_id << ": " << r.err;
    RunResult same = run_btfc("diff " + exe + ".full.btf " + exe + ".btf");
    EXPECT_EQ(same.status, 0) << build_id << ": " << same.out;
    RunResult p = run("pahole -J --btf_encode_detached=" + exe + ".pahole.btf " + exe);
    EXPECT_EQ(p.status, 0) << build_id << ": pahole did not find the debug file: " << p.err;
    for (const std::string format : {"-F dwarf ", ""}) {  // DWARF is the default when it is found
      RunResult layout = run_btfc("layout " + format + exe);
      EXPECT_EQ(layout.status, 0) << format << layout.err;
      EXPECT_NE(layout.out.find("long int                   b;"), std::string::npos) << format << layout.out;
    }
    // In place: .BTF goes into the stripped program.
    ASSERT_EQ(run_btfc("encode " + exe).status, 0);
    RunResult in_place = run_btfc("diff " + exe + ".full.btf " + exe);
    EXPECT_EQ(in_place.status, 0) << build_id << ": " << in_place.out << in_place.err;

    // A debug file of another build in its place is passed over.
    std::string other = compile_c(name + "_other", source + "int w;\n", "gcc -g -Wl," + build_id);
    ASSERT_EQ(run("objcopy --only-keep-debug " + other + " " + debug).status, 0);
    RunResult passed_over = run_btfc("encode --btf_encode_detached=" + exe + ".btf " + exe);
    EXPECT_EQ(passed_over.status, 1) << build_id;
    EXPECT_NE(passed_over.err.find("no debug file of its build at"), std::string::npos) << passed_over.err;
  }
}

// A stripped kernel-like file's kfuncs: the debug file keeps .BTF_ids
// empty, so its kfunc sets are read from the stripped file itself (as
// pahole does), and the decl tags are those of the unstripped file.
TEST(Cli, StrippedFileKeepsItsKfuncTags) {
  const std::string source = R"(
asm(".pushsection .BTF_ids,\"a\"\n"
    "__BTF_ID__set8__my_set:\n"
    ".long 1\n .long 1\n"
    "__BTF_ID__func__kf_one__1:\n .long 0\n .long 0\n"
    ".size __BTF_ID__set8__my_set, 16\n"
    ".popsection\n");
int kf_one(int a) { return a + 1; }
)";
  std::string so = compile_c("stripped_kfuncs", source, "gcc -O2 -g -fPIC -shared -nostdlib -Wl,--build-id=sha1");
  const std::string flags = "encode --btf_features=default --btf_encode_detached=";
  ASSERT_EQ(run_btfc(flags + so + ".full.btf " + so).status, 0);
  ASSERT_EQ(run("objcopy --only-keep-debug " + so + " " + so + ".debug").status, 0);
  ASSERT_EQ(run("objcopy --strip-debug --add-gnu-debuglink=" + so + ".debug " + so).status, 0);
  RunResult r = run_btfc(flags + so + ".btf " + so);
  ASSERT_EQ(r.status, 0) << r.err;
  RunResult dump = run_btfc("dump " + so + ".btf");
  EXPECT_NE(dump.out.find("DECL_TAG 'bpf_kfunc'"), std::string::npos) << dump.out;
  RunResult same = run_btfc("diff " + so + ".full.btf " + so + ".btf");
  EXPECT_EQ(same.status, 0) << same.out;
}

// A program built partly with -gsplit-dwarf: the skeleton unit's types
// are in its .dwo, which btfc does not follow. The rest is encoded, and
// one warning names the file and says where the missing types are, as
// pahole warns; the .dwo encodes on its own.
TEST(Cli, SkeletonUnitsAreNamedInAWarning) {
  ASSERT_TRUE(tool_exists("pahole")) << "pahole (dwarves) is a test dependency";
  std::string split = compile_c("skeleton_part", "struct in_dwo { int a; };\nint f(struct in_dwo *p) { return p->a; }\n",
                                "gcc -g -gsplit-dwarf -O1 -c");
  std::string whole = compile_c("whole_part", "struct in_main { long b; };\nint f(struct in_dwo *);\n"
                                "long g(struct in_main *p) { return p->b; }\nint main(void) { return f(0) + g(0); }\n",
                                "gcc -g -O1 -c");
  const std::string dwo = scratch_dir() + "/skeleton_part.dwo";
  ASSERT_TRUE(std::filesystem::exists(dwo)) << "gcc wrote no " << dwo;
  const std::string exe = scratch_dir() + "/skeleton_exe";
  ASSERT_EQ(run("gcc " + split + " " + whole + " -o " + exe).status, 0);

  RunResult r = run_btfc("encode --btf_encode_detached=" + exe + ".btf " + exe);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "btfc: " + exe + ": warning: 1 skeleton unit (split DWARF, -gsplit-dwarf) not encoded: the types "
                   "are in .dwo files, which btfc does not follow; encode the .dwo files instead\n");
  RunResult dump = run_btfc("dump " + exe + ".btf");
  EXPECT_NE(dump.out.find("STRUCT 'in_main'"), std::string::npos) << dump.out;
  EXPECT_EQ(dump.out.find("STRUCT 'in_dwo'"), std::string::npos) << dump.out;
  RunResult p = run("pahole -J --btf_encode_detached=" + exe + ".pahole.btf " + exe);
  EXPECT_NE(p.err.find("DW_TAG_skeleton_unit"), std::string::npos) << "pahole did not warn: " << p.err;

  RunResult from_dwo = run_btfc("encode --btf_encode_detached=" + dwo + ".btf " + dwo);
  EXPECT_EQ(from_dwo.status, 0) << from_dwo.err;
  EXPECT_EQ(from_dwo.err, "");
  EXPECT_NE(run_btfc("dump " + dwo + ".btf").out.find("STRUCT 'in_dwo'"), std::string::npos);

  // A file without split units says nothing.
  RunResult quiet = run_btfc("encode --btf_encode_detached=" + whole + ".btf " + whole);
  EXPECT_EQ(quiet.status, 0);
  EXPECT_EQ(quiet.err, "");
}

}  // namespace
}  // namespace btfc::test
