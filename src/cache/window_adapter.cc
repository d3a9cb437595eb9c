// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/window_adapter.h"

#include <algorithm>

namespace falcon {
namespace cache_internal {

namespace {
constexpr double kMinWindow = 0.01;
constexpr double kMaxWindow = 1.0;
// The ghosts' boost: per batch of kBoostBatch ghost hits, a net win by more
// than kBoostSigmas standard deviations (sqrt(kBoostBatch) each).
constexpr uint32_t kBoostBatch = 256;
constexpr double kBoostSigma = 16.0;
constexpr double kBoostSigmas = 3.0;
}  // namespace

WindowAdapter::WindowAdapter(const PolicyTuning& tuning,
                             double initial_fraction)
    : tuning_(tuning),
      fraction_(initial_fraction),
      climb_period_(tuning.climb_min_period) {}

void WindowAdapter::Resize(uint64_t entries) {
  const uint64_t keys = std::max<uint64_t>(tuning_.ghost_min_keys,
                                           entries / tuning_.ghost_divisor);
  rejected_.Resize(keys);
  victims_.Resize(keys);
}

bool WindowAdapter::EndPeriod(uint64_t capacity) {
  const double rate = double(climb_hits_) / double(climb_samples_);
  climb_hits_ = climb_samples_ = 0;
  climb_period_ = std::max<uint64_t>(
      tuning_.climb_min_period, tuning_.climb_period_multiplier * capacity);
  // Nothing to learn from two periods of only misses (a scan) or only hits:
  // hold, so a long scan cannot walk the window up to pure LRU.
  if (rate == climb_prev_rate_ && (rate == 0.0 || rate == 1.0)) return false;
  climb_confirmed_ = climb_prev_rate_ >= 0 && rate > climb_prev_rate_;
  if (climb_prev_rate_ >= 0 && rate < climb_prev_rate_)
    climb_dir_ = -climb_dir_;
  climb_prev_rate_ = rate;
  const double step = climb_dir_ > 0
                          ? tuning_.climb_step
                          : -tuning_.climb_step * tuning_.climb_down_ratio;
  const double frac = std::clamp(fraction_ + step, kMinWindow, kMaxWindow);
  if (frac == fraction_) return false;
  fraction_ = frac;
  return true;
}

bool WindowAdapter::OnMiss(uint64_t hash, const FrequencySketch& sketch,
                           uint64_t capacity) {
  double step;
  if (rejected_.Contains(hash) &&
      sketch.Frequency(hash) < tuning_.grow_vote_max_count) {
    step = 1.0;
    ++grow_hits_;
  } else if (victims_.Contains(hash)) {
    step = -1.0;
    ++shrink_hits_;
  } else {
    return false;
  }
  // One entry per ghost hit is slow for a large cache that needs most of its
  // capacity as window. A clearly one-sided batch moves the window further,
  // but only when the climber's own evidence agrees: with a large window and
  // a tiny main area the rejected-key ghost wins locally even when a smaller
  // window would be better overall. That trap needs a main area smaller than
  // the window, so below unconfirmed_grow_below a batch won by the
  // rejected-key side boosts without the climber (right after the cache
  // first fills, the climber never agrees: the hit ratio falls whatever the
  // window does).
  if (grow_hits_ + shrink_hits_ >= kBoostBatch) {
    const double net = double(grow_hits_) - double(shrink_hits_);
    grow_hits_ = shrink_hits_ = 0;
    const bool grow = net > kBoostSigmas * kBoostSigma;
    const bool shrink = net < -kBoostSigmas * kBoostSigma;
    if ((grow && (fraction_ < tuning_.unconfirmed_grow_below ||
                  (climb_confirmed_ && climb_dir_ > 0))) ||
        (shrink && climb_confirmed_ && climb_dir_ < 0)) {
      step += tuning_.boost_gain * net;
    }
  }
  const double frac =
      std::clamp(fraction_ + step / double(capacity), kMinWindow, kMaxWindow);
  if (frac == fraction_) return false;
  fraction_ = frac;
  return true;
}

}  // namespace cache_internal
}  // namespace falcon
