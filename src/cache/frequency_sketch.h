// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// A count-min sketch of 4-bit counters with conservative update and periodic
// halving ("aging"), the frequency filter of W-TinyLFU (Einziger et al., ACM
// ToS 2017). Four counters per key, all in one 64-byte block (one cache miss
// per access), each in a different 64-bit word holding 16 counters. Sized to 4 bytes per expected entry (words = entries/2,
// rounded up to a power of two, so < 8 bytes per entry), at least 8 KiB; all
// counters are halved every 20 x (sized-for entries) increments. These three
// constants were picked with bench/cache_sim (docs/cache.md); the macros only
// exist so the simulator can be rebuilt with other values.
//
// Thread-safety: none (owned by one HotStateCache). Never allocates after
// Resize().

#ifndef FALCON_SRC_CACHE_FREQUENCY_SKETCH_H_
#define FALCON_SRC_CACHE_FREQUENCY_SKETCH_H_

#include <algorithm>
#include <cstdint>
#include <vector>

namespace falcon {
namespace cache_internal {

#ifndef FALCON_SKETCH_ENTRIES_PER_WORD
#define FALCON_SKETCH_ENTRIES_PER_WORD 2
#endif
#ifndef FALCON_SKETCH_SAMPLE_FACTOR
#define FALCON_SKETCH_SAMPLE_FACTOR 20
#endif
#ifndef FALCON_SKETCH_MIN_WORDS
#define FALCON_SKETCH_MIN_WORDS 1024
#endif

class FrequencySketch {
 public:
  static constexpr uint64_t kEntriesPerWord = FALCON_SKETCH_ENTRIES_PER_WORD;

  // Sized for `entries` keys (>= 1); clears all counters.
  void Resize(uint64_t entries) {
    uint64_t words = FALCON_SKETCH_MIN_WORDS;
    while (words * kEntriesPerWord < entries) words <<= 1;
    table_.assign(words / 8, Block{});
    mask_ = words / 8 - 1;
    sized_for_ = entries;
    sample_limit_ = FALCON_SKETCH_SAMPLE_FACTOR * std::max<uint64_t>(entries, words * kEntriesPerWord);
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
  struct alignas(64) Block {
    uint64_t w[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  };
  static uint64_t Mix(uint64_t x) {
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    return x;
  }
  uint64_t BlockOf(uint64_t hash) const { return (hash >> 20) & mask_; }
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
  uint64_t mask_ = 0;
  uint64_t sized_for_ = 0;
  uint64_t sample_limit_ = 0;
  uint64_t samples_ = 0;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_FREQUENCY_SKETCH_H_
