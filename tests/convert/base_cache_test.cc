// The base cache (BTFC_BASE_CACHE=DIR, btf/base_cache.h): a module's run
// stores what it built from its base, the next run on that base uses it,
// and the output is byte-identical either way. A damaged, foreign or
// misplaced entry, or a directory others can write to, only means the base
// is read in full: never another output, never an error.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace btfc::test {
namespace {

namespace fs = std::filesystem;

struct CacheRun {
  RunResult r;
  std::string use;  // what --stats says of the cache: "stored", "hit", "missed", or "" (off)
};

// `btfc encode --stats FLAGS` with BTFC_BASE_CACHE=cache ("": unset).
CacheRun encode(const std::string& cache, const std::string& flags) {
  std::string env = cache.empty() ? "env -u BTFC_BASE_CACHE " : "BTFC_BASE_CACHE='" + cache + "' ";
  CacheRun run{btfc::test::run(env + BTFC_BINARY + " encode --stats " + flags), ""};
  const std::string key = "base cache   ";
  if (size_t at = run.r.err.find(key); at != std::string::npos) {
    size_t end = run.r.err.find('\n', at);
    run.use = run.r.err.substr(at + key.size(), end - at - key.size());
  }
  return run;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".cache") found.push_back(e.path().string());
  std::sort(found.begin(), found.end());
  return found;
}

// A base (standalone BTF of one object) and a module object to split on it.
struct Fixture {
  std::string dir, base, module;
};
const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture f;
    f.dir = scratch_dir() + "/base-cache";
    fs::create_directories(f.dir);
    std::string base_o = compile_c("cache_base",
                                   "struct list { struct list *next, *prev; };\n"
                                   "struct dev { const char *name; struct list l; unsigned long flags : 3; };\n"
                                   "enum state { OFF, ON };\n"
                                   "typedef int (*handler)(struct dev *, enum state);\n"
                                   "struct dev d0; handler h0; int use(struct dev *d) { return d->flags; }\n",
                                   "gcc -g -O2 -c");
    f.base = f.dir + "/base.btf";
    RunResult r = run_btfc("encode -J --btf_encode_detached=" + f.base + " " + base_o);
    EXPECT_EQ(r.status, 0) << r.err;
    f.module = compile_c("cache_module",
                         "struct list { struct list *next, *prev; };\n"
                         "struct dev { const char *name; struct list l; unsigned long flags : 3; };\n"
                         "enum state { OFF, ON };\n"
                         "struct mine { struct dev *d; enum state s; struct list l; } m0;\n"
                         "int probe(struct mine *m) { return m->s; }\n",
                         "gcc -g -O2 -c");
    return f;
  }();
  return f;
}

std::string split_flags(const std::string& base, const std::string& module, const std::string& out) {
  return "-J -j2 --btf_base=" + base + " --btf_encode_detached=" + out + " " + module;
}

