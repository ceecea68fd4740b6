// The kernel's resolution order, replayed (see kernel_order.h).
//
// What follows is kernel/bpf/btf.c's btf_check_all_types and each kind's
// resolve step reduced to their pushes: a mode set by the first pointer,
// struct or array a resolution pushes decides which referred types are
// "sinks", taken as they are; any other referred type not resolved yet is
// pushed, and its referrer's step runs again once it is resolved. A
// pointer whose target is a modifier resolved to another pointer pushes
// that pointer (the kernel's "last-resolved-ptr" case). The checks of a
// FUNC_PROTO resolve its return and parameter types, each from a fresh
// stack, where the id order meets the prototype. Anything the kernel
// would refuse for another reason (a loop, a bad id) ends that one
// resolution here; validate() reports it.
#include "btf/kernel_order.h"

#include <string>

#include "base/error.h"

namespace btfc::btf {

namespace {

bool needs_resolve(Kind k) {
  return is_modifier(k) || k == Kind::Ptr || is_composite(k) || k == Kind::Array || k == Kind::Var ||
         k == Kind::Datasec || k == Kind::Func || k == Kind::DeclTag;
}

class Replay {
 public:
  Replay(const Btf& btf, bool with_order)
      : btf_(btf), start_(btf.start_id()), end_(btf.end_id()), with_order_(with_order),
        state_(btf.type_count(), kNotVisited), resolved_to_(btf.type_count(), 0) {
    if (with_order_) out_.order.reserve(btf.type_count());
  }

  KernelResolution run() && {
    for (TypeId id = start_; id < end_; ++id) {
      const Kind k = kind(id);
      resolve_if_needed(id);
      if (k == Kind::FuncProto) {
        const uint32_t* rec = btf_.record(id);
        resolve_if_needed(rec[2]);
        for (uint32_t i = 0, n = info_vlen(rec[1]); i < n; ++i) resolve_if_needed(rec[4 + 2 * i]);
      }
      if (!needs_resolve(k) && with_order_) out_.order.push_back(id);
    }
    // Types a refused resolution left unresolved, at the end in id order.
    if (with_order_ && out_.order.size() < btf_.type_count())
      for (TypeId id = start_; id < end_; ++id)
        if (state_[id - start_] != kResolved && needs_resolve(kind(id))) out_.order.push_back(id);
    return std::move(out_);
  }

 private:
  // kAbandoned: on the stack of a resolution the kernel would refuse (a
  // loop); never pushed again, and placed last in the order.
  enum : uint8_t { kNotVisited, kVisited, kResolved, kAbandoned };
  enum class Mode { Tbd, Ptr, StructOrArray };
  struct Vertex {
    TypeId id;
    uint32_t next_member;
  };

  bool own(TypeId id) const { return id >= start_ && id < end_; }
  // Void and ids past the table (an error validate() reports) as UNKNOWN:
  // a sink in every mode.
  Kind kind(TypeId id) const { return id == 0 || id >= end_ ? Kind::Unknown : info_kind(btf_.record(id)[1]); }
  bool resolved(TypeId id) const { return !own(id) || state_[id - start_] == kResolved; }
  bool sink(TypeId id) const {
    const Kind k = kind(id);
    switch (mode_) {
      case Mode::Tbd: return !needs_resolve(k);
      case Mode::Ptr: return !is_modifier(k) && k != Kind::Ptr;
      case Mode::StructOrArray: return !is_modifier(k) && k != Kind::Array && !is_composite(k);
    }
    return true;
  }
  // Would the step of a type referring to `id` push it?
  bool pushes(TypeId id) const { return !sink(id) && !resolved(id); }

  void resolve_if_needed(TypeId id) {
    if (needs_resolve(kind(id)) && !resolved(id)) resolve(id);
  }

  // btf_resolve: one stack, from `root`.
  void resolve(TypeId root) {
    mode_ = Mode::Tbd;
    stack_.clear();
    if (!push(root)) return;
    while (!stack_.empty())
      if (!step()) {
        // Refused (a loop): what is on the stack stays unresolved.
        for (const Vertex& v : stack_) state_[v.id - start_] = kAbandoned;
        stack_.clear();
      }
  }

  bool push(TypeId id) {
    if (!own(id) || state_[id - start_] != kNotVisited) return false;  // the kernel's -EEXIST
    state_[id - start_] = kVisited;
    stack_.push_back({id, 0});
    if (stack_.size() > out_.max_depth) {
      out_.max_depth = static_cast<uint32_t>(stack_.size());
      out_.deepest = stack_.front().id;
    }
    if (mode_ == Mode::Tbd) {
      const Kind k = kind(id);
      if (k == Kind::Ptr) mode_ = Mode::Ptr;
      else if (is_composite(k) || k == Kind::Array) mode_ = Mode::StructOrArray;
    }
    return true;
  }

