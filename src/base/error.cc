#include "base/error.h"

#include <cstdio>

namespace btfc {

void Error::update() {
  text_.clear();
  if (!file_.empty()) text_ += file_ + ": ";
  if (!section_.empty() || offset_) {
    text_ += section_.empty() ? std::string("offset") : section_;
    if (offset_) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(*offset_));
      text_ += buf;
    }
    text_ += ": ";
  }
  text_ += message_;
}

}  // namespace btfc
