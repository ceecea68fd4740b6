// Batch mode (`btfc encode --output-dir=DIR FILE|DIR...`): each file's
// result must be byte-identical to encoding that file alone (the user's
// promise: batch is only faster), whatever -j, and one bad file must not
// stop the others. The corpus test runs the nine corpus modules split
// against pahole 1.31's vmlinux BTF, as a kernel build would.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "convert/encode.h"
#include "support/test_support.h"

namespace btfc::test {
namespace {

namespace fs = std::filesystem;

void expect_same_file(const std::string& got, const std::string& want) {
  ASSERT_TRUE(fs::exists(got)) << got;
  ASSERT_TRUE(fs::exists(want)) << want;
  std::string a = read_file(got), b = read_file(want);
  EXPECT_GT(a.size(), 24u) << got;
  EXPECT_TRUE(a == b) << got << " differs from " << want << " (" << a.size() << " vs " << b.size() << " bytes)";
}

TEST(Batch, OutputPathDropsKoSuffix) {
  EXPECT_EQ(convert::batch_output_path("out", "/a/b/ext4.ko"), "out/ext4.btf");
  EXPECT_EQ(convert::batch_output_path("out", "x.o"), "out/x.o.btf");
}

TEST(Batch, EachFileAsAloneAndBadFileReported) {
  std::string a = compile_c("batch_a", "struct s { int x; long y; }; struct s va; int fa(struct s *p) { return p->x; }",
                            "gcc -g -O2 -c");
  std::string b = compile_c("batch_b", "typedef unsigned char u8; union u { u8 c[4]; int i; } vb; int *pb;",
                            "gcc -g -c");
  std::string dir = scratch_dir();
  std::string bad = dir + "/bad.o";
  {
    FILE* f = std::fopen(bad.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("not an ELF file", f);
    std::fclose(f);
  }
  for (const char* j : {"1", "2"}) {
    std::string out = dir + "/out-j" + j;
    RunResult r = run_btfc(std::string("encode -J -j") + j + " --output-dir=" + out + " " + a + " " + bad + " " + b);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("bad.o"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1 of 3 files failed"), std::string::npos) << r.err;
    for (const std::string& f : {a, b}) {
      std::string alone = dir + "/alone-" + fs::path(f).filename().string() + ".btf";
      RunResult s = run_btfc("encode -J --btf_encode_detached=" + alone + " " + f);
      ASSERT_EQ(s.status, 0) << s.err;
      expect_same_file(convert::batch_output_path(out, f), alone);
    }
    EXPECT_FALSE(fs::exists(convert::batch_output_path(out, bad)));
  }
}

TEST(Batch, OptionMistakes) {
  EXPECT_EQ(run_btfc("encode -J --btf_encode_detached=x.btf a.ko b.ko").status, 2);
  EXPECT_EQ(run_btfc("encode -J --btf_encode_detached=x.btf --output-dir=d a.ko").status, 2);
}

// A folder with --btf_encode_detached, which names one output file: batch
// mode would write into every module under it, which the user asked not
// to. Refused as a usage mistake, the modules untouched, nothing written.
TEST(Batch, FolderWithDetachedOutputRefused) {
  std::string dir = scratch_dir() + "/folder_detached";
  fs::remove_all(dir);
  fs::create_directories(dir + "/mods");
  std::string obj = compile_c("folder_detached", "struct s { int x; } v;\n", "gcc -g -c");
  fs::copy_file(obj, dir + "/mods/a.ko");
  const std::string before = read_file(dir + "/mods/a.ko");
  RunResult r = run_btfc("encode -J --btf_encode_detached=" + dir + "/out.btf " + dir + "/mods");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("'" + dir + "/mods' is a folder: use --output-dir"), std::string::npos) << r.err;
  EXPECT_TRUE(read_file(dir + "/mods/a.ko") == before) << "the module was written";
  EXPECT_FALSE(fs::exists(dir + "/out.btf"));
}

// Modules packed as distributions install them (.ko.xz, .ko.zst, .ko.gz):
// encoded as the plain module is, alone or found in a folder; in place
// they are refused, since the BTF could only go into the copy unpacked in
// memory, and left as they were.
TEST(Batch, PackedModules) {
  const std::string dir = scratch_dir() + "/packed_modules";
  fs::remove_all(dir);
  fs::create_directories(dir + "/mods/sub");
  const std::string obj = compile_c("packed_module", "struct s { int x; } v;\nint f(struct s *p) { return p->x; }\n",
                                    "gcc -g -O1 -c");
  const std::string plain = dir + "/plain.btf";
  ASSERT_EQ(run_btfc("encode -J --btf_encode_detached=" + plain + " " + obj).status, 0);
  ASSERT_EQ(run("xz -c " + obj + " > " + dir + "/mods/a.ko.xz").status, 0);
  ASSERT_EQ(run("zstd -q -c " + obj + " > " + dir + "/mods/sub/b.ko.zst").status, 0);
  ASSERT_EQ(run("gzip -c " + obj + " > " + dir + "/mods/c.ko.gz").status, 0);

  RunResult alone = run_btfc("encode -J --btf_encode_detached=" + dir + "/a.btf " + dir + "/mods/a.ko.xz");
  ASSERT_EQ(alone.status, 0) << alone.err;
  expect_same_file(dir + "/a.btf", plain);

  RunResult batch = run_btfc("encode -J --output-dir=" + dir + "/out " + dir + "/mods");
  ASSERT_EQ(batch.status, 0) << batch.err;
  for (const char* name : {"a", "b", "c"}) expect_same_file(dir + "/out/" + name + ".btf", plain);

  const std::string before = read_file(dir + "/mods/a.ko.xz");
  RunResult in_place = run_btfc("encode -J " + dir + "/mods/a.ko.xz");
  EXPECT_EQ(in_place.status, 1);
  EXPECT_NE(in_place.err.find(dir + "/mods/a.ko.xz: is packed (xz): its .BTF cannot be written in place"),
            std::string::npos)
      << in_place.err;
  EXPECT_TRUE(read_file(dir + "/mods/a.ko.xz") == before);
}

// A folder holding no module is reported, not taken for a job done.
TEST(Batch, FolderWithoutModules) {
  std::string dir = scratch_dir() + "/no_modules";
  fs::create_directories(dir + "/sub");
  std::string obj = compile_c("not_a_module", "int x;\n", "gcc -g -c");
  fs::copy_file(obj, dir + "/sub/x.o");
  RunResult r = run_btfc("encode -J " + dir);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find(dir + ": no module (*.ko"), std::string::npos) << r.err;
}


// An output that is one of the files to read (`a.ko` writes `a.btf`, which
// is an input too, or the base through a symlink) is refused before any
// file is touched: the inputs stay as they were.
TEST(Batch, OutputThatIsAnInputRefused) {
  std::string dir = scratch_dir() + "/output_is_input";
  fs::create_directories(dir + "/out");
  std::string obj = compile_c("output_is_input", "struct s { int x; } v;\n", "gcc -g -c");
  fs::copy_file(obj, dir + "/a.ko");
  fs::copy_file(obj, dir + "/a.btf");
  const std::string before = read_file(dir + "/a.btf");
  RunResult r = run_btfc("encode -J --output-dir=" + dir + " " + dir + "/a.ko " + dir + "/a.btf");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find(dir + "/a.btf is an input or the base"), std::string::npos) << r.err;
  EXPECT_TRUE(read_file(dir + "/a.btf") == before);

