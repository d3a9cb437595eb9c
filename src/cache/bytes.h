// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Byte helpers of the cache's hit path. Flink's serialized keys are short
// (key group + key + namespace: 10-40 bytes), and a call into memcmp is a
// visible share of a get-hit that short (bench/hot_state_cache_bench under
// perf), so keys of 8..32 bytes are compared inline with overlapping 8-byte
// loads.
//
// Thread-safety: pure functions.

#ifndef FALCON_SRC_CACHE_BYTES_H_
#define FALCON_SRC_CACHE_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace falcon {
namespace cache_internal {

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// True if the n bytes at a and b are equal (n may be 0; then a and b may be
// null).
inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n >= 8 && n <= 32) {
    // [0, 8) and [n - 8, n) cover n <= 16; above, [8, 16) and [n - 16, n - 8)
    // cover the middle.
    uint64_t d =
        (Load64(a) ^ Load64(b)) | (Load64(a + n - 8) ^ Load64(b + n - 8));
    if (n > 16) {
      d |= (Load64(a + 8) ^ Load64(b + 8)) |
           (Load64(a + n - 16) ^ Load64(b + n - 16));
    }
    return d == 0;
  }
  return n == 0 || std::memcmp(a, b, n) == 0;
}

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_BYTES_H_
