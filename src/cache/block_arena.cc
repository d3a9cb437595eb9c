// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/block_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define FALCON_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FALCON_ARENA_ASAN 1
#endif
#endif
#ifdef FALCON_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace falcon {
namespace cache_internal {

namespace {

inline void Poison(void* p, size_t n) {
#ifdef FALCON_ARENA_ASAN
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p;
  (void)n;
#endif
}

inline void Unpoison(void* p, size_t n) {
#ifdef FALCON_ARENA_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
  (void)p;
  (void)n;
#endif
}

}  // namespace

// One slab's bookkeeping. It lives in its chunk's header, so the slab of a
// block is found from the block's address alone (Free).
struct BlockArena::Slab {
  Slab* prev;  // the class's list of slabs with room
  Slab* next;
  void* free;            // freed blocks, linked through their first 8 bytes
  uint32_t block_bytes;  // the class; 0 = the slab is empty (no class)
  uint32_t used;         // blocks handed out and not freed
  uint32_t carved;       // bytes from the slab's start handed out at least once
  uint32_t capacity;     // bytes of blocks the slab can hold
  uint32_t
      touched;  // the most bytes ever carved (under any class): resident pages
  bool listed;
};

// At the start of every chunk (2 MiB-aligned): slab 0's blocks begin after it.
struct BlockArena::Chunk {
  uint32_t live_slabs;  // slabs with a class
  bool huge;            // advised for huge pages when mapped
  Slab slabs[kSlabsPerChunk];
};

namespace {
constexpr size_t kHeaderBytes =
    1792;  // sizeof(Chunk) rounded up to 64 (checked below)
constexpr size_t kHugePageBytes = size_t{2} << 20;
constexpr size_t kPageBytes = 4096;
}  // namespace

BlockArena::BlockArena() {
  static_assert(sizeof(Chunk) <= kHeaderBytes && kHeaderBytes % 64 == 0,
                "the chunk header must fit in front of slab 0");
  static_assert(kChunkBytes % kSlabBytes == 0 && kSlabsPerChunk <= 32,
                "slab geometry");
}

BlockArena::~BlockArena() {
  for (Chunk* c : chunks_) {
    Unpoison(c, kChunkBytes);
    munmap(c, kChunkBytes);
  }
}

void* BlockArena::Allocate(size_t n) {
  const uint32_t bytes = static_cast<uint32_t>(BlockBytes(n));
  Slab* s = nonfull_[bytes / 8];
  if (s == nullptr) {
    s = NewSlab(bytes);
    if (s == nullptr) return nullptr;
  }
  char* p;
  if (s->free != nullptr) {
    p = static_cast<char*>(s->free);
    Unpoison(p, bytes);
    s->free = *reinterpret_cast<void**>(p);
  } else {
    Chunk* c = reinterpret_cast<Chunk*>(reinterpret_cast<uintptr_t>(s) &
                                        ~(kChunkBytes - 1));
    const size_t index = static_cast<size_t>(s - c->slabs);
    p = reinterpret_cast<char*>(c) + index * kSlabBytes +
        (index == 0 ? kHeaderBytes : 0) + s->carved;
    s->carved += bytes;
    if (s->carved > s->touched) s->touched = s->carved;
    Unpoison(p, bytes);
  }
  s->used += 1;
  used_bytes_ += bytes;
  if (s->free == nullptr && s->carved + bytes > s->capacity) Unlist(s);
  return p;
}

void BlockArena::Free(void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  Chunk* c = reinterpret_cast<Chunk*>(a & ~(kChunkBytes - 1));
  Slab* s = &c->slabs[(a & (kChunkBytes - 1)) / kSlabBytes];
  const uint32_t bytes = s->block_bytes;
  *reinterpret_cast<void**>(p) = s->free;
  s->free = p;
  Poison(p, bytes);
  s->used -= 1;
  used_bytes_ -= bytes;
  if (s->used != 0) {
    if (!s->listed) List(s);
    return;
  }
  // The slab is empty: free for any class.
  if (s->listed) Unlist(s);
  s->block_bytes = 0;
  s->free = nullptr;
  s->carved = 0;
  KeepEmptySlab(c, s);
  if (--c->live_slabs == 0) {
    if (empty_chunks_ >= 1) {
      UnmapChunk(c);
    } else {
      empty_chunks_ += 1;  // kept as the spare
    }
  }
}

BlockArena::Slab* BlockArena::NewSlab(uint32_t block_bytes) {
  // The kept slab's chunk when it is in use (its pages are still resident),
  // else a partly used chunk, so that the spare stays empty.
  Chunk* c = nullptr;
  if (kept_slab_ != nullptr && ChunkOf(kept_slab_)->live_slabs != 0) {
    c = ChunkOf(kept_slab_);
  }
  for (Chunk* k : chunks_) {
    if (c != nullptr) break;
    if (k->live_slabs != 0 && k->live_slabs < kSlabsPerChunk) {
      c = k;
      break;
    }
  }
  if (c == nullptr) {
    for (Chunk* k : chunks_) {
      if (k->live_slabs == 0) {
        c = k;
        break;
      }
    }
    if (c == nullptr) c = MapChunk();
    if (c == nullptr) return nullptr;
    empty_chunks_ -= 1;
  }
  Slab* s;
  if (kept_slab_ != nullptr && ChunkOf(kept_slab_) == c) {
    s = kept_slab_;
    kept_slab_ = nullptr;
  } else {
    size_t index = 0;
    while (c->slabs[index].block_bytes != 0)
      ++index;  // live_slabs < kSlabsPerChunk
    s = &c->slabs[index];
  }
  const size_t index = static_cast<size_t>(s - c->slabs);
  s->block_bytes = block_bytes;
  s->used = 0;
  s->carved = 0;
  s->free = nullptr;
  s->capacity =
      static_cast<uint32_t>(kSlabBytes - (index == 0 ? kHeaderBytes : 0));
  c->live_slabs += 1;
  List(s);
  return s;
}

BlockArena::Chunk* BlockArena::MapChunk() {
  // Twice the size, then the unaligned ends go back: a 2 MiB-aligned chunk.
  void* raw = mmap(nullptr, 2 * kChunkBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t r = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t base = (r + kChunkBytes - 1) & ~(kChunkBytes - 1);
  if (base > r) munmap(raw, base - r);
  if (r + 2 * kChunkBytes > base + kChunkBytes) {
    munmap(reinterpret_cast<void*>(base + kChunkBytes),
           r + 2 * kChunkBytes - base - kChunkBytes);
  }
  void* mem = reinterpret_cast<void*>(base);
  // Before the first touch: the fault then takes a huge page. A chunk not
  // meant for huge pages is advised against them, so that a kernel with THP
  // "always" does not back it with one on its first fault either: the
  // accounting (ResidentBytes) counts its 4 KiB pages. The advice fails
  // only where the kernel has no THP at all.
  const bool huge =
      huge_pages_ && madvise(mem, kChunkBytes, MADV_HUGEPAGE) == 0;
  if (!huge) (void)madvise(mem, kChunkBytes, MADV_NOHUGEPAGE);
  Chunk* c = new (mem) Chunk{};
  c->huge = huge;
  Poison(static_cast<char*>(mem) + kHeaderBytes, kChunkBytes - kHeaderBytes);
  chunks_.push_back(c);
  empty_chunks_ += 1;
  return c;
}

void BlockArena::KeepEmptySlab(Chunk* c, Slab* s) {
  // Pages of a huge-page chunk are not given back one slab at a time: that
  // would split the huge page, and ResidentBytes counts the chunk in full.
  if (c->huge) return;
  if (kept_slab_ != nullptr && kept_slab_ != s) ReleasePages(kept_slab_);
  kept_slab_ = s;
}

void BlockArena::ReleasePages(Slab* s) {
  Chunk* c = ChunkOf(s);
  const size_t index = static_cast<size_t>(s - c->slabs);
  // Slab 0 keeps the page that holds the chunk header.
  const uint64_t start = index == 0 ? kPageBytes : index * kSlabBytes;
  const uint64_t touched_end =
      index * kSlabBytes + (index == 0 ? kHeaderBytes : 0) + s->touched;
  const uint64_t end =
      (touched_end + kPageBytes - 1) & ~uint64_t{kPageBytes - 1};
  if (end > start) {
    // Free blocks are poisoned; the kernel writes zeroes, not the program.
    (void)madvise(reinterpret_cast<char*>(c) + start, end - start,
                  MADV_DONTNEED);
  }
  s->touched = 0;
}

BlockArena::Chunk* BlockArena::ChunkOf(const Slab* s) {
  return reinterpret_cast<Chunk*>(reinterpret_cast<uintptr_t>(s) &
                                  ~(kChunkBytes - 1));
}

void BlockArena::UnmapChunk(Chunk* c) {
  if (kept_slab_ != nullptr && ChunkOf(kept_slab_) == c) kept_slab_ = nullptr;
  chunks_.erase(std::find(chunks_.begin(), chunks_.end(), c));
  Unpoison(c, kChunkBytes);
  munmap(c, kChunkBytes);
}

void BlockArena::List(Slab* s) {
  Slab*& head = nonfull_[s->block_bytes / 8];
  s->prev = nullptr;
  s->next = head;
  if (head != nullptr) head->prev = s;
  head = s;
  s->listed = true;
}

void BlockArena::Unlist(Slab* s) {
  if (s->prev != nullptr) {
    s->prev->next = s->next;
  } else {
    nonfull_[s->block_bytes / 8] = s->next;
  }
  if (s->next != nullptr) s->next->prev = s->prev;
  s->prev = s->next = nullptr;
  s->listed = false;
}

void* AllocateIndex(size_t bytes, bool huge) {
  if (!huge || bytes < kHugePageBytes) return ::operator new(bytes);
  // Exactly the array's pages (no rounding up to 2 MiB, so the index costs
  // what it is charged), from a 2 MiB boundary: every whole 2 MiB of it can
  // be a huge page, the tail stays on 4 KiB pages.
  const size_t length = (bytes + kPageBytes - 1) & ~(kPageBytes - 1);
  void* raw = mmap(nullptr, length + kHugePageBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t r = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t base = (r + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  if (base > r) munmap(raw, base - r);
  const uintptr_t end = r + length + kHugePageBytes;
  if (end > base + length)
    munmap(reinterpret_cast<void*>(base + length), end - base - length);
  (void)madvise(reinterpret_cast<void*>(base), length, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(base);
}

void FreeIndex(void* p, size_t bytes, bool huge) {
  if (!huge || bytes < kHugePageBytes) {
    ::operator delete(p);
    return;
  }
  munmap(p, (bytes + kPageBytes - 1) & ~(kPageBytes - 1));
}

uint64_t BlockArena::ResidentBytes() const {
  uint64_t total = 0;
  for (const Chunk* c : chunks_) {
    if (c->huge) {
      total += kChunkBytes;
      continue;
    }
    // The pages each slab has touched (4 KiB pages: slabs and the header
    // start on page boundaries); the header's pages count with slab 0.
    for (size_t i = 0; i < kSlabsPerChunk; ++i) {
      const uint64_t start = i == 0 ? 0 : i * kSlabBytes;
      const uint64_t end =
          i * kSlabBytes + (i == 0 ? kHeaderBytes : 0) + c->slabs[i].touched;
      total += ((end + kPageBytes - 1) & ~uint64_t{kPageBytes - 1}) - start;
    }
  }
  return total;
}

}  // namespace cache_internal
}  // namespace falcon
