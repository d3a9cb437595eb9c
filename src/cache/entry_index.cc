// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/entry_index.h"

namespace falcon {
namespace cache_internal {

namespace {
// Grown by 1.4x when more than 80% full (part of the per-entry overhead).
constexpr uint64_t kMaxLoadNum = 4, kMaxLoadDen = 5;
}  // namespace

EntryIndex::EntryIndex(bool huge_pages)
    : slots_(IndexAllocator<uint64_t>(huge_pages)) {
  slots_.assign(kMinSlots, 0);
}

size_t EntryIndex::FindEntry(const Entry* e, uint64_t hash) const {
  const size_t n = slots_.size();
  size_t i = HomeOf(hash, n);
  while (EntryOf(slots_[i]) != e) {
    if (++i == n) i = 0;
  }
  return i;
}

void EntryIndex::ReserveOneMore(uint64_t count) {
  if ((count + 1) * kMaxLoadDen > slots_.size() * kMaxLoadNum) {
    Rehash(slots_.size() + slots_.size() * 2 / 5);
  }
}

bool EntryIndex::Insert(Entry* e, uint64_t hash) {
  memo_ = nullptr;  // Robin Hood insertion moves other slots
  const uintptr_t p = reinterpret_cast<uintptr_t>(e);
  if ((p & ~kPtrMask) != 0) return false;
  const size_t n = slots_.size();
  size_t i = HomeOf(hash, n);
  uint64_t cur = p | TagOf(hash);
  while (true) {
    const uint64_t s = slots_[i];
    if (s == 0) {
      slots_[i] = cur;
      return true;
    }
    if ((s >> kDistShift) < (cur >> kDistShift)) {
      slots_[i] = cur;
      cur = s;
    }
    if ((cur >> kDistShift) == kMaxDist) {
      // A pathologically long run: grow and place the displaced entry again.
      Entry* pending = EntryOf(cur);
      Rehash(n * 2);
      return Insert(pending, pending->Hash());
    }
    cur += kDistOne;
    if (++i == n) i = 0;
  }
}

void EntryIndex::Erase(size_t pos) {
  memo_ = nullptr;  // the backward shift moves other slots
  const size_t n = slots_.size();
  size_t i = pos;
  while (true) {
    size_t j = i + 1 == n ? 0 : i + 1;
    const uint64_t s = slots_[j];
    if (s == 0 || (s >> kDistShift) == 0) {
      slots_[i] = 0;
      return;
    }
    slots_[i] = s - kDistOne;  // backward shift: one step closer to home
    i = j;
  }
}

void EntryIndex::Rehash(size_t n) {
  memo_ = nullptr;
  Slots old(n, 0, slots_.get_allocator());
  old.swap(slots_);
  for (uint64_t s : old) {
    if (s == 0) continue;
    Entry* e = EntryOf(s);
    (void)Insert(e, e->Hash());  // pointers were checked on first insert
  }
}

void EntryIndex::Reset() {
  Slots(kMinSlots, 0, slots_.get_allocator()).swap(slots_);
  memo_ = nullptr;
}

}  // namespace cache_internal
}  // namespace falcon
