// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Where entry blocks come from, and what they are charged: blocks of up to
// BlockArena::kMaxBlockBytes (1 KiB) from the cache's own arena when it has
// one (CacheOptions::block_arena), larger ones -- and every block when the
// arena is off or cannot map a chunk -- from malloc. An entry is charged its
// block's usable size plus kOverheadBytes: round8(block) in the arena,
// malloc_usable_size from malloc.
//
// Thread-safety: none (owned by one cache).

#ifndef FALCON_SRC_CACHE_ENTRY_ALLOCATOR_H_
#define FALCON_SRC_CACHE_ENTRY_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cache/block_arena.h"
#include "cache/entry.h"

namespace falcon {
namespace cache_internal {

class EntryAllocator {
 public:
  explicit EntryAllocator(bool arena);
  ~EntryAllocator();

  // A block of `bytes` (>= sizeof(Entry)), or null. The caller sets the
  // header, kArenaBit included when *in_arena (Free reads it).
  Entry* Allocate(size_t bytes, uint64_t* usable, bool* in_arena);
  void Free(Entry* e);

  // What a block of `block_bytes` costs in this cache (arena or malloc).
  uint64_t ChargeOf(size_t block_bytes) const;
  // What a block of `block_bytes` costs in a cache with the arena.
  static uint64_t ArenaChargeOf(size_t block_bytes);
  // Whether the arena may map chunks on huge pages from now on.
  void set_huge_pages(bool on);
  // What the allocators hold for blocks whose usable sizes add up to
  // `block_bytes`: malloc'd blocks as they are, the arena's resident bytes
  // instead of its blocks.
  uint64_t HeldBytes(uint64_t block_bytes) const;

 private:
  std::unique_ptr<BlockArena> arena_;  // null: every block from malloc
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_ENTRY_ALLOCATOR_H_
