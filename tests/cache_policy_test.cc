// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

// The eviction policies (LRU, W-TinyLFU and its parts: the frequency sketch,
// the ghost filter, the window).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cache/cache_core.h"
#include "cache/frequency_sketch.h"
#include "cache/ghost_filter.h"
#include "cache/policy_tuning.h"
#include "cache_capacity.h"
#include "falcon/hot_state_cache.h"
#include "recording_sink.h"

namespace falcon {
namespace {

using cache_internal::CacheCore;
using testing_harness::Opts;
using testing_harness::RecordingSink;
using testing_harness::SetCapacity;

TEST(HotStateCachePolicy, LruEvictsLeastRecentlyUsed) {
  RecordingSink sink;
  HotStateCache c(Opts(CachePolicy::kLru, 1 << 20, 3), &sink);
  ASSERT_TRUE(c.Fill(0, "k1", "1").ok());
  ASSERT_TRUE(c.Fill(0, "k2", "2").ok());
  ASSERT_TRUE(c.Fill(0, "k3", "3").ok());
  (void)c.Get(0, "k1");
  ASSERT_TRUE(c.Fill(0, "k4", "4").ok());
  EXPECT_EQ(c.Get(0, "k2").kind, Lookup::kMiss);
  EXPECT_EQ(c.Get(0, "k1").kind, Lookup::kHit);
  EXPECT_EQ(c.Get(0, "k3").kind, Lookup::kHit);
  EXPECT_EQ(c.Get(0, "k4").kind, Lookup::kHit);
}

TEST(HotStateCachePolicy, WTinyLfuResistsScans) {
  RecordingSink sink;
  HotStateCache c(Opts(CachePolicy::kWTinyLfu, 1 << 30, 1000), &sink);
  // A hot set seen many times, then a long scan of one-hit keys.
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 500; ++i) {
      std::string k = "hot" + std::to_string(i);
      if (c.Get(0, k).kind == Lookup::kMiss) {
        ASSERT_TRUE(c.Fill(0, k, "h").ok());
      }
    }
  }
  for (int i = 0; i < 50000; ++i) {
    std::string k = "scan" + std::to_string(i);
    if (c.Get(0, k).kind == Lookup::kMiss) {
      ASSERT_TRUE(c.Fill(0, k, "s").ok());
    }
  }
  int hot_hits = 0;
  for (int i = 0; i < 500; ++i) {
    hot_hits += c.Get(0, "hot" + std::to_string(i)).kind == Lookup::kHit;
  }
  EXPECT_GE(hot_hits, 490);
  // LRU loses all of them.
  HotStateCache lru(Opts(CachePolicy::kLru, 1 << 30, 1000), &sink);
  for (int i = 0; i < 500; ++i)
    ASSERT_TRUE(lru.Fill(0, "hot" + std::to_string(i), "h").ok());
  for (int i = 0; i < 5000; ++i)
    ASSERT_TRUE(lru.Fill(0, "scan" + std::to_string(i), "s").ok());
  EXPECT_EQ(lru.Get(0, "hot1").kind, Lookup::kMiss);
}

// The cache counts hits in the entry and adds them to the sketch later with
// one Add(hash, k); that must leave every counter exactly where k single
// (conservative) increments would have. (No halving in between here: one
// would halve the single increments made before it, which the cache
// approximates by aging the entry's count, Entry::hits.)
TEST(FrequencySketch, AddEqualsRepeatedIncrements) {
  cache_internal::FrequencySketch one_by_one;
  cache_internal::FrequencySketch at_once;
  // 3000 keys in 512 blocks share counters; the first halving would come
  // after 81,920 increments, and the test makes about 28,500.
  one_by_one.Resize(4096);
  at_once.Resize(4096);
  std::vector<uint64_t> hashes;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 3000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    hashes.push_back(x);
  }
  for (size_t i = 0; i < hashes.size(); ++i) {
    const uint32_t k = static_cast<uint32_t>(i % 20);  // past 15 as well
    for (uint32_t j = 0; j < k; ++j) one_by_one.Increment(hashes[i]);
    at_once.Add(hashes[i], k);
    ASSERT_EQ(one_by_one.Frequency(hashes[i]), at_once.Frequency(hashes[i]))
        << "step " << i;
    if (i % 100 == 99) {
      for (size_t p = 0; p <= i; ++p) {
        ASSERT_EQ(one_by_one.Frequency(hashes[p]), at_once.Frequency(hashes[p]))
            << "step " << i << ", key " << p;
      }
    }
  }
  ASSERT_EQ(one_by_one.epoch(), 0u);
  EXPECT_EQ(one_by_one.Frequency(hashes[19]), 15u);  // saturated
}

