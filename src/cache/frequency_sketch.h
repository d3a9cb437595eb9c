// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// A count-min sketch of 4-bit counters with conservative update and periodic
// halving ("aging"), the frequency filter of W-TinyLFU (Einziger et al., ACM
// ToS 2017). Four counters per key, all in one 64-byte block (one cache miss
// per access, prefetched by the cache's hit path), each in a different
// 64-bit word holding 16 counters. Sized to FALCON_SKETCH_BYTES_PER_ENTRY (8)
// bytes, i.e. 16 counters, per expected entry -- any number of blocks, picked
// by multiply-shift, so no power-of-two rounding doubles it -- and at least
// 8 KiB; all counters are halved every 20 x (sized-for entries) increments.
// These constants were picked with bench/cache_sim (docs/cache.md); the
// macros only exist so the simulator can be rebuilt with other values.
//
// Thread-safety: none (owned by one HotStateCache). Never allocates after
// Resize().

#ifndef FALCON_SRC_CACHE_FREQUENCY_SKETCH_H_
#define FALCON_SRC_CACHE_FREQUENCY_SKETCH_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cache/cache_line.h"

namespace falcon {
namespace cache_internal {

#ifndef FALCON_SKETCH_BYTES_PER_ENTRY
#define FALCON_SKETCH_BYTES_PER_ENTRY 8
#endif
#ifndef FALCON_SKETCH_SAMPLE_FACTOR
#define FALCON_SKETCH_SAMPLE_FACTOR 20
#endif
#ifndef FALCON_SKETCH_MIN_BLOCKS
#define FALCON_SKETCH_MIN_BLOCKS 128
#endif

class FrequencySketch {
 public:
  // Sized for `entries` keys (>= 1); clears all counters.
  void Resize(uint64_t entries) {
    uint64_t blocks = (entries * FALCON_SKETCH_BYTES_PER_ENTRY + sizeof(Block) - 1) / sizeof(Block);
    blocks = std::max<uint64_t>(blocks, FALCON_SKETCH_MIN_BLOCKS);
    table_.assign(blocks, Block{});
    sized_for_ = entries;
    sample_limit_ = FALCON_SKETCH_SAMPLE_FACTOR *
                    std::max<uint64_t>(entries, blocks * sizeof(Block) / FALCON_SKETCH_BYTES_PER_ENTRY);
    samples_ = 0;
  }
  uint64_t sized_for() const { return sized_for_; }
  uint64_t bytes() const { return table_.size() * sizeof(Block); }

  // Estimated frequency (0..15).
  uint32_t Frequency(uint64_t hash) const {
    const Block& b = table_[BlockOf(hash)];
    const uint64_t h = Spread(hash);
    uint32_t f = 15;
    for (int i = 0; i < 4; ++i) {
      uint32_t c = static_cast<uint32_t>((b.w[Word(h, i)] >> Shift(h, i)) & 15);
      if (c < f) f = c;
    }
    return f;
  }

  // Starts loading the key's block (the hit path issues it before the index
  // lookup, so the two cache misses overlap).
  void Prefetch(uint64_t hash) const {
    __builtin_prefetch(&table_[BlockOf(hash)], 1);
  }

  void Increment(uint64_t hash) {
    Block& b = table_[BlockOf(hash)];
    const uint64_t h = Spread(hash);
    uint32_t c[4];
    uint32_t min = 15;
    for (int i = 0; i < 4; ++i) {
      c[i] = static_cast<uint32_t>((b.w[Word(h, i)] >> Shift(h, i)) & 15);
      if (c[i] < min) min = c[i];
    }
    if (min < 15) {
      // Conservative update: only the smallest counters grow.
      for (int i = 0; i < 4; ++i) {
        if (c[i] == min) b.w[Word(h, i)] += uint64_t{1} << Shift(h, i);
      }
    }
    if (++samples_ >= sample_limit_) Halve();
  }

 private:
  // The four counters of a key live in one 64-byte block (one cache line),
  // in four different words of it.
  using Block = CacheLine;
  static uint64_t Mix(uint64_t x) {
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    return x;
  }
  // Any block count (multiply-shift instead of a mask), so the table can be
  // sized to exactly FALCON_SKETCH_BYTES_PER_ENTRY per entry. Rotated so the
  // block does not correlate with the index slot (which uses the high bits).
  uint64_t BlockOf(uint64_t hash) const {
    const uint64_t r = (hash << 24) | (hash >> 40);
    return ScaleToRange(r, table_.size());
  }
  static uint64_t Spread(uint64_t hash) { return Mix(hash + 0x9e3779b97f4a7c15ull); }
  static uint32_t Word(uint64_t h, int i) {
    return static_cast<uint32_t>(i * 2 + ((h >> (60 + i)) & 1));
  }
  static uint32_t Shift(uint64_t h, int i) {
    return static_cast<uint32_t>(((h >> (i * 8)) & 15) << 2);
  }
  void Halve() {
    for (Block& b : table_) {
      for (uint64_t& w : b.w) w = (w >> 1) & 0x7777777777777777ull;
    }
    samples_ /= 2;
  }

  std::vector<Block> table_;
  uint64_t sized_for_ = 0;
  uint64_t sample_limit_ = 0;
  uint64_t samples_ = 0;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_FREQUENCY_SKETCH_H_
