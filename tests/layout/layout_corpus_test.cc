// Corpus tests of `btfc layout` / `btfc btfdiff`: byte-identical to the
// pahole 1.31 reference outputs for vmlinux and ext4, identical to Debian's
// pahole 1.24 for the other modules wherever 1.24 and 1.31 agree, and
// btfdiff clean on the .BTF of vmlinux and every module.
#include <gtest/gtest.h>

#include <string>

#include "layout/diff.h"
#include "layout/pahole_oracle.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

const char* kBtfdiffDwarf =
    "-F dwarf --flat_arrays --sort --jobs --suppress_aligned_attribute --suppress_force_paddings "
    "--suppress_packed --lang_exclude rust --show_private_classes";
const char* kBtfdiffBtf = "-F btf --sort --suppress_aligned_attribute --suppress_packed";

std::string reference(const std::string& name) {
  RunResult r = run("zstd -dc " + shared_dir() + "/reference/pahole-1.31/" + name + ".zst");
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

class LayoutCorpus : public ::testing::Test {
 protected:
  void SetUp() override {
    if (corpus_dir().empty()) GTEST_FAIL() << "corpus not unpacked (scripts/test.sh unpacks it)";
  }
  void expect_reference(const std::string& args, const std::string& ref) {
    RunResult r = run_btfc("layout " + args);
    ASSERT_EQ(r.status, 0) << r.err;
    std::string want = reference(ref);
    ASSERT_FALSE(want.empty());
    EXPECT_TRUE(r.out == want) << ref << ":\n"
                               << layout::unified_diff(want, r.out, ref, "btfc layout").substr(0, 6000);
  }
};

TEST_F(LayoutCorpus, VmlinuxPlain) { expect_reference(corpus_dir() + "/vmlinux", "vmlinux.layout-plain.txt"); }
TEST_F(LayoutCorpus, VmlinuxBtfdiffDwarfSide) {
  expect_reference(std::string(kBtfdiffDwarf) + " " + corpus_dir() + "/vmlinux", "vmlinux.layout-dwarf.txt");
}
TEST_F(LayoutCorpus, VmlinuxBtfdiffBtfSide) {
  expect_reference(std::string(kBtfdiffBtf) + " " + shared_dir() + "/reference/pahole-1.31/vmlinux.legacy-flags.btf",
                   "vmlinux.layout-btf.txt");
}
TEST_F(LayoutCorpus, Ext4Plain) { expect_reference("--sort " + corpus_dir() + "/mods/ext4.ko", "ext4.layout-plain.txt"); }
TEST_F(LayoutCorpus, Ext4BtfdiffDwarfSide) {
  expect_reference(std::string(kBtfdiffDwarf) + " " + corpus_dir() + "/mods/ext4.ko", "ext4.layout-dwarf.txt");
}

// The oracle filter itself: it must turn the 1.31 references of ext4 into
// exactly what pahole 1.24 prints, or the module comparisons below would
// prove nothing.
TEST_F(LayoutCorpus, FilterTurns131Into124) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  std::string ko = corpus_dir() + "/mods/ext4.ko";
  RunResult p = run("/usr/bin/pahole --sort " + ko);
  EXPECT_EQ(only_what_124_prints(reference("ext4.layout-plain.txt")), only_what_124_prints(p.out));
  p = run(std::string("/usr/bin/pahole ") + kBtfdiffDwarf + " " + ko);
  EXPECT_EQ(only_what_124_prints(reference("ext4.layout-dwarf.txt")), only_what_124_prints(p.out));
}

TEST_F(LayoutCorpus, ModulesMatchPahole124) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  for (const std::string& m : corpus_modules()) {
    if (m == "ext4") continue;  // against the 1.31 references above
    std::string ko = corpus_dir() + "/mods/" + m + ".ko";
    for (std::string opts : {std::string("--sort"), std::string(kBtfdiffDwarf)}) {
      RunResult p = run("/usr/bin/pahole " + opts + " " + ko);
      ASSERT_EQ(p.status, 0) << p.err;
      RunResult b = run_btfc("layout " + opts + " " + ko);
      ASSERT_EQ(b.status, 0) << b.err;
      std::string want = only_what_124_prints(p.out), got = only_what_124_prints(b.out);
      EXPECT_TRUE(want == got) << m << " " << opts << ":\n"
                               << layout::unified_diff(want, got, "pahole 1.24", "btfc").substr(0, 4000);
    }
  }
}

