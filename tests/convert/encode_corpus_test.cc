// The whole encoder on the real corpus against pahole 1.31's reference
// outputs (/work/shared/reference/pahole-1.31): the vmlinux with the three
// flag sets the references were made with, and the nine modules split on
// the matching vmlinux reference. The check is btfc's semantic diff (same
// type graph, every kind count equal), and the kernel loads the result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <span>
#include <string>

#include "btf/btf_test_util.h"
#include "btf/diff.h"
#include "btf/reader.h"
#include "dwarf/constants.h"
#include "dwarf/dwarf_file.h"
#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::convert {
namespace {

using btf::testing::read_bytes;
using btf::testing::reference_dir;

std::string vmlinux() {
  std::string d = test::corpus_dir();
  if (d.empty()) return {};
  return d + "/vmlinux";
}

// The strings some type of `b` names (its own, not the base's).
std::set<std::string> referenced_strings(const btf::Btf& b) {
  std::set<std::string> out;
  for (btf::TypeId id = b.start_id(); id < b.end_id(); ++id)
    b.for_each_str_off(id, [&](uint32_t off) {
      if (off >= b.start_str_off() && !b.str(off).empty()) out.emplace(b.str(off));
    });
  return out;
}

// Every string of the section, referenced or not.
std::set<std::string> all_strings(const btf::Btf& b) {
  std::set<std::string> out;
  std::span<const char> bytes = b.strings().bytes();
  for (size_t i = 0; i < bytes.size();) {
    std::string s(bytes.data() + i);
    i += s.size() + 1;
    if (!s.empty()) out.insert(std::move(s));
  }
  return out;
}

void expect_equivalent(const std::string& ours, const std::string& ref, const btf::Btf* base = nullptr) {
  btf::Btf a = btf::read_file(ours, base), b = btf::read_file(ref, base);
  btf::DiffResult d = btf::diff(a, b, {"btfc", "pahole-1.31"});
  EXPECT_TRUE(d.equivalent) << d.report;
  EXPECT_EQ(a.type_count(), b.type_count());
  // btfc's string section is exactly what its types name, and that is what
  // pahole's types name. pahole's section holds more (parameter names of
  // function candidates that lost, added when saved; libbpf keeps unused
  // strings of a table built from scratch: docs/design-details.md), which only
  // costs bytes.
  std::set<std::string> ours_all = all_strings(a), ours_used = referenced_strings(a);
  EXPECT_TRUE(ours_all == ours_used) << ours_all.size() - ours_used.size() << " strings no type names";
  std::set<std::string> ref_used = referenced_strings(b);
  EXPECT_TRUE(ours_used == ref_used) << "btfc's types name " << ours_used.size() << " strings, pahole's "
                                     << ref_used.size();
}

struct VmlinuxCase {
  const char* name;
  const char* flags;
  const char* reference;
};
// What gtest shows as GetParam() (listings, failures): the case, not the
// struct's bytes.
void PrintTo(const VmlinuxCase& c, std::ostream* os) { *os << c.name << " (" << c.flags << ")"; }

class EncodeCorpusVmlinux : public ::testing::TestWithParam<VmlinuxCase> {};

TEST_P(EncodeCorpusVmlinux, SameGraphAsPahole131) {
  if (vmlinux().empty()) GTEST_SKIP() << "*** corpus not unpacked (scripts/test.sh does it): NOT CHECKED ***";
  std::string out = test::scratch_dir() + "/vmlinux." + GetParam().name + ".btf";
  test::RunResult r = test::run_btfc(std::string("encode ") + GetParam().flags + " --btf_encode_detached=" + out + " " +
                                     vmlinux());
  ASSERT_EQ(r.status, 0) << r.err;
  std::string ref = reference_dir() + "/" + GetParam().reference;
  expect_equivalent(out, ref);
  // The kernel's verdict must be pahole's: with global_var, 1.31's own
  // output is refused (two VARs of one DATASEC at the same offset: "Invalid
  // offset"), and so is the same graph from btfc.
  std::string why;
  btf::testing::LoadResult ref_verdict = btf::testing::load_into_kernel(read_bytes(ref), &why);
  if (ref_verdict == btf::testing::LoadResult::Loaded) {
    BTFC_EXPECT_LOADS(read_bytes(out));
  } else if (ref_verdict == btf::testing::LoadResult::Refused) {
    EXPECT_EQ(btf::testing::load_into_kernel(read_bytes(out), &why), btf::testing::LoadResult::Refused)
        << "the kernel refuses pahole's " << GetParam().reference << " but took btfc's";
  } else {
    GTEST_SKIP() << "*** THE KERNEL DOES NOT LET THIS PROCESS LOAD BTF: the kernel check did NOT run ***";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Flags, EncodeCorpusVmlinux,
    ::testing::Values(VmlinuxCase{"legacy", "--btf_gen_floats -j --lang_exclude=rust", "vmlinux.legacy-flags.btf"},
                      VmlinuxCase{"default", "--btf_features=default -j --lang_exclude=rust",
                                  "vmlinux.features-default.btf"},
                      VmlinuxCase{"global_var", "--btf_features=default,global_var -j --lang_exclude=rust",
                                  "vmlinux.features-default-global_var.btf"}),
    [](const ::testing::TestParamInfo<VmlinuxCase>& i) { return std::string(i.param.name); });

TEST(EncodeCorpus, ModulesSplitOnVmlinux) {
  if (vmlinux().empty()) GTEST_SKIP() << "*** corpus not unpacked (scripts/test.sh does it): NOT CHECKED ***";
  struct Set {
    const char* flags;
    const char* suffix;
  };
  for (Set s : {Set{"--btf_gen_floats --lang_exclude=rust", "legacy-flags"},
                Set{"--btf_features=default --lang_exclude=rust", "features-default"}}) {
    std::string base_path = reference_dir() + "/vmlinux." + s.suffix + ".btf";
    btf::Btf base = btf::read_file(base_path);
    std::vector<uint8_t> base_bytes = read_bytes(base_path);
    for (const std::string& m : test::corpus_modules()) {
      SCOPED_TRACE(m + " " + s.suffix);
      std::string out = test::scratch_dir() + "/" + m + "." + s.suffix + ".btf";
      test::RunResult r = test::run_btfc(std::string("encode -j ") + s.flags + " --btf_base " + base_path +
                                         " --btf_encode_detached=" + out + " " + test::corpus_dir() + "/mods/" + m +
                                         ".ko");
      ASSERT_EQ(r.status, 0) << r.err;
      expect_equivalent(out, reference_dir() + "/" + m + "." + s.suffix + ".btf", &base);
      BTFC_EXPECT_LOADS(btf::testing::glue_split(base_bytes, read_bytes(out)));
    }
  }
}

TEST(EncodeCorpus, ModuleBytesIndependentOfJobs) {
  if (vmlinux().empty()) GTEST_SKIP() << "*** corpus not unpacked (scripts/test.sh does it): NOT CHECKED ***";
  std::string base = reference_dir() + "/vmlinux.legacy-flags.btf";
  std::string first;
  for (const char* j : {"-j1", "-j2", "-j4"}) {
    std::string out = test::scratch_dir() + "/kvm" + j + ".btf";
    test::RunResult r = test::run_btfc(std::string("encode ") + j + " --btf_gen_floats --btf_base " + base +
                                       " --btf_encode_detached=" + out + " " + test::corpus_dir() + "/mods/kvm.ko");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "") << j;  // more threads than cores: no warning either
    std::string bytes = test::read_file(out);
    if (first.empty()) first = bytes;
    EXPECT_EQ(bytes, first) << j << " differs from -j1";
  }
}

// vmlinux is converted and deduplicated in groups of units, groups in
// parallel (encode.cc); the groups are fixed by unit sizes, so any thread
// count must give the same bytes.
TEST(EncodeCorpus, VmlinuxBytesIndependentOfJobs) {
  if (vmlinux().empty()) GTEST_SKIP() << "*** corpus not unpacked (scripts/test.sh does it): NOT CHECKED ***";
  std::string first;
  for (const char* j : {"-j1", "-j3"}) {
    std::string out = test::scratch_dir() + "/vmlinux" + j + ".btf";
    test::RunResult r = test::run_btfc(std::string("encode ") + j + " --btf_gen_floats --lang_exclude=rust" +
                                       " --btf_encode_detached=" + out + " " + vmlinux());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "") << j;  // more threads than cores: no warning either
    std::string bytes = test::read_file(out);
    if (first.empty()) first = bytes;
    EXPECT_EQ(bytes, first) << j << " differs from -j1";
  }
}

