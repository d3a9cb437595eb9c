// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/entry_allocator.h"

#include <malloc.h>

#include <cstdlib>

namespace falcon {
namespace cache_internal {

namespace {
constexpr uintptr_t kPtrMask = (uintptr_t{1} << 48) - 1;

// glibc's malloc_usable_size for a request n: max(24, round16(n + 8) - 8).
uint64_t MallocUsable(uint64_t n) {
  const uint64_t usable = ((n + 8 + 15) & ~uint64_t{15}) - 8;
  return usable < 24 ? 24 : usable;
}
}  // namespace

EntryAllocator::EntryAllocator(bool arena)
    : arena_(arena ? new BlockArena() : nullptr) {}

EntryAllocator::~EntryAllocator() = default;

Entry* EntryAllocator::Allocate(size_t bytes, uint64_t* usable,
                                bool* in_arena) {
  *in_arena = false;
  if (arena_ != nullptr && bytes <= BlockArena::kMaxBlockBytes) {
    void* p = arena_->Allocate(bytes);
    if (p != nullptr) {
      *usable = BlockArena::BlockBytes(bytes);
      *in_arena = true;
      return static_cast<Entry*>(p);
    }
  }
  void* p = std::malloc(bytes);
  if (p == nullptr) return nullptr;
  if ((reinterpret_cast<uintptr_t>(p) & ~kPtrMask) != 0) {
    std::free(p);  // the index keeps 48-bit pointers
    return nullptr;
  }
  *usable = malloc_usable_size(p);
  return static_cast<Entry*>(p);
}

void EntryAllocator::Free(Entry* e) {
  if (e->in_arena()) {
    arena_->Free(e);
  } else {
    std::free(e);
  }
}

uint64_t EntryAllocator::ChargeOf(size_t block_bytes) const {
  if (arena_ != nullptr && block_bytes <= BlockArena::kMaxBlockBytes) {
    return BlockArena::BlockBytes(block_bytes) + kOverheadBytes;
  }
  return MallocUsable(block_bytes) + kOverheadBytes;
}

uint64_t EntryAllocator::ArenaChargeOf(size_t block_bytes) {
  if (block_bytes <= BlockArena::kMaxBlockBytes) {
    return BlockArena::BlockBytes(block_bytes) + kOverheadBytes;
  }
  return MallocUsable(block_bytes) + kOverheadBytes;
}

void EntryAllocator::set_huge_pages(bool on) {
  if (arena_ != nullptr) arena_->set_huge_pages(on);
}

uint64_t EntryAllocator::HeldBytes(uint64_t block_bytes) const {
  if (arena_ == nullptr) return block_bytes;
  return block_bytes - arena_->used_bytes() + arena_->ResidentBytes();
}

}  // namespace cache_internal
}  // namespace falcon