  // The base, reached through a symlink in the output folder.
  const std::string base = dir + "/base.btf";
  ASSERT_EQ(run_btfc("encode -J --btf_encode_detached=" + base + " " + obj).status, 0);
  const std::string base_before = read_file(base);
  fs::create_symlink(base, dir + "/out/b.btf");
  fs::copy_file(obj, dir + "/b.ko");
  r = run_btfc("encode -J --btf_base=" + base + " --output-dir=" + dir + "/out " + dir + "/b.ko");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find(dir + "/out/b.btf is an input or the base"), std::string::npos) << r.err;
  EXPECT_TRUE(read_file(base) == base_before);
}
// In place, one file under several names (again, a symlink, a hard link)
// is encoded once, and every name reads what encoding it alone gives.
TEST(Batch, InPlaceFileNamedTwiceIsEncodedOnce) {
  std::string dir = scratch_dir() + "/named_twice";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string obj = compile_c("named_twice", "struct s { int x; long y; } v; int f(struct s *p) { return p->x; }\n",
                              "gcc -g -O2 -c");
  for (const char* name : {"a.ko", "d.ko", "alone.ko"}) fs::copy_file(obj, dir + "/" + name);
  fs::create_hard_link(dir + "/a.ko", dir + "/b.ko");
  fs::create_symlink("a.ko", dir + "/c.ko");
  ASSERT_EQ(run_btfc("encode -J " + dir + "/alone.ko").status, 0);
  const std::string want = read_file(dir + "/alone.ko");
  ASSERT_NE(want, read_file(obj));
  RunResult r = run_btfc("encode -J -j2 --stats " + dir + "/a.ko " + dir + "/b.ko " + dir + "/c.ko " + dir + "/d.ko " +
                         dir + "/a.ko");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("files        2 (2 written)"), std::string::npos) << r.err;
  for (const char* name : {"a.ko", "b.ko", "c.ko", "d.ko"}) EXPECT_TRUE(read_file(dir + "/" + name) == want) << name;
  EXPECT_TRUE(fs::is_symlink(dir + "/c.ko"));
  EXPECT_EQ(fs::hard_link_count(dir + "/a.ko"), 2u);
}

TEST(BatchCorpus, ModulesIdenticalToSingleRuns) {
  std::string corpus = corpus_dir();
  ASSERT_FALSE(corpus.empty()) << "corpus not unpacked (scripts/unpack-corpus.sh)";
  std::string base = shared_dir() + "/reference/pahole-1.31/vmlinux.legacy-flags.btf";
  if (!fs::exists(base)) base = "/work/shared/reference/pahole-1.31/vmlinux.legacy-flags.btf";
  std::string flags = "encode -J --btf_gen_floats --lang_exclude=rust --btf_base=" + base;
  std::string dir = scratch_dir();
  // The whole folder, in one process, two threads.
  RunResult r = run_btfc(flags + " -j2 --output-dir=" + dir + "/batch " + corpus + "/mods");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const std::string& m : corpus_modules()) {
    std::string ko = corpus + "/mods/" + m + ".ko";
    std::string alone = dir + "/" + m + ".alone.btf";
    RunResult s = run_btfc(flags + " -j1 --btf_encode_detached=" + alone + " " + ko);
    ASSERT_EQ(s.status, 0) << s.err;
    expect_same_file(convert::batch_output_path(dir + "/batch", ko), alone);
  }
}

}  // namespace
}  // namespace btfc::test
