#include "base/error.h"

#include <cstdio>
#include <string_view>

namespace btfc {

namespace {

// Names in a message come from the input (section names, type names, file
// names a file gives): a control byte among them (a newline, a terminal
// escape) shows as \xNN, so that the message stays one line of text.
void append_visible(std::string& out, std::string_view s) {
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b != 0x7f) {
      out += c;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", b);
      out += buf;
    }
  }
}

}  // namespace

std::string hex(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  return buf;
}

std::string shown_name(std::string_view name) {
  constexpr size_t kShown = 64;
  return name.size() <= kShown ? std::string(name) : std::string(name.substr(0, kShown)) + "...";
}

void Error::update() {
  text_.clear();
  if (!file_.empty()) {
    append_visible(text_, file_);
    text_ += ": ";
  }
  if (!section_.empty() || offset_) {
    append_visible(text_, section_.empty() ? std::string_view("offset") : std::string_view(section_));
    if (offset_) text_ += "+" + hex(*offset_);
    text_ += ": ";
  }
  append_visible(text_, message_);
}

}  // namespace btfc
