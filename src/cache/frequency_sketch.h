// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// A count-min sketch of 4-bit counters with conservative update and periodic
// halving ("aging"), the frequency filter of W-TinyLFU (Einziger et al., ACM
// ToS 2017). Four counters per key, all in one 64-byte block (one cache miss
// per update), each in a different 64-bit word holding 16 counters. Sized to
// PolicyTuning::sketch_bytes_per_entry (8) bytes, i.e. 16 counters, per
// expected entry -- any number of blocks, picked by multiply-shift, so no
// power-of-two rounding doubles it -- and at least sketch_min_blocks (16 KiB);
// all counters are halved every 60 x max(sized-for entries, 2048) accesses,
// or earlier: after sketch_saturated_victims (64) admission compares since
// the last halving found the victim's estimate at the maximum (see
// SaturatedVictim()).
// The cache increments it on misses; hits are counted in the entries and
// arrive later through Add() (CountAccess() keeps their place in the aging
// schedule), see TinyLfuAdmission.
//
// Thread-safety: none (owned by one cache). Never allocates after Resize().

#ifndef FALCON_SRC_CACHE_FREQUENCY_SKETCH_H_
#define FALCON_SRC_CACHE_FREQUENCY_SKETCH_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cache/cache_line.h"
#include "cache/policy_tuning.h"

namespace falcon {
namespace cache_internal {

class FrequencySketch {
 public:
  static constexpr uint32_t kMaxCount = 15;

  explicit FrequencySketch(const PolicyTuning& tuning = PolicyTuning())
      : bytes_per_entry_(tuning.sketch_bytes_per_entry),
        sample_factor_(tuning.sketch_sample_factor),
        min_blocks_(tuning.sketch_min_blocks),
        saturated_victims_limit_(tuning.sketch_saturated_victims) {}

  // Sized for `entries` keys (>= 1); clears all counters.
  void Resize(uint64_t entries) {
    uint64_t blocks =
        (entries * bytes_per_entry_ + sizeof(Block) - 1) / sizeof(Block);
    blocks = std::max<uint64_t>(blocks, min_blocks_);
    table_.assign(blocks, Block{});
    sized_for_ = entries;
    sample_limit_ =
        sample_factor_ *
        std::max<uint64_t>(entries, blocks * sizeof(Block) / bytes_per_entry_);
    samples_ = 0;
    saturated_victims_ = 0;
  }
  uint64_t sized_for() const { return sized_for_; }
  uint64_t bytes() const { return table_.size() * sizeof(Block); }

  // Estimated frequency (0..15).
  uint32_t Frequency(uint64_t hash) const {
    const Block& b = table_[BlockOf(hash)];
    uint32_t c[4];
    return ReadCounters(b, Spread(hash), c);
  }

  void Increment(uint64_t hash) {
    Block& b = table_[BlockOf(hash)];
    const uint64_t h = Spread(hash);
    uint32_t c[4];
    const uint32_t min = ReadCounters(b, h, c);
    if (min < 15) {
      // Conservative update: only the smallest counters grow.
      for (int i = 0; i < 4; ++i) {
        if (c[i] == min) b.w[Word(h, i)] += uint64_t{1} << Shift(h, i);
      }
    }
    if (++samples_ >= sample_limit_) Halve();
  }

  // Counts an access whose increment is applied later with Add() (the
  // cache's hits: see TinyLfuAdmission::RecordHit). Keeps the aging schedule of
  // one sample per access.
  void CountAccess() {
    if (++samples_ >= sample_limit_) Halve();
  }

  // Applies k conservative increments of the key at once, without counting
  // samples (CountAccess counted them): k single increments each raise the
  // counters equal to the minimum, so together they raise every counter to
  // at least min + k (at most 15).
  void Add(uint64_t hash, uint32_t k) {
    Block& b = table_[BlockOf(hash)];
    const uint64_t h = Spread(hash);
    uint32_t c[4];
    const uint32_t target = std::min<uint32_t>(15, ReadCounters(b, h, c) + k);
    for (int i = 0; i < 4; ++i) {
      if (c[i] < target)
        b.w[Word(h, i)] += uint64_t{target - c[i]} << Shift(h, i);
    }
  }

  // Admission found its victim at kMaxCount: no candidate can beat it (a
  // tie is rejected), so the counts have run out of range for this cache and
  // workload -- the halving period is too long for them. After
  // sketch_saturated_victims such compares since the last halving,
  // halves now. This lets the period be long enough to rank the flat tails
  // of skewed workloads (a small cache at Zipf 0.8 needs 60x its capacity)
  // without freezing the cache where hot keys saturate their counters
  // (a small cache at Zipf 1.2, or a workload whose hot set changes).
  // docs/cache.md, "Frequency sketch". Cost: a halving is one pass over
  // the sketch (about one word per entry). After it a saturated count needs
  // 8 more increments, and the victim is the main area's least valuable
  // entry, roughly 1/entries of the accesses or fewer; so early halvings
  // should cost around 1/8 of a word per access at most. An estimate, not a
  // bound: count-min collisions can raise a victim's count without accesses
  // (then the halving is what clears them).
  void SaturatedVictim() {
    if (++saturated_victims_ >= saturated_victims_limit_) Halve();
  }

  // Halvings so far (wraps); the cache ages its per-entry hit counts by it.
  uint32_t epoch() const { return epoch_; }

 private:
  // Reads the key's four counters into c; returns the smallest.
  static uint32_t ReadCounters(const CacheLine& b, uint64_t h, uint32_t c[4]) {
    uint32_t min = 15;
    for (int i = 0; i < 4; ++i) {
      c[i] = static_cast<uint32_t>((b.w[Word(h, i)] >> Shift(h, i)) & 15);
      if (c[i] < min) min = c[i];
    }
    return min;
  }
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
  // sized to exactly sketch_bytes_per_entry per entry. Rotated so the
  // block does not correlate with the index slot (which uses the high bits).
  uint64_t BlockOf(uint64_t hash) const {
    const uint64_t r = (hash << 24) | (hash >> 40);
    return ScaleToRange(r, table_.size());
  }
  static uint64_t Spread(uint64_t hash) {
    return Mix(hash + 0x9e3779b97f4a7c15ull);
  }
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
    saturated_victims_ = 0;
    epoch_ += 1;
  }

  uint64_t bytes_per_entry_;
  uint64_t sample_factor_;
  uint64_t min_blocks_;
  uint32_t saturated_victims_limit_;
  std::vector<Block> table_;
  uint64_t sized_for_ = 0;
  uint64_t sample_limit_ = 0;
  uint64_t samples_ = 0;
  uint32_t saturated_victims_ = 0;
  uint32_t epoch_ = 0;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_FREQUENCY_SKETCH_H_
