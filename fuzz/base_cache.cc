// Fuzz target: damaged base cache images (btf/base_cache.h). The input
// edits a valid image of a small base's dedup index and string index: its
// first two bytes cut it short, every next three bytes set one byte (two
// for the position, one for the value). Restoring must then fail cleanly
// or give indexes that are safe to read: never a read out of bounds, a
// crash or a hang, whatever the image says (the cache checks an entry's
// digest only once its images are read in).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/error.h"
#include "base/flat_bytes.h"
#include "btf/btf.h"
#include "btf/dedup.h"
#include "small_base.h"

namespace {

using namespace btfc::btf;

const Btf& base() { return btfc::fuzz::small_base(); }

std::vector<uint8_t> edited(std::vector<uint8_t> image, const uint8_t* data, size_t size) {
  if (size < 2) return image;
  image.resize((data[0] | size_t{data[1]} << 8) % (image.size() + 1));
  for (size_t i = 2; i + 3 <= size && !image.empty(); i += 3)
    image[(data[i] | size_t{data[i + 1]} << 8) % image.size()] = data[i + 2];
  return image;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<uint8_t> dedup_image = DedupBase(base()).save();
  static const std::vector<uint8_t> strings_image = [] {
    std::vector<uint8_t> out;
    base().strings().save_index(out);
    return out;
  }();

  std::vector<uint8_t> d = edited(dedup_image, data, size);
  btfc::FlatReader din(d);
  try {
    DedupBase restored(base(), din);
    if (restored.save().size() != d.size()) __builtin_trap();  // it took all of the image
  } catch (const btfc::Error&) {
  }

  std::vector<uint8_t> s = edited(strings_image, data, size);
  btfc::FlatReader sin(s);
  StringTable strings = base().strings();
  if (strings.restore_index(sin)) {
    for (const char* name : {"int", "list", "next", "nothing like it", ""}) {
      if (std::optional<uint32_t> off = strings.find(name); off && *off >= strings.size()) __builtin_trap();
    }
  }
  return 0;
}