// CountAccess (a hit counted in the entry) ages the sketch on the schedule
// Increment does.
TEST(FrequencySketch, CountAccessKeepsTheAgingSchedule) {
  cache_internal::FrequencySketch counted;
  cache_internal::FrequencySketch deferred;
  counted.Resize(64);
  deferred.Resize(64);
  // Sized for 64 entries, the sketch holds its 16 KiB minimum (2,048 entries'
  // worth): the first halving comes after 60 x 2,048 accesses, the next ones
  // every 61,440 (a halving halves the sample count too).
  for (uint64_t i = 0; i < 400000; ++i) {
    counted.Increment(i * 0x9e3779b97f4a7c15ull);
    deferred.CountAccess();
    ASSERT_EQ(counted.epoch(), deferred.epoch()) << "access " << i;
  }
  EXPECT_GE(deferred.epoch(), 3u);
}

// An admission compare whose victim is saturated can admit nothing (a tie
// is rejected): after PolicyTuning::sketch_saturated_victims of them since the
// last halving the sketch halves early. A scheduled halving starts the count
// over.
TEST(FrequencySketch, SaturatedVictimsHalveEarly) {
  const uint32_t kSaturatedVictims =
      cache_internal::PolicyTuning().sketch_saturated_victims;
  cache_internal::FrequencySketch sketch;
  sketch.Resize(64);
  const uint64_t hot = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 20; ++i) sketch.Increment(hot);
  ASSERT_EQ(sketch.Frequency(hot), 15u);
  for (uint32_t i = 0; i + 1 < kSaturatedVictims; ++i) sketch.SaturatedVictim();
  EXPECT_EQ(sketch.epoch(), 0u);
  EXPECT_EQ(sketch.Frequency(hot), 15u);
  sketch.SaturatedVictim();
  EXPECT_EQ(sketch.epoch(), 1u);
  EXPECT_EQ(sketch.Frequency(hot), 7u);
  // The count starts over after any halving, scheduled ones included.
  for (uint32_t i = 0; i + 1 < kSaturatedVictims; ++i) sketch.SaturatedVictim();
  while (sketch.epoch() == 1u) sketch.CountAccess();
  ASSERT_EQ(sketch.epoch(), 2u);
  for (uint32_t i = 0; i + 1 < kSaturatedVictims; ++i) sketch.SaturatedVictim();
  EXPECT_EQ(sketch.epoch(), 2u);
  sketch.SaturatedVictim();
  EXPECT_EQ(sketch.epoch(), 3u);
}