TEST(BaseCache, StoredThenHitSameBytes) {
  const Fixture& f = fixture();
  std::string cache = f.dir + "/c1";
  CacheRun none = encode("", split_flags(f.base, f.module, f.dir + "/none.btf"));
  ASSERT_EQ(none.r.status, 0) << none.r.err;
  EXPECT_EQ(none.use, "");  // no directory: nothing said, nothing written
  CacheRun first = encode(cache, split_flags(f.base, f.module, f.dir + "/first.btf"));
  ASSERT_EQ(first.r.status, 0) << first.r.err;
  EXPECT_EQ(first.use, "stored");
  ASSERT_EQ(entries(cache).size(), 1u);
  struct stat st;
  ASSERT_EQ(stat(cache.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << "the directory it made is the user's alone";
  CacheRun second = encode(cache, split_flags(f.base, f.module, f.dir + "/second.btf"));
  ASSERT_EQ(second.r.status, 0) << second.r.err;
  EXPECT_EQ(second.use, "hit");
  std::string want = read_file(f.dir + "/none.btf");
  EXPECT_GT(want.size(), 24u);
  EXPECT_TRUE(read_file(f.dir + "/first.btf") == want);
  EXPECT_TRUE(read_file(f.dir + "/second.btf") == want);
  EXPECT_EQ(entries(cache).size(), 1u);
}

TEST(BaseCache, DamagedEntryIsReplaced) {
  const Fixture& f = fixture();
  std::string cache = f.dir + "/c2";
  ASSERT_EQ(encode(cache, split_flags(f.base, f.module, f.dir + "/d0.btf")).use, "stored");
  std::vector<std::string> e = entries(cache);
  ASSERT_EQ(e.size(), 1u);
  std::string bytes = read_file(e[0]);
  // The magic, the build's key (another btfc build), the base's key (another
  // base), the base's size, both images' digests, inside each image.
  for (size_t at : {size_t{3}, size_t{8}, size_t{24}, size_t{40}, size_t{64}, size_t{72}, bytes.size() / 2,
                    bytes.size() - 1}) {
    std::string bad = bytes;
    bad[at] ^= 0x40;
    std::ofstream(e[0], std::ios::binary | std::ios::trunc) << bad;
    CacheRun r = encode(cache, split_flags(f.base, f.module, f.dir + "/d1.btf"));
    ASSERT_EQ(r.r.status, 0) << r.r.err;
    EXPECT_EQ(r.use, "stored") << "byte " << at << " flipped: the entry must not be used";
    EXPECT_TRUE(read_file(f.dir + "/d1.btf") == read_file(f.dir + "/d0.btf"));
    EXPECT_TRUE(read_file(e[0]) == bytes) << "rewritten whole";
  }
  std::ofstream(e[0], std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 3);
  CacheRun r = encode(cache, split_flags(f.base, f.module, f.dir + "/d2.btf"));
  ASSERT_EQ(r.r.status, 0) << r.r.err;
  EXPECT_EQ(r.use, "stored") << "a truncated entry must not be used";
  EXPECT_EQ(encode(cache, split_flags(f.base, f.module, f.dir + "/d3.btf")).use, "hit");
  EXPECT_TRUE(read_file(f.dir + "/d3.btf") == read_file(f.dir + "/d0.btf"));
}

TEST(BaseCache, EntryOfAnotherBaseIsNotUsed) {
  const Fixture& f = fixture();
  std::string cache = f.dir + "/c3";
  // Another base: the module's own BTF.
  std::string other = f.dir + "/other-base.btf";
  RunResult r = run_btfc("encode -J --btf_encode_detached=" + other + " " + f.module);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_FALSE(read_file(other) == read_file(f.base));
  ASSERT_EQ(encode(cache, split_flags(other, f.module, f.dir + "/o1.btf")).use, "stored");
  std::vector<std::string> e = entries(cache);
  ASSERT_EQ(e.size(), 1u);
  ASSERT_EQ(encode(cache, split_flags(f.base, f.module, f.dir + "/o2.btf")).use, "stored");
  std::vector<std::string> both = entries(cache);
  ASSERT_EQ(both.size(), 2u);
  // Put the other base's entry where this base's belongs.
  std::string mine = both[0] == e[0] ? both[1] : both[0];
  fs::copy_file(e[0], mine, fs::copy_options::overwrite_existing);
  CacheRun again = encode(cache, split_flags(f.base, f.module, f.dir + "/o3.btf"));
  ASSERT_EQ(again.r.status, 0) << again.r.err;
  EXPECT_EQ(again.use, "stored");
  EXPECT_TRUE(read_file(f.dir + "/o3.btf") == read_file(f.dir + "/o2.btf"));
}

TEST(BaseCache, DirectoryOthersCanWriteIsNotUsed) {
  const Fixture& f = fixture();
  std::string cache = f.dir + "/c4";
  fs::create_directories(cache);
  ASSERT_EQ(chmod(cache.c_str(), 0777), 0);
  CacheRun r = encode(cache, split_flags(f.base, f.module, f.dir + "/w1.btf"));
  ASSERT_EQ(r.r.status, 0) << r.r.err;
  EXPECT_EQ(r.use, "missed");
  EXPECT_TRUE(entries(cache).empty());
  // A path that cannot be a directory: the run goes on without a cache.
  CacheRun under_file = encode(f.base + "/cache", split_flags(f.base, f.module, f.dir + "/w2.btf"));
  ASSERT_EQ(under_file.r.status, 0) << under_file.r.err;
  EXPECT_EQ(under_file.use, "missed");
  EXPECT_TRUE(read_file(f.dir + "/w1.btf") == read_file(f.dir + "/w2.btf"));
}

TEST(BaseCache, KeepsTheEightUsedLast) {
  const Fixture& f = fixture();
  std::string cache = f.dir + "/c5";
  fs::create_directories(cache);
  ASSERT_EQ(chmod(cache.c_str(), 0700), 0);
  // Nine older entries (never valid ones: any content will do here).
  for (int i = 0; i < 9; ++i) {
    std::string p = cache + "/base-old" + std::to_string(i) + ".cache";
    std::ofstream(p) << "old";
    fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(24 * (i + 1)));
  }
  std::string leftover = cache + "/base-x.cache.tmp.AbCdEf";
  std::ofstream(leftover) << "a killed run's";
  fs::last_write_time(leftover, fs::file_time_type::clock::now() - std::chrono::hours(2));
  ASSERT_EQ(encode(cache, split_flags(f.base, f.module, f.dir + "/k1.btf")).use, "stored");
  std::vector<std::string> e = entries(cache);
  EXPECT_EQ(e.size(), 8u);
  EXPECT_FALSE(fs::exists(leftover));
  for (int i = 7; i < 9; ++i)
    EXPECT_FALSE(fs::exists(cache + "/base-old" + std::to_string(i) + ".cache")) << "the oldest go first";
  EXPECT_EQ(encode(cache, split_flags(f.base, f.module, f.dir + "/k2.btf")).use, "hit");
}

TEST(BaseCache, BadBaseStillFailsAndStoresNothing) {
  const Fixture& f = fixture();
  std::string cache = f.dir + "/c6";
  std::string bad = f.dir + "/bad-base.btf";
  std::string bytes = read_file(f.base);
  bytes[bytes.size() - 1] = 'x';  // the string section no longer ends with NUL
  std::ofstream(bad, std::ios::binary) << bytes;
  CacheRun r = encode(cache, split_flags(bad, f.module, f.dir + "/bad.btf"));
  EXPECT_EQ(r.r.status, 1) << r.r.err;
  EXPECT_NE(r.r.err.find("bad-base.btf"), std::string::npos) << r.r.err;
  EXPECT_NE(r.r.err.find("does not end with NUL"), std::string::npos) << r.r.err;
  EXPECT_TRUE(entries(cache).empty());
  EXPECT_FALSE(fs::exists(f.dir + "/bad.btf"));
}

// The corpus modules split on pahole 1.31's vmlinux BTF, as a kernel build
// runs them: one run stores, the others hit, and every output has the bytes
// of a run without the cache.
TEST(BaseCacheCorpus, ModulesSameBytesWithAndWithout) {
  std::string corpus = corpus_dir();
  ASSERT_FALSE(corpus.empty()) << "corpus not unpacked (scripts/unpack-corpus.sh)";
  std::string base = shared_dir() + "/reference/pahole-1.31/vmlinux.legacy-flags.btf";
  ASSERT_TRUE(fs::exists(base)) << base;
  std::string dir = scratch_dir() + "/base-cache-corpus";
  fs::create_directories(dir);
  std::string cache = dir + "/cache";
  bool first = true;
  for (const std::string& m : corpus_modules()) {
    std::string ko = corpus + "/mods/" + m + ".ko";
    std::string flags = "-J --btf_gen_floats --lang_exclude=rust -j2 --btf_base=" + base + " --btf_encode_detached=";
    CacheRun plain = encode("", flags + dir + "/" + m + ".plain.btf " + ko);
    ASSERT_EQ(plain.r.status, 0) << plain.r.err;
    CacheRun cached = encode(cache, flags + dir + "/" + m + ".cached.btf " + ko);
    ASSERT_EQ(cached.r.status, 0) << cached.r.err;
    EXPECT_EQ(cached.use, first ? "stored" : "hit") << m;
    first = false;
    EXPECT_TRUE(read_file(dir + "/" + m + ".plain.btf") == read_file(dir + "/" + m + ".cached.btf")) << m;
  }
  EXPECT_EQ(entries(cache).size(), 1u);
}

}  // namespace
}  // namespace btfc::test
