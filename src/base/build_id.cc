#include "base/build_id.h"

#include <link.h>

#include <cstddef>
#include <cstring>

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
          const uint8_t* end = p + ph.p_memsz;
          while (end - p >= static_cast<ptrdiff_t>(sizeof(ElfW(Nhdr)))) {
            ElfW(Nhdr) nh;
            std::memcpy(&nh, p, sizeof nh);
            const uint8_t* name = p + sizeof nh;
            const size_t name_len = (nh.n_namesz + 3) & ~size_t{3}, desc_len = (nh.n_descsz + 3) & ~size_t{3};
            if (static_cast<size_t>(end - name) < name_len + desc_len) break;
            const uint8_t* desc = name + name_len;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
              result.assign(desc, desc + nh.n_descsz);
              return 1;
            }
            p = desc + desc_len;
          }
        }
        return 1;  // the first object is the executable: look no further
      },
      &id);
  return id;
}

}  // namespace btfc
