// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The tunable constants of the W-TinyLFU policy, in one place. The defaults
// are what the cache ships with (picked with bench/cache_sim; the reasons are
// in docs/cache.md and docs/decisions/). Production code always uses the
// defaults; bench/cache_sim sets other values from its command line to try
// variants without rebuilding.
//
// Thread-safety: plain data, copied into the cache at construction.

#ifndef FALCON_SRC_CACHE_POLICY_TUNING_H_
#define FALCON_SRC_CACHE_POLICY_TUNING_H_

#include <cstdint>

namespace falcon {
namespace cache_internal {

struct PolicyTuning {
  // --- Hill climber (WindowAdapter) ---
  // Window step per period, as a share of the capacity, upwards.
  double climb_step = 1.0 / 128;
  // A step down is this many times a step up (the drift towards 1%).
  double climb_down_ratio = 2.0;
  // A period is max(climb_min_period, climb_period_multiplier x capacity in
  // entries) gets.
  uint64_t climb_period_multiplier = 1;
  uint64_t climb_min_period = 8192;

  // --- Ghosts (WindowAdapter) ---
  // Each ghost remembers max(ghost_min_keys, sized-for entries / ghost_divisor)
  // keys.
  uint64_t ghost_divisor = 16;
  uint64_t ghost_min_keys = 16;
  // A returning rejected key votes for a larger window only while the sketch
  // counts it below this.
  uint32_t grow_vote_max_count = 8;
  // A one-sided batch of ghost hits moves the window this many more entries
  // per net hit (0: no boost).
  double boost_gain = 16;
  // Below this window share a batch won by the rejected-key side boosts the
  // window without the climber's agreement (0: the climber must always
  // agree).
  double unconfirmed_grow_below = 0.5;

  // --- Admission (TinyLfuAdmission) ---
  // Hits of one pass through the window that count as frequency (15, the
  // per-entry maximum: all of them).
  uint32_t window_pass_hits = 1;

  // --- Frequency sketch ---
  uint64_t sketch_bytes_per_entry = 8;
  // All counters are halved every sketch_sample_factor x max(sized-for
  // entries, counters / 16) accesses ...
  uint64_t sketch_sample_factor = 60;
  // ... over at least this many 64-byte blocks (256: 16 KiB) ...
  uint64_t sketch_min_blocks = 256;
  // ... or after this many admission compares found the victim saturated.
  uint32_t sketch_saturated_victims = 64;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_POLICY_TUNING_H_
