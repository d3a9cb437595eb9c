// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Differential test: long random operation sequences against the reference
// model in cache_harness.h, for both policies, with
// byte and entry bounds and capacity changes. Sized to run in a few seconds
// under ASan/UBSan.

#include <gtest/gtest.h>

#include "cache_harness.h"

namespace falcon {
namespace {

using testing_harness::Harness;
using testing_harness::Rng;

struct Config {
  CachePolicy policy;
  uint64_t max_bytes;
  uint64_t max_entries;
  uint64_t seed;
};

std::string KeyOf(Rng& rng, uint32_t keys) {
  uint64_t k = rng.Below(keys);
  // Mixed lengths: the empty key, 1..40 bytes, sharing prefixes.
  if (k == 0) return std::string();
  std::string s = "k" + std::to_string(k);
  s.resize(1 + (k * 7) % 40, static_cast<char>('a' + k % 26));
  return s;
}

std::string ValueOf(Rng& rng) {
  uint64_t r = rng.Below(100);
  size_t len = r < 5 ? 0 : r < 97 ? rng.Below(300) : 4000 + rng.Below(4000);
  std::string v(len, '\0');
  for (size_t i = 0; i < len; ++i) v[i] = static_cast<char>(rng.Next());
  return v;
}

// ThreadSanitizer adds nothing to this single-threaded test but runs it ~10x
// slower; keep the CI budget by running a quarter of the steps there.
#if defined(__SANITIZE_THREAD__)
constexpr int kStepDivisor = 4;
#else
constexpr int kStepDivisor = 1;
#endif

void RunSequence(const Config& c, int steps) {
  steps /= kStepDivisor;
  CacheOptions o;
  o.policy = c.policy;
  o.max_bytes = c.max_bytes;
  o.max_entries = c.max_entries;
  // Batched write-back off, minimal and default, picked by the seed.
  const uint32_t batches[3] = {0, 2, 32};
  o.write_back_batch = batches[c.seed % 3];
  Harness h(o);
  Rng rng(c.seed);
  const uint32_t states = 3;
  uint32_t keys = 200;
  for (int i = 0; i < steps; ++i) {
    uint32_t state = static_cast<uint32_t>(rng.Below(states));
    uint64_t op = rng.Below(1000);
    bool ok;
    if (op < 450) {
      ok = h.Get(state, KeyOf(rng, keys));
    } else if (op < 700) {
      ok = h.Put(state, KeyOf(rng, keys), ValueOf(rng));
    } else if (op < 750) {
      ok = h.Append(state, KeyOf(rng, keys), ValueOf(rng));
    } else if (op < 900) {
      ok = h.Remove(state, KeyOf(rng, keys));
    } else if (op < 930) {
      ok = h.WriteBackDirty(rng.Below(c.max_bytes / 2 + 1));
    } else if (op < 950) {
      ok = h.Flush(state);
    } else if (op < 960) {
      ok = h.FlushAll();
    } else if (op < 965) {
      ok = h.DropState(state);
    } else if (op < 968) {
      ok = h.FlushThenClear();
    } else if (op < 985) {
      uint64_t b = rng.Below(4) == 0 ? rng.Below(2000)
                                     : c.max_bytes / 2 + rng.Below(c.max_bytes);
      uint64_t e = c.max_entries == 0 ? 0 : 1 + rng.Below(c.max_entries * 2);
      ok = h.SetCapacity(b, e);
    } else {
      // Phase change: a different hot set.
      keys = 20 + static_cast<uint32_t>(rng.Below(400));
      ok = true;
    }
    ASSERT_TRUE(ok) << "step " << i << " op " << op << ": " << h.error();
  }
  ASSERT_TRUE(h.FlushAll()) << h.error();
  EXPECT_GT(h.sink().written, 0u);
}

TEST(HotStateCacheDifferential, WTinyLfuBytes) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    RunSequence({CachePolicy::kWTinyLfu, 16 << 10, 0, seed}, 20000);
  }
}

TEST(HotStateCacheDifferential, LruBytes) {
  for (uint64_t seed = 11; seed <= 14; ++seed) {
    RunSequence({CachePolicy::kLru, 16 << 10, 0, seed}, 20000);
  }
}

TEST(HotStateCacheDifferential, EntryCap) {
  for (uint64_t seed = 21; seed <= 24; ++seed) {
    RunSequence({CachePolicy::kWTinyLfu, 64 << 10, 40, seed}, 20000);
    RunSequence({CachePolicy::kLru, 64 << 10, 40, seed + 100}, 20000);
  }
}

TEST(HotStateCacheDifferential, TinyCapacity) {
  for (uint64_t seed = 31; seed <= 34; ++seed) {
    RunSequence({CachePolicy::kWTinyLfu, 600, 0, seed}, 10000);
  }
}

}  // namespace
}  // namespace falcon
