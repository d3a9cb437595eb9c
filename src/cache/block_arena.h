// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The allocator of the cache's small entry blocks (24..kMaxBlockBytes
// bytes): size classes in 8-byte steps, 64 KiB slabs of one class each,
// carved from 2 MiB-aligned chunks mapped with mmap. Why not malloc:
//  * A cache of a million entries spreads its blocks over hundreds of MiB.
//    With 4 KiB pages every hit then misses the TLB as well as the cache and
//    pays a page walk; a chunk advised for transparent huge pages
//    (MADV_HUGEPAGE, the mode most distributions ship: "madvise") is one TLB
//    entry for 2 MiB. glibc's own huge-page switch, which would do the same,
//    cannot be turned on by a library for the JVM it runs in
//    (docs/decisions/0003-huge-pages-for-large-caches-only.md).
//  * A block costs round8(n) bytes, never more than glibc's
//    round16(n + 8) - 8 (malloc_usable_size), and carries no chunk header.
// Huge pages are only asked for when set_huge_pages(true) (the cache does it
// for capacities of 64 MiB and more: a 2 MiB page is a fine grain there and a
// coarse one for a small cache); other chunks are advised against them.
//
// Memory: a slab whose last block is freed becomes free for any class and
// gives its pages back to the kernel (madvise MADV_DONTNEED), except the
// most recently emptied one, which the next new slab reuses, so that a class
// hovering at a slab boundary makes no system calls. A chunk whose last
// slab is freed is unmapped, except one kept as a spare so that a cache
// hovering at a chunk boundary does not map and unmap in turn. What the
// arena holds beyond the blocks it handed out is the free space of partly
// used slabs (at most one slab's worth per class after the cache churned at
// one size), the unused tail of each slab (under 1/64 of it), one empty
// slab and the chunks' header pages. ResidentBytes() counts it. (Without
// the release, a cache whose maps grew past 1 KiB into malloc kept every
// page its arena ever touched: 20 times the blocks it still held.)
//
// Thread-safety: none (owned by one HotStateCache). Ownership: the arena
// owns its chunks; blocks are only valid until Free() or the arena's
// destruction. Preconditions: Allocate(n) with 1 <= n <= kMaxBlockBytes;
// Free(p) only of a block this arena returned and not freed since.
// Under AddressSanitizer free blocks and unused slab space are poisoned.

#ifndef FALCON_SRC_CACHE_BLOCK_ARENA_H_
#define FALCON_SRC_CACHE_BLOCK_ARENA_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace falcon {
namespace cache_internal {

class BlockArena {
 public:
  static constexpr size_t kMaxBlockBytes = 1024;
  static constexpr size_t kChunkBytes = size_t{2} << 20;
  static constexpr size_t kSlabBytes = size_t{64} << 10;
  static constexpr size_t kSlabsPerChunk = kChunkBytes / kSlabBytes;

  BlockArena();
  ~BlockArena();
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;

  // The bytes a block of n bytes occupies (its usable size).
  static constexpr uint64_t BlockBytes(size_t n) {
    return (uint64_t{n} + 7) & ~uint64_t{7};
  }

  // An 8-byte-aligned block of BlockBytes(n) bytes, or nullptr when no chunk
  // could be mapped.
  void* Allocate(size_t n);
  void Free(void* p);

  // Chunks mapped from now on are advised for huge pages (or not).
  void set_huge_pages(bool on) { huge_pages_ = on; }
  bool huge_pages() const { return huge_pages_; }

  // Sum of BlockBytes of the blocks handed out and not freed.
  uint64_t used_bytes() const { return used_bytes_; }
  // Bytes mapped (chunks x 2 MiB): address space, not all of it resident.
  uint64_t mapped_bytes() const {
    return uint64_t{chunks_.size()} * kChunkBytes;
  }
  // What the arena can hold in RSS: every huge-page chunk in full; of other
  // chunks the header's pages, every page a live slab handed out, and those
  // of the one empty slab kept. Those other chunks are advised
  // MADV_NOHUGEPAGE, so this holds with THP "always" too.
  uint64_t ResidentBytes() const;
  size_t chunk_count() const { return chunks_.size(); }

 private:
  struct Slab;
  struct Chunk;
  static constexpr size_t kClasses =
      kMaxBlockBytes / 8 + 1;  // index = bytes / 8

  Slab* NewSlab(uint32_t block_bytes);
  Chunk* MapChunk();
  void UnmapChunk(Chunk* c);
  void List(Slab* s);
  void Unlist(Slab* s);
  // A slab just emptied keeps its pages; the slab kept before gives its
  // pages back to the kernel (if still empty).
  void KeepEmptySlab(Chunk* c, Slab* s);
  void ReleasePages(Slab* s);
  static Chunk* ChunkOf(const Slab* s);

  Slab* nonfull_[kClasses] =
      {};  // per class: slabs with room, most recent first
  std::vector<Chunk*> chunks_;
  size_t empty_chunks_ = 0;
  // The most recently emptied slab of a 4 KiB-page chunk, pages still
  // resident: the next NewSlab takes it, so a class that empties and refills
  // one slab in turn costs no madvise and no page faults. Null: none.
  Slab* kept_slab_ = nullptr;
  uint64_t used_bytes_ = 0;
  bool huge_pages_ = false;
};

// The cache index's memory (EntryIndex). With `huge` set, arrays of at least
// 2 MiB are mapped from a 2 MiB boundary and advised for transparent huge
// pages before the first touch, so a lookup in a large index does not miss
// the TLB; everything else comes from operator new.
void* AllocateIndex(size_t bytes, bool huge);
void FreeIndex(void* p, size_t bytes, bool huge);

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_BLOCK_ARENA_H_
