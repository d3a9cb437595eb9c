// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The cache's index: an open-addressing table of 8-byte slots with Robin Hood
// linear probing and backward-shift deletion (Celis, Larson, Munro, "Robin
// Hood Hashing", FOCS 1985). A slot holds the entry's block pointer (48
// bits), an 8-bit tag from the hash and the probe distance (8 bits); 0 is
// empty. The home slot is picked by multiply-shift from the hash's high bits
// (any table size); the tag takes its low bits. The table grows by 1.4x when
// more than 80% full, so it is at least 57% full after growing: at most 14
// bytes per entry.
//
// A lookup reads one slot line, then the block (key compare): two dependent
// cache misses for a hit in a large cache.
//
// The memo: the entry the last Get hit or the last write updated, its slot
// and hash, valid until the index changes (every insert, erase, rehash and
// Reset forgets it). A write checks it first, so Flink's read-modify-write --
// value() then update() of one key -- hashes and probes once.
//
// Thread-safety: none (owned by one cache).

#ifndef FALCON_SRC_CACHE_ENTRY_INDEX_H_
#define FALCON_SRC_CACHE_ENTRY_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cache/cache_line.h"
#include "cache/entry.h"

namespace falcon {
namespace cache_internal {

// Allocates the slot array with AllocateIndex (block_arena.h).
template <class T>
struct IndexAllocator {
  using value_type = T;
  using propagate_on_container_swap = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_copy_assignment = std::true_type;
  explicit IndexAllocator(bool huge_pages = false) : huge(huge_pages) {}
  template <class U>
  IndexAllocator(const IndexAllocator<U>& o) : huge(o.huge) {}
  T* allocate(size_t n) {
    return static_cast<T*>(AllocateIndex(n * sizeof(T), huge));
  }
  void deallocate(T* p, size_t n) { FreeIndex(p, n * sizeof(T), huge); }
  template <class U>
  bool operator==(const IndexAllocator<U>& o) const {
    return huge == o.huge;
  }
  template <class U>
  bool operator!=(const IndexAllocator<U>& o) const {
    return huge != o.huge;
  }
  bool huge;
};

class EntryIndex {
 public:
  static constexpr size_t kNoSlot = ~size_t{0};
  static constexpr size_t kMinSlots = 64;

  explicit EntryIndex(bool huge_pages);

  // The slot of the entry (state, key) with this hash, or kNoSlot.
  inline size_t Find(uint32_t state, std::string_view key, uint64_t hash) const;
  Entry* At(size_t pos) const { return EntryOf(slots_[pos]); }
  // The slot of an entry known to be indexed.
  size_t FindEntry(const Entry* e, uint64_t hash) const;
  // Grows the table if one more entry would fill it past 80%.
  void ReserveOneMore(uint64_t count);
  // False (and nothing inserted) only if the block pointer does not fit the
  // 48 bits of a slot.
  bool Insert(Entry* e, uint64_t hash);
  void Erase(size_t pos);
  // The entry at `pos` moved to another block (same key, same hash). The
  // memo follows it: the old block is freed right after.
  void Replace(size_t pos, Entry* e) {
    slots_[pos] = (slots_[pos] & ~kPtrMask) | reinterpret_cast<uintptr_t>(e);
    if (memo_ != nullptr && memo_pos_ == pos) memo_ = e;
  }
  // Back to an empty table of kMinSlots (releases a grown one).
  void Reset();

  size_t slot_count() const { return slots_.size(); }
  uint64_t bytes() const { return slots_.size() * sizeof(uint64_t); }

  bool MemoMatches(uint32_t state, std::string_view key) const {
    return memo_ != nullptr && memo_->Holds(state, key);
  }
  void Remember(Entry* e, size_t pos, uint64_t hash) {
    memo_ = e;
    memo_pos_ = pos;
    memo_hash_ = hash;
  }
  size_t memo_pos() const { return memo_pos_; }
  uint64_t memo_hash() const { return memo_hash_; }

 private:
  static constexpr uint64_t kPtrMask = (uint64_t{1} << 48) - 1;
  static constexpr uint64_t kTagMask = uint64_t{0xFF} << 48;
  static constexpr uint32_t kDistShift = 56;
  static constexpr uint64_t kDistOne = uint64_t{1} << kDistShift;
  static constexpr uint64_t kMaxDist = 255;
  using Slots = std::vector<uint64_t, IndexAllocator<uint64_t>>;

  static Entry* EntryOf(uint64_t slot) {
    return reinterpret_cast<Entry*>(static_cast<uintptr_t>(slot & kPtrMask));
  }
  // Multiply-shift onto [0, n) from the hash's high bits.
  static size_t HomeOf(uint64_t hash, size_t n) {
    return static_cast<size_t>(ScaleToRange(hash, n));
  }
  static uint64_t TagOf(uint64_t hash) { return (hash & 0xFF) << 48; }
  void Rehash(size_t slots);

  Slots slots_;
  Entry* memo_ = nullptr;
  size_t memo_pos_ = 0;
  uint64_t memo_hash_ = 0;
};

inline size_t EntryIndex::Find(uint32_t state, std::string_view key,
                               uint64_t hash) const {
  const size_t n = slots_.size();
  const uint64_t tag = TagOf(hash);
  size_t i = HomeOf(hash, n);
  // The first four slots from home, without a branch per slot: the slot
  // that holds the key is the first or second in most lookups and the third
  // or fourth in many (the table is 57-80% full), and a branch per slot
  // mispredicts on that. The first slot whose tag matches is compared; a
  // miss, a false tag match or a key further on falls through to the probe
  // loop.
  if (__builtin_expect(i + 4 <= n, 1)) {
    const uint64_t* lanes = slots_.data() + i;
    uint32_t matches = 0;
    for (uint32_t j = 0; j < 4; ++j) {
      const uint64_t s = lanes[j];
      matches |= uint32_t((((s ^ tag) & kTagMask) == 0) & (s != 0)) << j;
    }
    if (__builtin_expect(matches != 0, 1)) {
      const size_t p = i + static_cast<size_t>(__builtin_ctz(matches));
      const Entry* e = EntryOf(slots_[p]);
      // The block's second line holds (most of) the value of a typical
      // entry (24-byte header, ~10-byte key, ~68-byte value): asked for now,
      // it arrives together with the first line instead of after it
      // (docs/decisions/0004-prefetch-second-line.md).
      __builtin_prefetch(reinterpret_cast<const char*>(e) + 64);
      if (__builtin_expect(e->Holds(state, key), 1)) return p;
    }
  }
  for (uint64_t d = 0;; ++d) {
    const uint64_t s = slots_[i];
    // Robin Hood: a slot closer to its home than we are to ours means the
    // key is absent (it would have taken that slot).
    if (s == 0 || (s >> kDistShift) < d) return kNoSlot;
    if ((s & kTagMask) == tag) {
      const Entry* e = EntryOf(s);
      if (e->Holds(state, key)) return i;
    }
    if (++i == n) i = 0;
  }
}

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_ENTRY_INDEX_H_
