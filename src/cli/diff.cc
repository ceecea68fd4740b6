// `btfc diff A B [--base BASE | --base-a BA --base-b BB]`: compares two BTF
// files (raw .btf or ELF files with .BTF) as type graphs, whatever the
// order of their types. Exit status 0 when they are equivalent, 1 when
// they differ (the report says what), as diff(1) does.
#include <cstdio>
#include <optional>
#include <string>

#include "btf/diff.h"
#include "btf/reader.h"
#include "cli/command.h"

namespace btfc::cli {
namespace {

int run_diff(Args args) {
  std::string files[2], base_a, base_b;
  int nfiles = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    auto value = [&](const char* opt) {
      if (i + 1 == args.size()) throw UsageError{std::string(opt) + " needs a file"};
      return std::string(args[++i]);
    };
    if (a == "--base" || a == "-B") {
      base_a = base_b = value("--base");
    } else if (a == "--base-a") {
      base_a = value("--base-a");
    } else if (a == "--base-b") {
      base_b = value("--base-b");
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError{"unknown option '" + a + "'"};
    } else if (nfiles < 2) {
      files[nfiles++] = a;
    } else {
      throw UsageError{"more than two files"};
    }
  }
  if (nfiles < 2) throw UsageError{"need two files"};
  std::optional<btf::Btf> ba, bb;
  if (!base_a.empty()) ba = btf::read_file(base_a);
  if (!base_b.empty()) bb = base_b == base_a ? std::nullopt : std::optional<btf::Btf>(btf::read_file(base_b));
  const btf::Btf* pa = ba ? &*ba : nullptr;
  const btf::Btf* pb = bb ? &*bb : (base_b.empty() ? nullptr : pa);
  btf::Btf a = btf::read_file(files[0], pa);
  btf::Btf b = btf::read_file(files[1], pb);
  btf::DiffResult r = btf::diff(a, b, {files[0], files[1]});
  std::fwrite(r.report.data(), 1, r.report.size(), stdout);
  if (std::fflush(stdout) != 0) {
    std::perror("btfc: writing the report");
    return 2;
  }
  return r.equivalent ? 0 : 1;
}

RegisterCommand reg{{"diff", "diff A B [--base BASE | --base-a BA --base-b BB]",
                     "compare two BTF files as type graphs (exit 0 if equivalent)", run_diff,
                     "Compares two BTF files (raw, or an ELF's .BTF) as type graphs, whatever their\n"
                     "type order: kinds, names, sizes, members, offsets, bitfields, enumerators,\n"
                     "prototypes, linkage and which functions and variables are present. Prints\n"
                     "what differs; exit 0 if equivalent, 1 if not.\n\n"
                     "  -B, --base BASE   both files are split BTF on BASE\n"
                     "  --base-a BA       A's base\n"
                     "  --base-b BB       B's base\n"}};

}  // namespace
}  // namespace btfc::cli