// vmlinux's groups take .debug_str offsets as names: the linker merged the
// section, so each text lies at one offset (encode.cc, build()). A copy in
// which one member `next` is named through another "next" of .debug_str
// (the tail of a longer string such as "rb_next") names that text at two
// offsets in its group: the check after the groups sees it, and the file
// is encoded again by text, to the very bytes of the original.
TEST(EncodeCorpus, VmlinuxNamedTwiceInAGroupEncodedAgainByText) {
  if (vmlinux().empty()) GTEST_SKIP() << "*** corpus not unpacked (scripts/test.sh does it): NOT CHECKED ***";
  std::string bytes = test::read_file(vmlinux());
  uint64_t patch_at = 0;
  uint32_t other = 0;
  {
    auto elf = elf::ElfFile::open(vmlinux());
    dwarf::DwarfFile dw(*elf);
    const elf::Section* info = elf->find_section(".debug_info");
    ASSERT_NE(info, nullptr);
    const std::string_view strs(dw.debug_str().data(), dw.debug_str().size());
    // The first member named `next` through DW_FORM_strp, in the first units.
    for (size_t u = 0; u < 50 && !patch_at; ++u) {
      dwarf::DieCursor cursor(dw.units()[u]);
      for (dwarf::Die die; !patch_at && cursor.next(die);) {
        if (die.tag != dwarf::DW_TAG_member) continue;
        dwarf::Attr a;
        for (dwarf::AttrIter it(dw, die); it.next(a);)
          if (a.name == dwarf::DW_AT_name && a.form == dwarf::DW_FORM_strp && a.value.str() == "next") {
            const size_t at = reinterpret_cast<const char*>(a.value.ptr) - strs.data();
            // Another place where the text "next" lies.
            for (size_t p = strs.find(std::string_view("next\0", 5)); p != std::string_view::npos;
                 p = strs.find(std::string_view("next\0", 5), p + 1))
              if (p != at) {
                other = static_cast<uint32_t>(p);
                patch_at = info->offset + a.offset;
                break;
              }
            break;
          }
      }
    }
  }
  ASSERT_NE(patch_at, 0u) << "no member `next` with a second \"next\" in .debug_str";
  for (int k = 0; k < 4; ++k) bytes[patch_at + k] = static_cast<char>(other >> (8 * k));  // little-endian
  const std::string patched = test::scratch_dir() + "/vmlinux-next-twice";
  std::ofstream(patched, std::ios::binary) << bytes;
  bytes.clear();
  std::string outputs[2];
  for (int k = 0; k < 2; ++k) {
    const std::string in = k ? patched : vmlinux();
    const std::string out_path = test::scratch_dir() + (k ? "/patched.btf" : "/original.btf");
    test::RunResult r = test::run_btfc("encode --stats -j2 --btf_gen_floats --lang_exclude=rust --btf_encode_detached=" +
                                       out_path + " " + in);
    ASSERT_EQ(r.status, 0) << r.err;
    const bool by_offset = r.err.find("names        1 file deduplicated in groups with .debug_str offsets as names") !=
                           std::string::npos;
    const bool again = r.err.find("names        1 file encoded again with names by text") != std::string::npos;
    EXPECT_EQ(by_offset, k == 0) << r.err;
    EXPECT_EQ(again, k == 1) << r.err;
    outputs[k] = test::read_file(out_path);
  }
  std::filesystem::remove(patched);
  EXPECT_FALSE(outputs[0].empty());
  EXPECT_TRUE(outputs[0] == outputs[1]) << "the copy's output differs from the original's";
}

