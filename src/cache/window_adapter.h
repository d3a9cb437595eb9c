// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// W-TinyLFU's adaptive window: the share of the capacity the admission
// window gets, between 1% and 100%, from two signals.
//
// Ghosts (the direction), after ARC's adaptation (Megiddo and Modha, "ARC: A
// Self-Tuning, Low Overhead Replacement Cache", FAST 2003) applied to the
// window. Two ghosts remember the keys admission rejected last and the keys
// last evicted from the main area (GhostFilter, PolicyTuning::ghost_divisor:
// 1/16 of the capacity each). A miss on a recently rejected key means a
// larger window would have kept it: the window grows by one entry, unless the
// sketch counts the key at grow_vote_max_count (8) or more (then a larger main
// area would have kept it). A miss on a recently evicted main-area key shrinks
// the window by one entry. When a batch of 256 ghost hits is one-sided by more
// than 3 sigma (48 net hits), the window moves boost_gain (16) more entries per
// net hit: towards a smaller window, and towards a larger one at
// unconfirmed_grow_below (half the cache) or more, only if the climber's last
// period moved the same way and gained.
//
// Hill climber (the way back), after Caffeine's: every period of
// max(8192, capacity in entries) gets, the window moves one step, keeping its
// direction while the period's hit ratio improves on the previous one's and
// turning around otherwise. A step up is 1/128 of the capacity, a step down
// twice that, so where the window does not matter the climber drifts to 1%.
// The ghosts cannot tell when a large window should shrink again (both sides
// hold equally hot keys); the climber can. Two periods of only misses (a
// scan) or only hits hold it where it is.
//
// Thread-safety: none (owned by one cache).

#ifndef FALCON_SRC_CACHE_WINDOW_ADAPTER_H_
#define FALCON_SRC_CACHE_WINDOW_ADAPTER_H_

#include <cstdint>

#include "cache/frequency_sketch.h"
#include "cache/ghost_filter.h"
#include "cache/policy_tuning.h"

namespace falcon {
namespace cache_internal {

class WindowAdapter {
 public:
  // `initial_fraction`: the window's share at first (0.01..0.8).
  WindowAdapter(const PolicyTuning& tuning, double initial_fraction);

  double fraction() const { return fraction_; }
  // Sizes both ghosts for a cache of `entries` (forgets them).
  void Resize(uint64_t entries);
  uint64_t bytes() const { return rejected_.bytes() + victims_.bytes(); }

  // Remembers an admission candidate that lost / a main-area victim that
  // lost to a candidate.
  void RecordRejected(uint64_t hash) { rejected_.Insert(hash); }
  void RecordMainVictim(uint64_t hash) { victims_.Insert(hash); }

  // The climber's sample of one counted get; true when its period is over
  // (then call EndPeriod).
  bool Sample(bool hit) {
    climb_hits_ += hit ? 1 : 0;
    return __builtin_expect(++climb_samples_ >= climb_period_, 0);
  }
  // `capacity` in entries (the entry cap, or the entry count). True when the
  // window fraction changed.
  bool EndPeriod(uint64_t capacity);
  // A counted miss: consults the ghosts. True when the fraction changed.
  bool OnMiss(uint64_t hash, const FrequencySketch& sketch, uint64_t capacity);

 private:
  const PolicyTuning tuning_;
  double fraction_;
  // Climber: hits and gets of the running period, its length, the previous
  // period's hit ratio and the current direction.
  uint64_t climb_hits_ = 0;
  uint64_t climb_samples_ = 0;
  uint64_t climb_period_;
  double climb_prev_rate_ = -1.0;
  int climb_dir_ = 1;
  // The last period's hit ratio beat the one before it: the climber's
  // direction is backed by its own evidence.
  bool climb_confirmed_ = false;
  // Ghost hits of the running batch on either side.
  uint32_t grow_hits_ = 0;
  uint32_t shrink_hits_ = 0;
  GhostFilter rejected_;
  GhostFilter victims_;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_WINDOW_ADAPTER_H_
