// The depth-first DIE cursor. It holds one Reader over the unit and decodes
// nothing but abbreviation codes (and DW_AT_sibling) unless asked: the
// attributes of the DIE returned last are skipped lazily when next() is
// called, in one step when its abbreviation has only fixed-size forms.
//
// Termination on any input: every step moves the reader forward (a code, a
// null entry, attributes, or a DW_AT_sibling jump that was checked to point
// past the DIE), and nesting is bounded by kMaxDepth.
#include "dwarf/dwarf_file.h"

namespace btfc::dwarf {

DieCursor::DieCursor(const Unit& unit) : unit_(&unit), r_(unit.reader) {
  r_.seek(unit.die_offset - unit.offset);
  expect_end_[0] = 0;
}

DieCursor::DieCursor(const Die& die) : unit_(die.unit), r_(die.unit->reader) {
  r_.seek(die.section_offset() - die.unit->offset);
  expect_end_[0] = 0;
}

void DieCursor::skip_pending() {
  const Abbrev* a = pending_;
  pending_ = nullptr;
  if (pending_end_) {
    r_.seek(pending_end_);
  } else {
    r_.seek(pending_pos_);
    DwarfFile::skip_attrs(r_, *a, unit_->abbrevs->sizes());
  }
  if (a->has_children) {
    if (level_ >= kMaxDepth)
      r_.fail_at(last_offset_, "DIEs are nested deeper than " + std::to_string(kMaxDepth) + " levels");
    level_++;
    expect_end_[level_] = last_sibling_;
    parent_[level_] = last_offset_;
  } else if (level_ == 0) {
    done_ = true;  // the start DIE has no children
  }
}

// A null entry ended the children at level_; r_ is just past it.
void DieCursor::close_level(uint64_t null_at) {
  uint64_t want = expect_end_[level_];
  if (want && want != r_.offset())
    r_.fail_at(parent_[level_], "DW_AT_sibling points to " + hex(want) + " but the DIE's children end at " +
                                    hex(r_.offset()));
  level_--;
  if (level_ == 0) done_ = true;
}

void DieCursor::fail_code(uint64_t off, uint64_t code) {
  r_.fail_at(off, "abbreviation code " + std::to_string(code) + " does not exist");
}

void DieCursor::fail_sibling(uint64_t off, uint64_t sib) {
  if (sib <= off) r_.fail_at(off, "DW_AT_sibling " + hex(sib) + " does not point past its DIE");
  r_.fail_at(off, "DW_AT_sibling " + hex(sib) + " points past the end of the unit");
}

void DieCursor::skip_children() {
  if (!pending_ || !pending_->has_children) return;
  unsigned target = level_;
  if (last_sibling_) {
    pending_ = nullptr;
    if (target == 0) {
      done_ = true;
      return;
    }
    r_.seek(last_sibling_ - unit_->offset);
    return;
  }
  skip_pending();  // level_ is now target + 1
  FormSizes sizes = unit_->abbrevs->sizes();
  while (level_ > target && !r_.empty()) {
    uint64_t off = r_.offset();
    uint64_t code = r_.uleb128();
    if (code == 0) {
      level_--;
      continue;
    }
    const Abbrev* a = unit_->abbrevs->find(code);
    if (!a) r_.fail_at(off, "abbreviation code " + std::to_string(code) + " does not exist");
    DwarfFile::skip_attrs(r_, *a, sizes);
    if (a->has_children) {
      if (level_ >= kMaxDepth)
        r_.fail_at(off, "DIEs are nested deeper than " + std::to_string(kMaxDepth) + " levels");
      level_++;
      expect_end_[level_] = 0;
    }
  }
  if (level_ > target || target == 0) done_ = true;
}

void decode_unit(const DwarfFile& file, const Unit& unit, std::vector<uint64_t>& counts) {
  counts.assign(unit.abbrevs->declarations().size(), 0);
  DieCursor cursor(unit);
  Die die;
  Attr attr;
  while (cursor.next(die)) {
    counts[unit.abbrevs->index_of(die.abbrev)]++;
    AttrIter it(file, die);
    while (it.next(attr)) {
    }
    cursor.set_attrs_end(it.end_pos());
  }
}

}  // namespace btfc::dwarf