  void pop(TypeId resolved_to) {
    const TypeId id = stack_.back().id;
    stack_.pop_back();
    state_[id - start_] = kResolved;
    resolved_to_[id - start_] = resolved_to;
    if (with_order_) out_.order.push_back(id);
  }

  // What a modifier or VAR referring to `next` resolves to: the first type
  // with a size along the chain (btf_type_id_size), else `next`.
  TypeId resolved_through(TypeId next) const {
    const Kind k = kind(next);
    if ((is_modifier(k) || k == Kind::Var) && own(next) && state_[next - start_] == kResolved)
      return resolved_to_[next - start_];
    return next;
  }

  // One resolve step of the stack's top; false where the kernel refuses.
  bool step() {
    Vertex& v = stack_.back();
    const uint32_t* rec = btf_.record(v.id);
    switch (info_kind(rec[1])) {
      case Kind::Ptr: {
        const TypeId next = rec[2];
        if (pushes(next)) return push(next);
        if (is_modifier(kind(next))) {
          const TypeId last_ptr = resolved_through(next);
          if (kind(last_ptr) == Kind::Ptr && pushes(last_ptr)) return push(last_ptr);
        }
        pop(next);
        return true;
      }
      case Kind::Array:
        for (TypeId t : {rec[4], rec[3]})  // the index type, then the element's
          if (pushes(t)) return push(t);
        pop(rec[3]);
        return true;
      case Kind::Struct: case Kind::Union: case Kind::Datasec: {
        const uint32_t n = info_vlen(rec[1]);
        const uint32_t first = info_kind(rec[1]) == Kind::Datasec ? 3 : 4;
        for (uint32_t i = v.next_member; i < n; ++i) {
          const TypeId t = rec[first + 3 * i];
          if (pushes(t)) {
            v.next_member = i + 1;
            return push(t);
          }
        }
        pop(0);
        return true;
      }
      case Kind::Func:
        pop(rec[2]);
        return true;
      default: {  // modifiers, VAR, DECL_TAG
        const TypeId next = rec[2];
        if (pushes(next)) return push(next);
        pop(resolved_through(next));
        return true;
      }
    }
  }

  const Btf& btf_;
  const TypeId start_, end_;
  const bool with_order_;
  std::vector<uint8_t> state_;
  std::vector<TypeId> resolved_to_;
  std::vector<Vertex> stack_;
  Mode mode_ = Mode::Tbd;
  KernelResolution out_;
};

// `btf`'s own types renumbered: the type at order[k] becomes start + k.
void renumber(Btf& btf, const std::vector<TypeId>& order) {
  const TypeId start = btf.start_id(), end = btf.end_id();
  std::vector<TypeId> new_id(btf.type_count());
  for (size_t k = 0; k < order.size(); ++k) new_id[order[k] - start] = start + static_cast<TypeId>(k);
  UninitVector<uint32_t> words, offsets;
  words.reserve(btf.words().size());
  offsets.reserve(order.size());
  for (TypeId old : order) {
    const uint32_t* rec = btf.record(old);
    const size_t at = words.size();
    offsets.push_back(static_cast<uint32_t>(at));
    words.insert(words.end(), rec, rec + btf.type(old).word_count());
    visit_type_id_words(words.data() + at, [&](uint32_t& id) {
      if (id >= start && id < end) id = new_id[id - start];
    });
  }
  btf.assign_records(std::move(words), std::move(offsets));
}

}  // namespace

KernelResolution kernel_resolution(const Btf& btf, bool with_order) { return Replay(btf, with_order).run(); }

bool order_for_kernel(Btf& btf, uint32_t max_depth) {
  KernelResolution r = kernel_resolution(btf);
  if (r.max_depth <= max_depth) return false;
  // Each round numbers the types in the order the last one resolved them.
  // A type then finds what its resolution pushed resolved, unless its own
  // stack starts in another mode than the stack it was resolved in did
  // (a typedef of a pointer, met inside a struct): another round settles
  // that.
  for (int round = 0; round < 8 && r.max_depth > max_depth; ++round) {
    renumber(btf, r.order);
    r = kernel_resolution(btf);
  }
  if (r.max_depth > max_depth)
    throw Error("type [" + std::to_string(r.deepest) + "] " + std::string(kind_name(btf.kind(r.deepest))) +
                ": the kernel would resolve it " + std::to_string(r.max_depth) +
                " types deep, past its limit of " + std::to_string(max_depth) +
                ", in every order tried");
  return true;
}

}  // namespace btfc::btf
