// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Test-only: the cache's eviction policies as a parameter of a test suite,
// with readable test names (.../WTinyLfu, .../Lru):
//   INSTANTIATE_TEST_SUITE_P(Policies, MySuite, testing_harness::kPolicies,
//                            testing_harness::PolicyName);

#ifndef FALCON_TESTS_CACHE_POLICIES_H_
#define FALCON_TESTS_CACHE_POLICIES_H_

#include <gtest/gtest.h>

#include <string>

#include "falcon/cache_types.h"

namespace falcon {
namespace testing_harness {

inline const auto kPolicies =
    ::testing::Values(CachePolicy::kWTinyLfu, CachePolicy::kLru);

inline std::string PolicyName(
    const ::testing::TestParamInfo<CachePolicy>& info) {
  return info.param == CachePolicy::kLru ? "Lru" : "WTinyLfu";
}

}  // namespace testing_harness
}  // namespace falcon

#endif  // FALCON_TESTS_CACHE_POLICIES_H_
