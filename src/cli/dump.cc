// `btfc dump FILE [--base BASE]`: prints a BTF file (raw .btf or an ELF
// file's .BTF section) in the text format of `bpftool btf dump file FILE`,
// so the two can be diffed. --base reads FILE as split BTF on BASE, like
// bpftool's -B; --format c prints a C header, like bpftool's `format c`.
#include <cstdio>
#include <string>

#include "base/error.h"
#include "btf/dump.h"
#include "btf/reader.h"
#include "cli/command.h"

namespace btfc::cli {
namespace {

int run_dump(Args args) {
  std::string file, base_path;
  bool c_format = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--base" || a == "-B") {
      if (i + 1 == args.size()) throw UsageError{"--base needs a file"};
      base_path = args[++i];
    } else if (a.rfind("--base=", 0) == 0) {
      base_path = a.substr(7);
    } else if (a == "--format=raw") {
      c_format = false;
    } else if (a == "--format=c") {
      c_format = true;
    } else if (a == "--format") {
      if (i + 1 == args.size()) throw UsageError{"--format needs raw or c"};
      std::string f = args[++i];
      if (f != "raw" && f != "c") throw UsageError{"unknown format '" + f + "' (raw or c)"};
      c_format = f == "c";
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError{"unknown option '" + a + "'"};
    } else if (file.empty()) {
      file = a;
    } else {
      throw UsageError{"more than one FILE"};
    }
  }
  if (file.empty()) throw UsageError{"missing FILE"};
  std::optional<btf::Btf> base;
  if (!base_path.empty()) base = btf::read_file(base_path);
  btf::Btf b = btf::read_file(file, base ? &*base : nullptr);
  std::string out;
  try {
    if (c_format)
      btf::dump_c(b, out);
    else
      btf::dump_raw(b, out);
  } catch (Error& e) {
    throw e.with_file(file);
  }
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) {
    std::perror("btfc: writing the dump");
    return 1;
  }
  return 0;
}

RegisterCommand reg{{"dump", "dump FILE [--base BASE] [--format raw|c]", "print BTF as `bpftool btf dump file` does",
                     run_dump,
                     "Prints BTF (a raw .btf file or an ELF's .BTF) exactly as `bpftool btf dump\n"
                     "file FILE [-B BASE] [format c]` does.\n\n"
                     "  -B, --base BASE        FILE is split BTF on BASE\n"
                     "  --format raw|c         bpftool's raw listing (default) or a C header\n"}};

}  // namespace
}  // namespace btfc::cli
