#include "base/build_id.h"

#include <link.h>

#include <bit>
#include <string_view>

#include "base/error.h"

namespace btfc {

std::vector<uint8_t> own_build_id() {
  std::vector<uint8_t> id;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        auto& result = *static_cast<std::vector<uint8_t>*>(out);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE) continue;
          const auto* p = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
          const Bytes found = gnu_build_id(Bytes(p, ph.p_memsz), std::endian::native == std::endian::big);
          if (!found.empty()) {
            result.assign(found.begin(), found.end());
            return 1;
          }
        }
        return 1;  // the first object is the executable: look no further
      },
      &id);
  return id;
}

Bytes gnu_build_id(Bytes notes, bool big_endian) {
  constexpr uint32_t kBuildId = 3;  // NT_GNU_BUILD_ID
  Reader r(notes, "notes", big_endian);
  try {
    while (r.remaining() >= 12) {
      const uint32_t namesz = r.u32(), descsz = r.u32(), type = r.u32();
      const Bytes name = r.take((uint64_t{namesz} + 3) & ~uint64_t{3});
      const Bytes desc = r.take((uint64_t{descsz} + 3) & ~uint64_t{3});
      if (type == kBuildId && namesz == 4 &&
          std::string_view(reinterpret_cast<const char*>(name.data()), 4) == std::string_view("GNU", 4))
        return desc.first(descsz);
    }
  } catch (const Error&) {
    // A damaged note names no build: as if there were none.
  }
  return {};
}

}  // namespace btfc
