// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Adaptive bypass, per state (CacheOptions::bypass_*; off unless
// bypass_threshold > 0). Every window of `bypass_window` gets of a state, its
// hit ratio is compared with the threshold; after `bypass_enter_windows`
// consecutive windows below it the state is bypassed (CacheStats::
// bypassed_now). After `bypass_probe_interval` gets the state is probed: it is
// cached again for one window; if that window is still below the threshold it
// returns to bypass and the interval doubles (up to 64x), otherwise it stays
// cached and the interval resets. What "bypassed" means for gets and writes
// is the cache's business (CacheCore); this unit only decides when.
//
// Thread-safety: none (owned by one cache).

#ifndef FALCON_SRC_CACHE_BYPASS_TRACKER_H_
#define FALCON_SRC_CACHE_BYPASS_TRACKER_H_

#include <cstdint>

#include "falcon/hot_state_cache.h"

namespace falcon {
namespace cache_internal {

// One state's bypass bookkeeping (its statistics hold bypassed_now,
// bypass_entered and window_hit_ratio).
struct BypassState {
  uint32_t window_gets = 0;
  uint32_t window_hits = 0;
  uint32_t low_windows = 0;
  uint32_t probe_multiplier = 1;
  uint64_t gets_left = 0;  // while bypassed: gets until the next probe
  bool probing = false;
};

class BypassTracker {
 public:
  explicit BypassTracker(const CacheOptions& options)
      : threshold_(options.bypass_threshold),
        window_(options.bypass_window),
        enter_windows_(options.bypass_enter_windows),
        probe_interval_(options.bypass_probe_interval) {}

  // One get of the state: `hit` for kHit or kAbsent. The end of a window
  // (once per bypass_window gets) is out of line.
  void CountGet(BypassState& b, CacheStats& stats, bool hit) const {
    if (threshold_ <= 0.0) return;
    if (!stats.bypassed_now) {
      b.window_gets += 1;
      b.window_hits += hit ? 1 : 0;
      if (__builtin_expect(b.window_gets < window_, 1)) return;
    }
    EndWindow(b, stats);
  }

  // Forgets the state's bypass (the cache was cleared).
  static void Reset(BypassState& b, CacheStats& stats) {
    stats.bypassed_now = false;
    b = BypassState();
  }

 private:
  void EndWindow(BypassState& b, CacheStats& stats) const;

  double threshold_;
  uint32_t window_;
  uint32_t enter_windows_;
  uint32_t probe_interval_;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_BYPASS_TRACKER_H_