// Hits of a cached key are counted in its entry, not in the sketch; they
// reach the sketch when the entry is evicted, so a key that was hot while
// cached and comes back later still wins admission against keys seen twice.
TEST(HotStateCachePolicy, WTinyLfuRemembersHitsOfEvictedEntries) {
  RecordingSink sink;
  CacheCore c(Opts(CachePolicy::kWTinyLfu, 1 << 30, 100), &sink);
  auto get_or_fill = [&](const std::string& k) {
    GetResult r = c.Get(0, k);
    if (r.kind == Lookup::kMiss) {
      ASSERT_TRUE(c.Fill(0, k, "v").ok());
    }
  };
  // The sketch is sized for the capacity and cleared once when the cache
  // first holds more: get that over with (fills do not touch the sketch).
  for (int i = 0; i <= 100; ++i)
    ASSERT_TRUE(c.Fill(0, "w" + std::to_string(i), "v").ok());
  c.Clear();
  get_or_fill("hot");
  for (int i = 0; i < 10; ++i) ASSERT_EQ(c.Get(0, "hot").kind, Lookup::kHit);
  ASSERT_TRUE(
      SetCapacity(c, 1 << 30, 1).ok());  // evicts "hot" (and folds its hits)
  get_or_fill("filler");
  ASSERT_EQ(c.Get(0, "hot").kind, Lookup::kMiss);
  ASSERT_TRUE(SetCapacity(c, 1 << 30, 100).ok());
  // 100 keys seen three times each (a miss and two hits) fill the cache.
  for (int i = 0; i < 100; ++i) {
    for (int j = 0; j < 3; ++j) get_or_fill("b" + std::to_string(i));
  }
  // "hot" comes back; the next new key pushes it out of the 1-entry window,
  // and it is admitted against a key seen three times: 13 (three misses and
  // the ten hits) > 3. Without its hits, 3 > 3 would fail.
  get_or_fill("hot");
  get_or_fill("next");
  EXPECT_EQ(c.Get(0, "hot").kind, Lookup::kHit);
  // A key with the same history except the hits is not admitted.
  get_or_fill("cold");
  get_or_fill("next2");
  EXPECT_EQ(c.Get(0, "cold").kind, Lookup::kMiss);
}

// The tuning bench/cache_sim sets from its flags reaches the units: a larger
// sketch floor shows in what the cache allocates, and a saturation limit of
// one halves the sketch at the first saturated victim.
TEST(PolicyTuning, ReachesTheUnits) {
  RecordingSink sink;
  cache_internal::PolicyTuning tuning;
  // A 1 MiB cache sizes its sketch for 4,096 entries: 512 blocks of 64 bytes.
  CacheCore plain(Opts(CachePolicy::kWTinyLfu, 1 << 20), &sink);
  tuning.sketch_min_blocks = 1024;
  CacheCore larger(Opts(CachePolicy::kWTinyLfu, 1 << 20), &sink, nullptr,
                   tuning);
  EXPECT_EQ(larger.AllocatedBytes() - plain.AllocatedBytes(), 512u * 64u);

  tuning = cache_internal::PolicyTuning();
  tuning.sketch_saturated_victims = 1;
  cache_internal::FrequencySketch sketch(tuning);
  sketch.Resize(64);
  const uint64_t hot = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 20; ++i) sketch.Increment(hot);
  ASSERT_EQ(sketch.Frequency(hot), 15u);
  sketch.SaturatedVictim();
  EXPECT_EQ(sketch.epoch(), 1u);
  EXPECT_EQ(sketch.Frequency(hot), 7u);
}

TEST(GhostFilter, RemembersRecentKeysAndForgetsOldOnes) {
  cache_internal::GhostFilter g;
  g.Resize(1000);
  auto hash = [](uint64_t i) { return (i + 1) * 0x9e3779b97f4a7c15ull; };
  for (uint64_t i = 0; i < 1000; ++i) g.Insert(hash(i));
  // The last half of the capacity is always remembered.
  for (uint64_t i = 500; i < 1000; ++i) EXPECT_TRUE(g.Contains(hash(i))) << i;
  int false_positives = 0;
  for (uint64_t i = 1000000; i < 1100000; ++i)
    false_positives += g.Contains(hash(i));
  EXPECT_LT(false_positives, 2000);  // < 2% (16 bits per key, two filters)
  // Two capacities of later inserts: forgotten (up to false positives).
  for (uint64_t i = 2000; i < 4000; ++i) g.Insert(hash(i));
  int still = 0;
  for (uint64_t i = 0; i < 1000; ++i) still += g.Contains(hash(i));
  EXPECT_LT(still, 30);
}

