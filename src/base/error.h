// The one error type of btfc. Everything that reads input bytes reports a
// problem by throwing btfc::Error; the command line catches it once and
// prints `btfc: FILE: SECTION+0xOFFSET: what is wrong`, exit status 1.
//
// Layers below the command line know the section and offset but often not
// the file; the file name is filled in by whoever opened it (see
// Error::with_file), so messages stay complete without threading paths
// through every reader.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace btfc {

class Error : public std::exception {
 public:
  explicit Error(std::string message) : message_(std::move(message)) { update(); }
  Error(std::string section, uint64_t offset, std::string message)
      : section_(std::move(section)), offset_(offset), message_(std::move(message)) {
    update();
  }

  // Fills in the file name if no one did yet; returns *this for rethrowing.
  Error& with_file(const std::string& file) {
    if (file_.empty()) {
      file_ = file;
      update();
    }
    return *this;
  }

  const std::string& file() const { return file_; }
  const std::string& section() const { return section_; }
  std::optional<uint64_t> offset() const { return offset_; }
  const std::string& message() const { return message_; }
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  void update();

  std::string file_;
  std::string section_;
  std::optional<uint64_t> offset_;
  std::string message_;
  std::string text_;  // "FILE: SECTION+0xOFF: message", without "btfc: "
};

// "0x1c": how messages show offsets, lengths and codes.
std::string hex(uint64_t value);

// A name from the input as messages show it: a string of a damaged file
// may run on for megabytes, so only its first 64 bytes, then "...".
std::string shown_name(std::string_view name);

}  // namespace btfc
