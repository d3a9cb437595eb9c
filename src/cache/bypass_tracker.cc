// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/bypass_tracker.h"

#include <algorithm>

namespace falcon {
namespace cache_internal {

void BypassTracker::EndWindow(BypassState& b, CacheStats& stats) const {
  if (stats.bypassed_now) {
    if (--b.gets_left == 0) {
      stats.bypassed_now = false;
      b.probing = true;
      b.window_gets = b.window_hits = 0;
    }
    return;
  }
  const double ratio = double(b.window_hits) / double(b.window_gets);
  stats.window_hit_ratio = ratio;
  b.window_gets = b.window_hits = 0;
  if (ratio < threshold_) {
    b.low_windows += 1;
    if (b.probing || b.low_windows >= std::max<uint32_t>(1, enter_windows_)) {
      if (b.probing)
        b.probe_multiplier = std::min<uint32_t>(b.probe_multiplier * 2, 64);
      b.probing = false;
      b.low_windows = 0;
      stats.bypassed_now = true;
      stats.bypass_entered += 1;
      b.gets_left =
          std::max<uint64_t>(1, uint64_t(probe_interval_) * b.probe_multiplier);
    }
  } else {
    b.low_windows = 0;
    if (b.probing) {
      b.probing = false;
      b.probe_multiplier = 1;
    }
  }
}

}  // namespace cache_internal
}  // namespace falcon