// The window grows when recently rejected keys come back (new keys re-read
// shortly after their first access: Nexmark's new auctions) and shrinks back
// towards 1% when recently evicted main-area keys come back instead (a stable
// hot set among one-hit keys).
TEST(HotStateCachePolicy, WTinyLfuWindowFollowsTheWorkload) {
  RecordingSink sink;
  HotStateCache c(Opts(CachePolicy::kWTinyLfu, 1 << 30, 1000), &sink);
  auto access = [&](const std::string& k) {
    if (c.Get(0, k).kind == Lookup::kMiss) {
      ASSERT_TRUE(c.Fill(0, k, "v").ok());
    }
  };
  EXPECT_DOUBLE_EQ(c.window_fraction(), 0.01);
  for (int n = 0; n < 40000; ++n) {
    access("new" + std::to_string(n));
    if (n >= 20) access("new" + std::to_string(n - 20));
    if (n >= 45) access("new" + std::to_string(n - 45));
  }
  const double grown = c.window_fraction();
  EXPECT_GE(grown, 0.04);
  uint64_t x = 1;
  int hits = 0;
  for (int n = 0; n < 400000; ++n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = x >> 33;
    // Hot keys 0..1499 with a skew (the cache holds 1000), one-hit keys.
    const std::string k =
        r % 4 == 0 ? "once" + std::to_string(n)
                   : "hot" + std::to_string((r % 1500) * (r % 1500) / 1500);
    if (c.Get(0, k).kind == Lookup::kMiss) {
      ASSERT_TRUE(c.Fill(0, k, "v").ok());
    } else if (n >= 300000) {
      ++hits;
    }
    // The hot keys' counts saturate while the window is large: only halving
    // early on saturated victims lets them into the main area this soon
    // (without it, at this halving period, the window stays near 100%).
    if (n == 160000) {
      EXPECT_LT(c.window_fraction(), grown / 2);
    }
  }
  EXPECT_LT(c.window_fraction(), grown / 2);
  // A small window keeps about 75% (a full one, LRU-like, about 59%).
  EXPECT_GT(hits, 70000);
}

// The recency trace of bench/cache_sim at 200k keys, cache 10%: new auctions
// keep arriving (one per 10 reads), 80% of reads go to recent ones
// (geometric age, mean 2,000 auctions), 20% to 20k long-lived keys with Zipf
// 0.8 popularity. W-TinyLFU needs a large window for the auctions and a main
// area for the steady keys; its ghosts grow the window one entry per ghost
// hit, which took most of the trace at this size, and the boost (many
// entries per batch of one-sided ghost hits) gets there in time. The main
// area keeps the steady keys only because a pass through the window counts
// once (an auction's burst of hits would outrank them). Counted: the second
// half of a trace 10x the key space, and, separately, accesses 150,000 to
// 250,000, right after the cache first fills.
struct RecencyRun {
  double hit_ratio = 0;             // second half
  double after_fill_hit_ratio = 0;  // accesses [150k, 250k)
  double window = 0;                // at the end
};

