// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The cache's books: what its entries are charged (in total and per state),
// which of it is dirty, and the per-state statistics (CacheStats). Every
// change of an entry's charge or dirtiness goes through here, so
// the totals and the per-state figures always add up.
//
// An entry's charge is Entry::charge(): its block's usable size plus the
// fixed overhead. The charge of a dirty entry also counts as dirty.
//
// Thread-safety: none (owned by one cache).

#ifndef FALCON_SRC_CACHE_ACCOUNTING_H_
#define FALCON_SRC_CACHE_ACCOUNTING_H_

#include <cstdint>
#include <vector>

#include "cache/dirty_set.h"
#include "cache/entry.h"
#include "falcon/cache_types.h"

namespace falcon {
namespace cache_internal {

struct StateSlot {
  CacheStats stats;
  MapStats map;
  // A MapState's id: its entries are maps (map_body.h), written back record
  // by record.
  bool is_map = false;
};

class Accounting {
 public:
  // The state's slot; grows the table the first time a state id is seen.
  StateSlot& Slot(uint32_t state) {
    if (__builtin_expect(state < states_.size(), 1)) return states_[state];
    return Grow(state);
  }
  // Null for a state id never seen.
  const StateSlot* Find(uint32_t state) const {
    return state < states_.size() ? &states_[state] : nullptr;
  }
  CacheStats& stats(uint32_t state) { return states_[state].stats; }
  std::vector<StateSlot>& slots() { return states_; }

  CacheStats Stats(uint32_t state) const;
  CacheStats Total() const;

  // A new entry (clean) of a block with this usable size.
  void AddEntry(uint32_t state, uint64_t usable);
  // An entry leaves the cache (and its dirty charge with it).
  void RemoveEntry(const Entry* e, uint64_t usable);
  // Sets the entry's dirty bit and moves its charge in or out of the dirty
  // figures. Cleaning also drops the not-in-RocksDB bit: clean is what
  // RocksDB holds (written back or read from it).
  void SetDirty(Entry* e, bool dirty);
  // The state's entry moved from a block of `old_usable` to one of
  // `new_usable` (its dirty charge is moved by the caller via SetDirty).
  void ChangeBlock(uint32_t state, uint64_t old_usable, uint64_t new_usable);
  // Counts an entry handed to the sink and written (a map: its dirty
  // records).
  void WrittenBack(const Entry* e);
  bool IsMap(const Entry* e) const { return states_[e->state()].is_map; }
  // No entries any more (Clear): zero charges.
  void ClearEntries();

  uint64_t bytes() const { return bytes_; }
  uint64_t entries() const { return count_; }
  uint64_t block_bytes() const { return block_bytes_; }
  uint64_t dirty_bytes() const { return dirty_bytes_; }
  uint64_t dirty_entries() const { return dirty_count_; }
  // Exactly the cached dirty entries.
  DirtySet& dirty_set() { return dirty_set_; }
  uint64_t dirty_set_bytes() const { return dirty_set_.bytes(); }

 private:
  StateSlot& Grow(uint32_t state);
  void AddDirty(CacheStats& st, uint64_t charge);
  void RemoveDirty(CacheStats& st, uint64_t charge);

  std::vector<StateSlot> states_;
  uint64_t count_ = 0;
  uint64_t bytes_ = 0;        // charged bytes
  uint64_t block_bytes_ = 0;  // sum of the blocks' usable sizes
  uint64_t dirty_bytes_ = 0;
  uint64_t dirty_count_ = 0;
  DirtySet dirty_set_;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_ACCOUNTING_H_
