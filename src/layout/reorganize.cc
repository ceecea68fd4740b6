// class__reorganize() (see reorganize.h), on a copy of a struct's members.
// pahole keeps some of these quantities in 16 bits (a member's offset and
// hole while it is moved, the padding) and mixes int holes with size_t
// sizes; the same conversions are made here, so that a struct over 64 KB,
// or a negative hole of broken input, ends as in pahole.
#include "layout/reorganize.h"

#include <cstdio>

#include "layout/printer.h"

namespace btfc::layout {
namespace {

constexpr size_t kNone = ~size_t{0};

// A hole (an int) where pahole compares it with a size_t.
uint64_t as_size(int hole) { return static_cast<uint64_t>(static_cast<int64_t>(hole)); }

class Reorganizer {
 public:
  Reorganizer(const Table& t, uint32_t index, bool verbose) : addr_(t.addr_size ? t.addr_size : 8), verbose_(verbose) {
    const Type& ty = t.t(index);
    for (uint32_t k = 0; k < ty.count; ++k)
      if (!t.members[ty.first + k].is_static) m_.push_back(t.members[ty.first + k]);
    size_ = static_cast<uint32_t>(ty.size);
  }

  Reorganized run() {
    recalc();
    // Each move restarts the search; real structs need a few, of a few
    // hundred members at most. Hostile input (overlapping members,
    // thousands of them) could move members back and forth, or make each
    // pass quadratic: moves and steps are bounded, and past the bound the
    // struct is left as far as it got.
    const size_t max_moves = 4 * m_.size() + 64;
    for (size_t moves = 0; moves < max_moves && steps_ < kMaxSteps && pass(); ++moves) {
    }
    return {std::move(m_), size_, std::move(moves_)};
  }

 private:
  // One pass from `restart:` to a move (true) or to the end (false).
  bool pass() {
    if (m_.empty()) return false;
    const size_t last = m_.size() - 1;
    uint64_t alignment = 0;
    for (const Member& mem : m_) {
      const uint64_t aligned = mem.byte_size + as_size(mem.hole);
      if (aligned <= addr_ && aligned > alignment) alignment = aligned;
    }
    if (alignment != 0) {
      if (alignment > 1) alignment = (alignment + 1) / 2 * 2;
      const uint64_t end = uint64_t{m_[last].byte_offset} + m_[last].byte_size;
      const uint64_t modulo = end % alignment;
      const uint16_t padding = modulo != 0 ? static_cast<uint16_t>(addr_ - modulo) : 0;
      if (padding != info_.padding) {
        info_.padding = padding;
        size_ = static_cast<uint32_t>(end + padding);
      }
    }
    for (size_t i = 0; i < m_.size(); ++i) {
      if (m_[i].hole == 0) continue;
      const uint64_t hole = as_size(m_[i].hole);
      const size_t brother = next_hole_of_size(i, hole);
      if (brother != kNone && brother - 1 != i && move(i, brother, false)) return true;
      if (info_.padding > 0 && i != last && m_[last].byte_size != 0 && m_[last].byte_size <= hole &&
          move(i, last, true))
        return true;
    }
    if (info_.nr_holes == 0) return false;
    for (size_t i = 0; i < m_.size(); ++i) {
      if (m_[i].hole == 0) continue;
      const size_t brother = last_member_of_size(i, as_size(m_[i].hole));
      if (brother != kNone && brother - 1 != i && move(i, brother, false)) return true;
    }
    return false;
  }

  // class__find_next_hole_of_size(): after `from`, a member with a hole
  // after it that fits in `size` (the first of its bitfield).
  size_t next_hole_of_size(size_t from, uint64_t size) {
    size_t bitfield_head = kNone;
    for (size_t j = from + 1; j < m_.size() && ++steps_ < kMaxSteps; ++j) {
      if (m_[j].bitfield_size != 0) {
        if (bitfield_head == kNone) bitfield_head = j;
      } else {
        bitfield_head = kNone;
      }
      if (m_[j].hole != 0 && m_[j].byte_size != 0 && m_[j].byte_size <= size)
        return bitfield_head != kNone ? bitfield_head : j;
    }
    return kNone;
  }