RecencyRun RunRecency(CachePolicy policy) {
  const int keys = 200000, long_lived = keys / 10, auctions = keys - long_lived;
  const int accesses = 10 * keys;
  const int after_fill_begin = 150000, after_fill_end = 250000;
  std::vector<double> zipf_cdf(long_lived);
  double sum = 0;
  for (int k = 0; k < long_lived; ++k)
    zipf_cdf[k] = (sum += std::pow(k + 1.0, -0.8));
  RecordingSink sink;
  HotStateCache c(Opts(policy, uint64_t{1} << 34, keys / 10), &sink);
  uint64_t x = 7;
  auto uniform = [&x] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return double(x >> 11) * (1.0 / 9007199254740992.0);
  };
  const double log_keep = std::log(1.0 - 1.0 / 2000);
  int hits = 0, after_fill_hits = 0;
  char key[16];
  for (int i = 0; i < accesses; ++i) {
    const int newest =
        std::min(auctions - 1, int(int64_t{i} * auctions / accesses));
    int id;
    if (uniform() < 0.8) {
      const int age =
          std::min(newest, int(std::log(1.0 - uniform()) / log_keep));
      id = long_lived + newest - age;
    } else {
      id = int(
          std::lower_bound(zipf_cdf.begin(), zipf_cdf.end(), uniform() * sum) -
          zipf_cdf.begin());
    }
    std::memcpy(key, &id, sizeof(id));
    const std::string_view k(key, sizeof(id));
    if (c.Get(0, k).kind == Lookup::kHit) {
      hits += i >= accesses / 2 ? 1 : 0;
      after_fill_hits += i >= after_fill_begin && i < after_fill_end ? 1 : 0;
    } else if (!c.Fill(0, k, "v").ok()) {
      ADD_FAILURE() << "fill failed";
      break;
    }
  }
  RecencyRun run;
  run.hit_ratio = double(hits) / double(accesses - accesses / 2);
  run.after_fill_hit_ratio =
      double(after_fill_hits) / double(after_fill_end - after_fill_begin);
  run.window = c.window_fraction();
  return run;
}

TEST(HotStateCachePolicy, WTinyLfuKeepsUpWithLruOnRecency) {
  const RecencyRun wtinylfu = RunRecency(CachePolicy::kWTinyLfu);
  const RecencyRun lru = RunRecency(CachePolicy::kLru);
  std::printf(
      "recency: W-TinyLFU %.4f (window %.3f), LRU %.4f; after filling %.4f vs "
      "%.4f\n",
      wtinylfu.hit_ratio, wtinylfu.window, lru.hit_ratio,
      wtinylfu.after_fill_hit_ratio, lru.after_fill_hit_ratio);
  // No worse than LRU: +0.5 points (+0.4 with one count per window pass before
  // the unconfirmed boost below half the cache); counting every window hit,
  // W-TinyLFU was 0.3 points below LRU here (0.6 without the ghosts' boost).
  EXPECT_GE(wtinylfu.hit_ratio, lru.hit_ratio);
  // Neither a 1% window (13-50 points below LRU on this trace) nor the whole
  // cache (a CLOCK, which is where counting every window hit left it): the main
  // area keeps the steady keys.
  EXPECT_GT(wtinylfu.window, 0.2);
  EXPECT_LT(wtinylfu.window, 0.95);
  // Right after the cache fills, the main area holds whatever arrived while
  // nothing was contested, new auctions lose admission, and only a larger
  // window helps; the climber cannot tell (the hit ratio falls whatever the
  // window does). Growing the window on the ghosts' evidence alone while it
  // is below half the cache keeps that dip to 2.0 points below LRU; with the
  // climber's agreement required, it was 6.6.
  EXPECT_GT(wtinylfu.after_fill_hit_ratio, lru.after_fill_hit_ratio - 0.04);
}

// Hits only set a referenced bit; the window's second chance re-queues a
// referenced entry behind the newest one, so with a 1-entry window (4
// entries) a value read right after its write is still a hit, even when the
// older window entry was referenced (it leaves the window instead).
TEST(HotStateCachePolicy, WTinyLfuReadAfterWriteHitsInATinyCache) {
  RecordingSink sink;
  HotStateCache c(Opts(CachePolicy::kWTinyLfu, 64 << 10, 4), &sink);
  int hits = 0;
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 10; ++k) {
      const std::string key = "k" + std::to_string(k);
      ASSERT_TRUE(c.Put(0, key, "x" + std::to_string(k)).ok());
      GetResult r = c.Get(0, key);
      ASSERT_EQ(r.kind, Lookup::kHit) << "round " << round << " key " << k;
      EXPECT_EQ(r.value(), "x" + std::to_string(k));
      ++hits;
    }
  }
  EXPECT_EQ(hits, 30);
  EXPECT_EQ(c.entries(), 4u);
  EXPECT_GT(c.Stats(0).evictions, 0u);
}

}  // namespace
}  // namespace falcon
