// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The cache's dirty entries, as a set of block pointers, so that a flush and
// a pre-barrier write-back slice visit only dirty entries instead of walking
// every cached one (docs/decisions/0025-pre-barrier-write-back.md).
//
// Open addressing with linear probing and backward-shift deletion; a slot is
// an Entry* (null: empty). The table doubles past 3/4 full and is released
// when a full flush empties it, so between two checkpoints it holds at most
// ~2.7 slots (8 bytes each) per entry dirty at one time. Its slots count
// against the cache's byte capacity (CacheCore::OverCapacity). Accounting
// keeps it in step with the entries' dirty bits: an entry is in the set
// exactly while it is cached and dirty.
//
// Scan() hands out members from a cursor that wraps around: a member erased
// and shifted back over the cursor may be skipped until the next lap, which
// is why a slice is a best effort and a flush is not (it takes All()).
//
// Thread-safety: none (owned by one cache).

#ifndef FALCON_SRC_CACHE_DIRTY_SET_H_
#define FALCON_SRC_CACHE_DIRTY_SET_H_

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cache/entry.h"

namespace falcon {
namespace cache_internal {

class DirtySet {
 public:
  void Insert(Entry* e) {
    if ((count_ + 1) * 4 > slots_.size() * 3) Grow();
    size_t i = Home(e);
    while (slots_[i] != nullptr) i = (i + 1) & mask_;
    slots_[i] = e;
    ++count_;
  }

  // `e` must be a member (debug builds check; release builds ignore a
  // non-member rather than loop).
  void Erase(const Entry* e) {
    if (slots_.empty()) {
      assert(false && "DirtySet::Erase of a non-member");
      return;
    }
    size_t i = Home(e);
    while (slots_[i] != e) {
      if (slots_[i] == nullptr) {
        assert(false && "DirtySet::Erase of a non-member");
        return;
      }
      i = (i + 1) & mask_;
    }
    // Backward shift: move later members of the probe run into the hole when
    // their home is not between the hole and them.
    size_t hole = i;
    for (size_t j = (i + 1) & mask_; slots_[j] != nullptr;
         j = (j + 1) & mask_) {
      const size_t home = Home(slots_[j]);
      const size_t dist_j = (j - home) & mask_;
      const size_t dist_hole = (j - hole) & mask_;
      if (dist_j >= dist_hole) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = nullptr;
    --count_;
  }

  // Appends every member to `out`.
  void All(std::vector<Entry*>* out) const {
    if (count_ == 0) return;
    for (Entry* e : slots_) {
      if (e != nullptr) out->push_back(e);
    }
  }

  // Appends up to `max` members to `out`, from where the last Scan stopped.
  void Scan(size_t max, std::vector<Entry*>* out) {
    if (count_ == 0 || max == 0) return;
    const size_t n = slots_.size();
    size_t taken = 0;
    for (size_t visited = 0; visited < n && taken < max; ++visited) {
      Entry* e = slots_[cursor_];
      cursor_ = (cursor_ + 1) & mask_;
      if (e != nullptr) {
        out->push_back(e);
        ++taken;
      }
    }
  }

  // Frees the table if no entry is dirty (it regrows from 64 slots).
  void ReleaseIfEmpty() {
    if (count_ == 0 && !slots_.empty()) Clear();
  }

  void Clear() {
    std::vector<Entry*>().swap(slots_);
    mask_ = 0;
    shift_ = 63;
    count_ = 0;
    cursor_ = 0;
  }

  size_t size() const { return count_; }
  uint64_t bytes() const { return slots_.capacity() * sizeof(Entry*); }

 private:
  size_t Home(const Entry* e) const {
    // Fibonacci hashing: the product's high bits pick the slot.
    const uint64_t p = reinterpret_cast<uintptr_t>(e);
    return static_cast<size_t>((p * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void Grow() {
    std::vector<Entry*> old;
    old.swap(slots_);
    const size_t n = old.empty() ? 64 : old.size() * 2;
    slots_.assign(n, nullptr);
    mask_ = n - 1;
    shift_ = 64 - __builtin_ctzll(n);
    cursor_ = 0;
    count_ = 0;
    for (Entry* e : old) {
      if (e != nullptr) Insert(e);
    }
  }

  std::vector<Entry*> slots_;
  size_t mask_ = 0;
  int shift_ = 63;
  size_t count_ = 0;
  size_t cursor_ = 0;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_DIRTY_SET_H_
