// Packed ELF files (foo.ko.xz, .zst, .gz, as distributions install
// modules): read as the plain file they unpack to, whichever tool packed
// them; bad streams are one clear error naming the file and where.
#include "elf/packed.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/error.h"
#include "elf/elf_file.h"
#include "support/test_support.h"

namespace btfc::elf {
namespace {

namespace fs = std::filesystem;

struct Tool {
  const char* suffix;
  const char* pack;  // a command reading stdin, writing stdout
  Packing packing;
};
const Tool kTools[] = {
    {".gz", "gzip -9 -n -c", Packing::Gzip},
    {".xz", "xz --check=crc32 --lzma2=dict=1MiB -c", Packing::Xz},  // as the kernel packs modules
    {".zst", "zstd -q -19 -c", Packing::Zstd},
};

// `file` packed by `tool` into file + suffix (+ `extra` to the name).
std::string pack(const std::string& file, const Tool& tool, const std::string& extra = "") {
  const std::string out = file + extra + tool.suffix;
  test::RunResult r = test::run(std::string(tool.pack) + " < " + file + " > " + out);
  EXPECT_EQ(r.status, 0) << r.err;
  return out;
}

std::string object() {
  return test::compile_c("packed", "struct s { int a; long b; } v;\nint f(struct s *p) { return p->a; }\n",
                         "gcc -g -O1 -c");
}

TEST(Packed, ReadAsThePlainFile) {
  const std::string plain = object();
  std::unique_ptr<ElfFile> want = ElfFile::open(plain);
  for (const Tool& tool : kTools) {
    SCOPED_TRACE(tool.suffix);
    std::unique_ptr<ElfFile> got = ElfFile::open(pack(plain, tool));
    EXPECT_EQ(got->packing(), tool.packing);
    ASSERT_EQ(got->bytes().size(), want->bytes().size());
    EXPECT_EQ(std::memcmp(got->bytes().data(), want->bytes().data(), want->bytes().size()), 0);
    ASSERT_EQ(got->sections().size(), want->sections().size());
    const Section* info = got->find_section(".debug_info");
    ASSERT_NE(info, nullptr);
    Bytes a = got->section_data(*info), b = want->section_data(*want->find_section(".debug_info"));
    EXPECT_TRUE(a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0) << "relocated .debug_info";
  }
  EXPECT_EQ(want->packing(), Packing::None);
}

// gzip members, xz streams and zstd frames written one after the other
// (`cat a.gz b.gz`) unpack to the concatenation, as the tools read them.
TEST(Packed, ConcatenatedStreamsAreReadInTurn) {
  const std::string plain = object(), dir = test::scratch_dir() + "/packed-concat";
  fs::create_directories(dir);
  const std::string bytes = test::read_file(plain);
  const std::string head = dir + "/head", tail = dir + "/tail";
  std::ofstream(head, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  std::ofstream(tail, std::ios::binary) << bytes.substr(bytes.size() / 3);
  for (const Tool& tool : kTools) {
    SCOPED_TRACE(tool.suffix);
    const std::string both = dir + "/both" + tool.suffix;
    ASSERT_EQ(test::run("cat " + pack(head, tool) + " " + pack(tail, tool) + " > " + both).status, 0);
    std::unique_ptr<ElfFile> got = ElfFile::open(both);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(got->bytes().data()), got->bytes().size()), bytes);
  }
}

// A message like "btfc: F.ko.xz: xz stream+0x1a2: truncated": the file,
// the stream and the offset in it.
void expect_error(const std::string& path, const std::string& stream, const std::string& what) {
  try {
    ElfFile::open(path);
    ADD_FAILURE() << path << ": no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(path + ": " + stream + "+0x", 0), 0u) << m;
    EXPECT_NE(m.find(what), std::string::npos) << m;
  }
}

TEST(Packed, DamagedStreamsAreErrors) {
  const std::string plain = object();
  for (const Tool& tool : kTools) {
    SCOPED_TRACE(tool.suffix);
    const std::string packed = pack(plain, tool), stream = std::string(packing_name(tool.packing)) + " stream";
    const std::string bytes = test::read_file(packed);
    // Cut short: the stream has no end.
    const std::string cut = packed + ".cut";
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() * 2 / 3);
    expect_error(cut, stream, "truncated");
    // A byte changed in the middle: the decoder or its checksum sees it.
    std::string flipped = bytes;
    flipped[flipped.size() / 2] ^= 0x55;
    std::ofstream(packed + ".flip", std::ios::binary) << flipped;
    expect_error(packed + ".flip", stream, "");
  }
}

// A stream that unpacks past kMaxUnpackRatio times its size (here 64 MB of
// zeros) stops there: an error, not the memory it asks for.
TEST(Packed, BombIsRefusedAtTheRatio) {
  const std::string dir = test::scratch_dir() + "/packed-bomb";
  fs::create_directories(dir);
  const std::string zeros = dir + "/zeros";
  ASSERT_EQ(test::run("head -c 64M /dev/zero > " + zeros).status, 0);
  for (const Tool& tool : kTools) {
    SCOPED_TRACE(tool.suffix);
    const std::string packed = pack(zeros, tool);
    ASSERT_LT(fs::file_size(packed) * kMaxUnpackRatio, uint64_t{64} << 20) << "not a bomb for this ratio";
    expect_error(packed, std::string(packing_name(tool.packing)) + " stream",
                 "unpacks to more than " + std::to_string(kMaxUnpackRatio) + " times its size");
  }
}

TEST(Packed, MagicTellsTheFormat) {
  auto of = [](const char* s, size_t n) { return packing_of(Bytes(reinterpret_cast<const uint8_t*>(s), n)); };
  EXPECT_EQ(of("\x1f\x8b\x08", 3), Packing::Gzip);
  EXPECT_EQ(of("\xfd" "7zXZ\0\0", 7), Packing::Xz);
  EXPECT_EQ(of("\x28\xb5\x2f\xfd", 4), Packing::Zstd);
  EXPECT_EQ(of("\x7f" "ELF", 4), Packing::None);
  EXPECT_EQ(of("\xfd" "7zX", 4), Packing::None);  // too short to be xz
  EXPECT_EQ(of("", 0), Packing::None);
}

}  // namespace
}  // namespace btfc::elf