  // class__find_last_member_of_size(): from the end back to `to`, the
  // first member that fits in `size` and does not continue a bitfield.
  size_t last_member_of_size(size_t to, uint64_t size) {
    for (size_t j = m_.size(); j-- > to + 1 && ++steps_ < kMaxSteps;) {
      if (m_[j].bitfield_size != 0 && m_[j].byte_offset != 0 && m_[j - 1].bitfield_size != 0) continue;
      if (m_[j].byte_size != 0 && m_[j].byte_size <= size) return j;
    }
    return kNone;
  }

  // class__move_member(): `from` (after `dest`) to right after `dest`.
  bool move(size_t dest, size_t from, bool from_padding) {
    const Member moved_from = m_[from];
    if (moved_from.bitfield_size != 0) return false;  // no bitfield algorithms
    const uint64_t from_size = moved_from.byte_size, dest_size = m_[dest].byte_size;
    const bool from_was_last = from == m_.size() - 1;
    size_t from_prev = from - 1;
    const uint16_t orig_tail_from_hole = static_cast<uint16_t>(moved_from.hole);
    const uint16_t orig_from_offset = static_cast<uint16_t>(moved_from.byte_offset);
    const uint64_t align = from_size > addr_ ? addr_ : from_size;
    const uint16_t offset = static_cast<uint16_t>(as_size(m_[dest].hole) % align);
    const uint16_t new_from_offset = static_cast<uint16_t>(m_[dest].byte_offset + dest_size + offset);
    if (verbose_)
      moves_ += "/* Moving '" + name(moved_from) + "' from after '" + name(m_[from_prev]) + "' to after '" +
                name(m_[dest]) + "' */\n";
    m_.erase(m_.begin() + static_cast<std::ptrdiff_t>(from));
    Member& placed = *m_.insert(m_.begin() + static_cast<std::ptrdiff_t>(dest) + 1, moved_from);
    placed.byte_offset = new_from_offset;
    placed.bit_offset = uint32_t{new_from_offset} * 8 + static_cast<uint32_t>(placed.bitfield_offset);
    if (from_prev > dest) ++from_prev;  // it moved down one place
    if (from_padding) {
      if (orig_from_offset % addr_ == 0) {
        size_ -= static_cast<uint32_t>(from_size + info_.padding);
      } else if (verbose_) {
        moves_ += "/* adding " + std::to_string(from_size) + " bytes from " + name(moved_from) +
                  " to the padding */\n";
      }
    } else if (from_was_last) {
      size_ -= static_cast<uint32_t>(from_size + info_.padding);
    } else if (orig_tail_from_hole + from_size >= addr_) {
      size_ -= addr_;
      for (size_t j = from_prev + 1; j < m_.size(); ++j) {  // class__subtract_offsets_from()
        m_[j].byte_offset -= addr_;
        m_[j].bit_offset -= addr_ * 8;
      }
    }
    recalc();
    return true;
  }

  void recalc() {
    steps_ += m_.size();
    info_ = Printer::ClassInfo{};
    find_member_holes(m_, size_, info_);
  }

  static std::string name(const Member& m) { return std::string(name_or_null(m.name)); }

  static constexpr uint64_t kMaxSteps = uint64_t{1} << 26;
  uint64_t steps_ = 0;
  std::vector<Member> m_;
  uint32_t size_ = 0;
  const uint32_t addr_;
  const bool verbose_;
  Printer::ClassInfo info_;
  std::string moves_;
};

}  // namespace

Reorganized reorganize(const Table& t, uint32_t index, bool verbose) { return Reorganizer(t, index, verbose).run(); }

}  // namespace btfc::layout
