// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Two small pieces the cache's hashed structures share: a 64-byte block of
// eight words (one cache line, so one miss per lookup), and the
// multiply-shift map of a 64-bit hash onto [0, n) for any n (no power-of-two
// rounding of table sizes).
//
// Thread-safety: pure data and a pure function.

#ifndef FALCON_SRC_CACHE_CACHE_LINE_H_
#define FALCON_SRC_CACHE_CACHE_LINE_H_

#include <cstddef>
#include <cstdint>

namespace falcon {
namespace cache_internal {

struct alignas(64) CacheLine {
  uint64_t w[8] = {0, 0, 0, 0, 0, 0, 0, 0};
};

// floor(x * n / 2^64): uniform over [0, n) when x is.
inline uint64_t ScaleToRange(uint64_t x, uint64_t n) {
  __extension__ typedef unsigned __int128 Uint128;
  return static_cast<uint64_t>((static_cast<Uint128>(x) * n) >> 64);
}

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_CACHE_LINE_H_
