// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The layout of one cache entry: a single block, [24-byte header][key][value].
// The header holds the queue links and every per-entry flag, so a hit reads
// nothing but the index slot and this block:
//
//   prev, next   queue links (EntryQueues)
//   vword        value length (23 bits) | arena block (1) | pending hits (4)
//                | hit epoch (2) | referenced (1) | absent (1)
//   klen         key length (16 bits)
//   bits         state id (12) | queue (2) | dirty (1) | not in RocksDB (1)
//
// Pending hits: the W-TinyLFU accesses of a cached entry not yet added to the
// frequency sketch, as of sketch epoch `hit epoch` (TinyLfuAdmission).
// Arena: the block came from the cache's BlockArena, whose usable size is the
// rounded length, not from malloc. Not in RocksDB: the entry began as a
// FillAbsent and none of its versions has been written back since, so
// removing it needs no tombstone.
//
// Thread-safety: plain data, owned by one cache.

#ifndef FALCON_SRC_CACHE_ENTRY_H_
#define FALCON_SRC_CACHE_ENTRY_H_

#include <malloc.h>
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cache/block_arena.h"
#include "cache/bytes.h"

namespace falcon {
namespace cache_internal {

constexpr uint32_t kValueLenMask = (1u << 23) - 1;
constexpr uint32_t kArenaBit = 1u << 23;
constexpr uint32_t kHitsShift = 24;
constexpr uint32_t kHitsMask = 15u << kHitsShift;
constexpr uint32_t kEpochShift = 28;
constexpr uint32_t kEpochMask = 3u << kEpochShift;
constexpr uint32_t kRefBit = 1u << 30;
constexpr uint32_t kAbsentBit = 1u << 31;
constexpr uint16_t kStateMask = 0x0FFF;
constexpr uint32_t kQueueShift = 12;
constexpr uint16_t kDirtyBit = 1u << 14;
constexpr uint16_t kNotInDbBit = 1u << 15;

// Charged per entry on top of its block's usable size (the index-slot and
// sketch shares; CacheLimits::kEntryOverheadBytes).
constexpr uint64_t kOverheadBytes = 24;

inline uint64_t HashKey(uint32_t state, const void* key, size_t len) {
  return XXH3_64bits_withSeed(key, len, state);
}

struct Entry {
  Entry* prev;
  Entry* next;
  uint32_t vword;
  uint16_t klen;
  uint16_t bits;

  char* key() { return reinterpret_cast<char*>(this) + sizeof(Entry); }
  const char* key() const {
    return reinterpret_cast<const char*>(this) + sizeof(Entry);
  }
  char* value() { return key() + klen; }
  const char* value() const { return key() + klen; }
  std::string_view key_view() const { return std::string_view(key(), klen); }
  uint32_t value_len() const { return vword & kValueLenMask; }
  bool in_arena() const { return (vword & kArenaBit) != 0; }
  // What the allocator handed out for this block.
  uint64_t usable() const {
    return in_arena()
               ? BlockArena::BlockBytes(sizeof(Entry) + klen + value_len())
               : malloc_usable_size(const_cast<Entry*>(this));
  }
  // What the entry is charged: its block and the fixed overhead.
  uint64_t charge() const { return usable() + kOverheadBytes; }
  uint32_t state() const { return bits & kStateMask; }
  uint8_t queue() const {
    return static_cast<uint8_t>((bits >> kQueueShift) & 3);
  }
  bool dirty() const { return (bits & kDirtyBit) != 0; }
  bool not_in_db() const { return (bits & kNotInDbBit) != 0; }
  bool absent() const { return (vword & kAbsentBit) != 0; }
  bool referenced() const { return (vword & kRefBit) != 0; }
  void set_referenced() { vword |= kRefBit; }
  void clear_referenced() { vword &= ~kRefBit; }
  // Pending hits, aged by the sketch halvings since they were counted (at
  // most three are told apart; an entry that went four or more halvings
  // without an access or an eviction look is rare, and keeps a count halved
  // fewer times than it should have been).
  uint32_t hits(uint32_t epoch) const {
    const uint32_t age = (epoch - (vword >> kEpochShift)) & 3;
    return ((vword & kHitsMask) >> kHitsShift) >> age;
  }
  // Sets the pending hits to h (0..15) as of `epoch`.
  void set_hits(uint32_t h, uint32_t epoch) {
    vword = (vword & ~(kHitsMask | kEpochMask)) | (h << kHitsShift) |
            ((epoch & 3) << kEpochShift);
  }
  void set_queue(uint8_t q) {
    bits = static_cast<uint16_t>((bits & ~(3u << kQueueShift)) |
                                 (uint32_t(q) << kQueueShift));
  }
  uint64_t Hash() const { return HashKey(state(), key(), klen); }
  bool Holds(uint32_t state_id, std::string_view k) const {
    return klen == k.size() && state() == state_id &&
           SameBytes(key(), k.data(), k.size());
  }
};
static_assert(sizeof(Entry) == 24, "the header is 24 bytes of every block");

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_ENTRY_H_
