// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// A "ghost" list without the list: an approximate set of the keys evicted
// most recently, as two blocked Bloom filters used in turn. Inserts go to the
// current filter; when it holds half the ghost's capacity, the older one is
// cleared and becomes the current. A key is remembered for between 1/2 and 1
// times the capacity of later insertions. Three bits per key, all in one
// 64-byte block (one cache miss per insert or lookup); 16 bits per
// remembered key, so about 1% false positives over both filters (the unit
// test bounds it at 2%) -- the cache uses it only as a statistical signal
// (which side of the cache was too small), never for correctness.
//
// Thread-safety: none (owned by one HotStateCache). Never allocates after
// Resize().

#ifndef FALCON_SRC_CACHE_GHOST_FILTER_H_
#define FALCON_SRC_CACHE_GHOST_FILTER_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cache/cache_line.h"

namespace falcon {
namespace cache_internal {

class GhostFilter {
 public:
  // Remembers about `keys` evicted keys (>= 1); forgets everything.
  void Resize(uint64_t keys) {
    keys = std::max<uint64_t>(keys, 2);
    half_ = keys / 2;
    // 16 bits per key of one filter, rounded up to whole blocks.
    const uint64_t blocks = std::max<uint64_t>(1, (half_ * 16 + 511) / 512);
    for (auto& f : filters_) f.assign(blocks, Block{});
    current_ = 0;
    inserted_ = 0;
    capacity_ = keys;
  }
  uint64_t capacity() const { return capacity_; }
  uint64_t bytes() const { return 2 * filters_[0].size() * sizeof(Block); }

  void Insert(uint64_t hash) {
    if (filters_[0].empty()) return;
    if (inserted_ >= half_) {
      current_ ^= 1;
      std::fill(filters_[current_].begin(), filters_[current_].end(), Block{});
      inserted_ = 0;
    }
    Block& b = filters_[current_][BlockOf(hash, filters_[current_].size())];
    const uint64_t h = Spread(hash);
    for (int i = 0; i < 3; ++i) {
      const uint32_t bit = static_cast<uint32_t>((h >> (i * 9)) & 511);
      b.w[bit >> 6] |= uint64_t{1} << (bit & 63);
    }
    inserted_ += 1;
  }

  bool Contains(uint64_t hash) const {
    if (filters_[0].empty()) return false;
    const uint64_t h = Spread(hash);
    for (const auto& f : filters_) {
      const Block& b = f[BlockOf(hash, f.size())];
      bool all = true;
      for (int i = 0; i < 3 && all; ++i) {
        const uint32_t bit = static_cast<uint32_t>((h >> (i * 9)) & 511);
        all = (b.w[bit >> 6] >> (bit & 63)) & 1;
      }
      if (all) return true;
    }
    return false;
  }

 private:
  using Block = CacheLine;
  // Other bits of the hash than the index slot, the sketch block and the
  // tag use.
  static uint64_t BlockOf(uint64_t hash, size_t n) {
    const uint64_t r = (hash << 40) | (hash >> 24);
    return ScaleToRange(r, n);
  }
  static uint64_t Spread(uint64_t x) {
    x ^= 0x94d049bb133111ebull;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    return x;
  }

  std::vector<Block> filters_[2];
  uint64_t half_ = 0;
  uint64_t inserted_ = 0;
  uint64_t capacity_ = 0;
  int current_ = 0;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_GHOST_FILTER_H_