// A module is relocated unit by unit (elf::PartRelocator) when its
// relocations allow it, else as a whole .debug_info: both ways must give
// the same bytes. Two relocation entries of dm-crypt.ko swapped (their
// order changes, not their effect) make it take the second way, which
// --stats tells; a bad entry gets the message it always got.
TEST(EncodeCorpus, ModuleRelocatedByUnitOrWhole) {
  if (vmlinux().empty()) GTEST_SKIP() << "*** corpus not unpacked (scripts/test.sh does it): NOT CHECKED ***";
  const std::string base = reference_dir() + "/vmlinux.legacy-flags.btf";
  const std::string ko = test::corpus_dir() + "/mods/dm-crypt.ko";
  std::string bytes = test::read_file(ko);
  {
    auto elf = elf::ElfFile::open(ko);
    const elf::Section* rela = elf->find_section(".rela.debug_info");
    ASSERT_NE(rela, nullptr);
    ASSERT_GT(rela->size / 24, 900u);
    for (size_t k = 0; k < 24; k++) std::swap(bytes[rela->offset + 100 * 24 + k], bytes[rela->offset + 900 * 24 + k]);
  }
  const std::string swapped = test::scratch_dir() + "/dm-crypt-swapped.ko";
  std::ofstream(swapped, std::ios::binary) << bytes;
  std::string first;
  for (const auto& [file, by_unit] : {std::pair{ko, true}, std::pair{swapped, false}}) {
    SCOPED_TRACE(file);
    const std::string out = file + (by_unit ? ".unit.btf" : ".whole.btf");
    const std::string out_path = test::scratch_dir() + "/" + std::filesystem::path(out).filename().string();
    test::RunResult r = test::run_btfc("encode --stats -j2 --btf_gen_floats --lang_exclude=rust --btf_base " + base +
                                       " --btf_encode_detached=" + out_path + " " + file);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("by unit      1 file relocated unit by unit") != std::string::npos, by_unit) << r.err;
    const std::string got = test::read_file(out_path);
    if (first.empty()) first = got;
    EXPECT_EQ(got, first) << "relocated whole, the output differs";
  }
  // A bad entry (unknown type) in the middle: the error one pass over the
  // entries reports, naming the entry, whichever way the file was read.
  {
    auto elf = elf::ElfFile::open(ko);
    const elf::Section* rela = elf->find_section(".rela.debug_info");
    std::string bad_bytes = test::read_file(ko);
    ASSERT_GT(rela->size / 24, 5000u);
    bad_bytes[rela->offset + 5000 * 24 + 8] = 99;  // r_info's type, little-endian
    const std::string bad = test::scratch_dir() + "/dm-crypt-bad.ko";
    std::ofstream(bad, std::ios::binary) << bad_bytes;
    test::RunResult r = test::run_btfc("encode -j2 --btf_gen_floats --btf_base " + base +
                                       " --btf_encode_detached=" + test::scratch_dir() + "/bad.btf " + bad);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "btfc: " + bad + ": .rela.debug_info+0x1d4c0: unknown relocation type 99 for x86-64\n");
    EXPECT_FALSE(std::filesystem::exists(test::scratch_dir() + "/bad.btf"));
  }
}