// -C of kernel enums and typedefs (and a struct), from vmlinux's DWARF and
// from the pahole 1.31 BTF of it, against pahole 1.24 on the same files:
// pahole finds all of them in the first units, so this stays quick.
TEST_F(LayoutCorpus, ClassNamesOfEnumsAndTypedefsMatchPahole124) {
  if (!tool_exists("/usr/bin/pahole")) GTEST_SKIP() << "pahole (Debian dwarves) is not installed: no oracle";
  const std::string names = "pid_type,atomic_t,u32,bpf_prog_type,irq_handler_t,cpumask_var_t,sigset_t,spinlock_t,list_head";
  const std::string btf = shared_dir() + "/reference/pahole-1.31/vmlinux.legacy-flags.btf";
  for (std::string args : {"-C " + names + " " + corpus_dir() + "/vmlinux", "-F btf -C " + names + " " + btf}) {
    RunResult p = run("/usr/bin/pahole " + args);
    ASSERT_EQ(p.status, 0) << p.err;
    RunResult b = run_btfc("layout " + args);
    ASSERT_EQ(b.status, 0) << b.err;
    ASSERT_NE(p.out.find("enum bpf_prog_type {"), std::string::npos);
    ASSERT_NE(p.out.find("typedef __u32 u32;"), std::string::npos);
    std::string want = only_what_124_prints(p.out), got = only_what_124_prints(b.out);
    EXPECT_TRUE(want == got) << args << ":\n" << layout::unified_diff(want, got, "pahole 1.24", "btfc").substr(0, 4000);
  }
}

// A name that is only declared in the DWARF (enum x86_intercept_stage):
// every unit is read, nothing is printed and the name is reported; the BTF
// has it as an enum without values, which pahole prints as `enum NAME;`.
TEST_F(LayoutCorpus, ClassNameOnlyDeclared) {
  RunResult b = run_btfc("layout -C x86_intercept_stage " + corpus_dir() + "/vmlinux");
  EXPECT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(b.out, "");
  EXPECT_NE(b.err.find("type 'x86_intercept_stage' not found"), std::string::npos) << b.err;
  b = run_btfc("layout -F btf -C x86_intercept_stage " + shared_dir() +
               "/reference/pahole-1.31/vmlinux.legacy-flags.btf");
  EXPECT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(b.out, "enum x86_intercept_stage;\n");
}

TEST_F(LayoutCorpus, BtfdiffCleanOnVmlinux) {
  RunResult r = run_btfc("btfdiff " + corpus_dir() + "/vmlinux");
  EXPECT_EQ(r.status, 0) << r.out.substr(0, 4000) << r.err;
}

TEST_F(LayoutCorpus, BtfdiffCleanOnModules) {
  for (const std::string& m : corpus_modules()) {
    RunResult r = run_btfc("btfdiff --base " + corpus_dir() + "/vmlinux " + corpus_dir() + "/mods/" + m + ".ko");
    EXPECT_EQ(r.status, 0) << m << "\n" << r.out.substr(0, 4000) << r.err;
  }
}

// btfdiff of the BTF that `btfc encode` makes for each module (split on the
// pahole 1.31 vmlinux BTF, legacy flags): the DWARF side and the encoded
// BTF must print the same layouts.
TEST_F(LayoutCorpus, BtfdiffCleanOnEncodedModules) {
  std::string base = shared_dir() + "/reference/pahole-1.31/vmlinux.legacy-flags.btf";
  for (const std::string& m : corpus_modules()) {
    std::string ko = corpus_dir() + "/mods/" + m + ".ko";
    std::string out = scratch_dir() + "/" + m + ".encoded.btf";
    RunResult e = run_btfc("encode --btf_gen_floats --lang_exclude=rust --btf_base=" + base +
                           " --btf_encode_detached=" + out + " " + ko);
    ASSERT_EQ(e.status, 0) << m << ": " << e.err;
    RunResult r = run_btfc("btfdiff --base " + base + " " + ko + " " + out);
    EXPECT_EQ(r.status, 0) << m << "\n" << r.out.substr(0, 4000) << r.err;
  }
}

}  // namespace
}  // namespace btfc::test
