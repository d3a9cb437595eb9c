// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Test-only: changing the bounds of a cache that has no BudgetLease (in
// production the capacity only ever comes from the options or the lease).
// The tests that need it build a cache_internal::CacheCore, the cache behind
// HotStateCache, directly.

#ifndef FALCON_TESTS_CACHE_CAPACITY_H_
#define FALCON_TESTS_CACHE_CAPACITY_H_

#include <cstdint>

#include "cache/cache_core.h"

namespace falcon {
namespace testing_harness {

// New bounds, then evicts down to them (dirty victims reach the sink).
[[nodiscard]] inline Status SetCapacity(cache_internal::CacheCore& cache,
                                        uint64_t max_bytes,
                                        uint64_t max_entries) {
  cache.ApplyCapacity(max_bytes, max_entries);
  return cache.ShrinkToQuota();
}

}  // namespace testing_harness
}  // namespace falcon

#endif  // FALCON_TESTS_CACHE_CAPACITY_H_