TEST(EncodeCorpus, ModuleInPlaceWithElfBase) {
  // What Linux 6.1's Makefile.modfinal runs: the base is the ELF vmlinux
  // (its .BTF section), the module gets .BTF in place.
  if (vmlinux().empty()) GTEST_SKIP() << "*** corpus not unpacked (scripts/test.sh does it): NOT CHECKED ***";
  std::string dir = test::scratch_dir();
  // The corpus vmlinux carries Debian's own .BTF; the reference base goes
  // into a small ELF instead, read through its .BTF section all the same.
  std::string carrier = test::compile_c("carrier", "int carrier;\n", "gcc -c");
  std::string vm = dir + "/vmlinux_with_btf";
  test::RunResult r = test::run("objcopy --add-section .BTF=" + reference_dir() + "/vmlinux.legacy-flags.btf " +
                                carrier + " " + vm);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string ko = dir + "/dm-crypt.ko";
  std::filesystem::copy_file(test::corpus_dir() + "/mods/dm-crypt.ko", ko);
  r = test::run_btfc("encode -J --btf_gen_floats -j --lang_exclude=rust --btf_base " + vm + " " + ko);
  ASSERT_EQ(r.status, 0) << r.err;
  btf::Btf base = btf::read_file(reference_dir() + "/vmlinux.legacy-flags.btf");
  btf::Btf ours = btf::read_file(ko, &base);
  btf::Btf ref = btf::read_file(reference_dir() + "/dm-crypt.legacy-flags.btf", &base);
  btf::DiffResult d = btf::diff(ours, ref, {"btfc", "pahole-1.31"});
  EXPECT_TRUE(d.equivalent) << d.report;
  test::RunResult bt = test::run("bpftool btf dump file " + ko + " -B " + reference_dir() + "/vmlinux.legacy-flags.btf");
  EXPECT_EQ(bt.status, 0) << bt.err;
  EXPECT_EQ(test::run("readelf -S -W " + ko).status, 0);
}

}  // namespace
}  // namespace btfc::convert
