// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The cache's write-back: what evictions, quota shrinks, flushes and the
// dirty-byte bound hand to the sink, in which order, and what stays dirty
// when the sink fails.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cache/cache_core.h"
#include "cache_capacity.h"
#include "cache_policies.h"
#include "falcon/hot_state_cache.h"
#include "recording_sink.h"

namespace falcon {
namespace {

using cache_internal::CacheCore;
using testing_harness::Opts;
using testing_harness::RecordingSink;
using testing_harness::SetCapacity;
using testing_harness::Written;

class HotStateCacheWriteBackTest
    : public ::testing::TestWithParam<CachePolicy> {};

TEST_P(HotStateCacheWriteBackTest, QuotaShrinkWhileFullEvictsDirtyToSink) {
  RecordingSink sink;
  CacheOptions o = Opts(GetParam(), 64 << 10);
  o.write_back_batch = 0;  // exactly the evicted entries are written back
  CacheCore c(o, &sink);   // SetCapacity needs the cache behind the facade
  std::string v(200, 'v');
  int n = 0;
  while (c.Stats(0).evictions == 0) {
    ASSERT_TRUE(c.Put(0, "key" + std::to_string(n++), v).ok());
  }
  size_t before = sink.out.size();
  EXPECT_GT(before, 0u);  // dirty victims, not dropped
  EXPECT_EQ(c.Stats(0).dirty_writebacks, before);
  uint64_t entries_full = c.entries();
  ASSERT_TRUE(SetCapacity(c, 16 << 10, 0).ok());
  EXPECT_LE(c.bytes(), 16u << 10);
  EXPECT_LT(c.entries(), entries_full / 3);
  EXPECT_EQ(sink.out.size(), before + (entries_full - c.entries()));
  // Victims of one call came in batches of at most kMaxBatch.
  for (size_t b : sink.batch_sizes) EXPECT_LE(b, HotStateCache::kMaxBatch);
  // Whatever is not cached any more was written back: flush and compare.
  ASSERT_TRUE(c.FlushAll().ok());
  std::vector<bool> seen(n, false);
  for (const Written& w : sink.out) seen[std::stoi(w.key.substr(3))] = true;
  for (int i = 0; i < n; ++i) EXPECT_TRUE(seen[i]) << i;
  // Entry cap as well.
  ASSERT_TRUE(SetCapacity(c, 1 << 20, 5).ok());
  EXPECT_LE(c.entries(), 5u);
  // Clean victims are just freed.
  size_t written = sink.out.size();
  ASSERT_TRUE(SetCapacity(c, 1 << 20, 1).ok());
  EXPECT_EQ(sink.out.size(), written);
  EXPECT_EQ(c.entries(), 1u);
}

// Batched write-back: an eviction that writes a dirty entry back also writes
// back the next eviction candidates, which stay cached and clean, so their
// own evictions write nothing.
TEST_P(HotStateCacheWriteBackTest, EvictionWritesAheadTheNextCandidates) {
  RecordingSink sink;
  // 1000 entries: W-TinyLFU's window holds the next ~10 candidates.
  CacheOptions o = Opts(GetParam(), 1 << 30, 1000);
  o.write_back_batch = 16;
  HotStateCache c(o, &sink);
  const std::string v(40, 'v');
  int n = 0;
  while (sink.out.empty()) {
    ASSERT_EQ(*c.Put(0, "key" + std::to_string(n++), v), WriteOutcome::kCached);
  }
  // One eviction: its victim plus 15 entries written ahead, in one sink call.
  ASSERT_EQ(sink.batch_sizes.size(), 1u);
  EXPECT_EQ(sink.out.size(), 16u);
  EXPECT_EQ(c.Stats(0).evictions, 1u);
  EXPECT_EQ(c.Stats(0).dirty_writebacks, 16u);
  EXPECT_EQ(c.entries(), 1000u);
  EXPECT_EQ(c.Stats(0).dirty_entries, 1000u - 15u);
  // The written-ahead entries are still cached, with their values.
  size_t cached_and_written = 0;
  for (const Written& w : sink.out) {
    GetResult g = c.Get(0, w.key);
    if (g.kind == Lookup::kHit) {
      EXPECT_EQ(g.value(), v);
      ++cached_and_written;
    }
  }
  EXPECT_EQ(cached_and_written, 15u);
  // More inserts: at most one write per 16 evictions (plus the rounds that
  // found fewer dirty candidates), and every record is a distinct key.
  for (int i = 0; i < 4000; ++i) {
    ASSERT_EQ(*c.Put(0, "key" + std::to_string(n++), v), WriteOutcome::kCached);
  }
  const uint64_t evictions = c.Stats(0).evictions;
  EXPECT_LT(sink.batch_sizes.size(), evictions / 4);
  // Whatever is not cached was written back, and nothing twice unless it
  // was written again: flush and check every key once.
  ASSERT_TRUE(c.FlushAll().ok());
  std::vector<int> seen(n, 0);
  for (const Written& w : sink.out) seen[std::stoi(w.key.substr(3))] += 1;
  for (int i = 0; i < n; ++i) EXPECT_EQ(seen[i], 1) << i;
  EXPECT_EQ(c.Stats(0).dirty_entries, 0u);
}

// A failed write-back leaves the written-ahead entries dirty (still cached,
// flushed later), and the evicted victim's error reaches the caller.
TEST_P(HotStateCacheWriteBackTest, FailedWriteAheadKeepsEntriesDirty) {
  RecordingSink sink;
  CacheOptions o = Opts(GetParam(), 1 << 20, 50);
  o.write_back_batch = 8;
  HotStateCache c(o, &sink);
  int n = 0;
  for (; n < 50; ++n)
    ASSERT_TRUE(c.Put(0, "key" + std::to_string(n), "v").ok());
  sink.fail = true;
  EXPECT_FALSE(c.Put(0, "key" + std::to_string(n++), "v").ok());
  EXPECT_EQ(c.Stats(0).dirty_entries, 50u);
  EXPECT_EQ(c.Stats(0).dirty_writebacks, 0u);
  sink.fail = false;
  sink.out.clear();
  ASSERT_TRUE(c.FlushAll().ok());
  EXPECT_EQ(sink.out.size(), 50u);
}

// A key the caller found absent in RocksDB (FillAbsent) and that was never
// written back since needs no tombstone when it is removed; every other
// removal writes one.
TEST_P(HotStateCacheWriteBackTest, RemovingAKeyRocksDbNeverGotWritesNothing) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  auto written = [&](const std::string& key) {
    int n = 0;
    for (const Written& w : sink.out) n += w.key == key ? 1 : 0;
    return n;
  };
  // Born absent, put, grown past its block (relocated), removed: nothing.
  ASSERT_EQ(*c.FillAbsent(0, "window"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Put(0, "window", "acc"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Put(0, "window", std::string(500, 'a')), WriteOutcome::kCached);
  EXPECT_EQ(c.Stats(0).dirty_entries, 1u);
  ASSERT_EQ(*c.Remove(0, "window"), WriteOutcome::kCached);
  EXPECT_EQ(c.Stats(0).dirty_entries, 0u);
  EXPECT_EQ(c.Get(0, "window").kind, Lookup::kAbsent);
  // Put again after the removal: still only in the cache, written once.
  ASSERT_EQ(*c.Put(0, "window", "again"), WriteOutcome::kCached);
  // Born absent, put, flushed (now in RocksDB), removed: one tombstone.
  ASSERT_EQ(*c.FillAbsent(0, "flushed"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Put(0, "flushed", "v"), WriteOutcome::kCached);
  ASSERT_TRUE(c.FlushAll().ok());
  EXPECT_EQ(written("window"), 1);
  EXPECT_EQ(written("flushed"), 1);
  for (const Written& w : sink.out) {
    EXPECT_FALSE(w.is_delete) << w.key;
    EXPECT_EQ(w.value, w.key == "window" ? "again" : "v") << w.key;
  }
  ASSERT_EQ(*c.Remove(0, "flushed"), WriteOutcome::kCached);
  // A blind removal (the cache knows nothing of the key) and the removal of
  // a value read from RocksDB: tombstones.
  ASSERT_EQ(*c.Remove(0, "blind"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Fill(0, "from-db", "v"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Remove(0, "from-db"), WriteOutcome::kCached);
  // And a blind put then removal: the put may have overwritten a RocksDB value.
  ASSERT_EQ(*c.Put(0, "blind-put", "v"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Remove(0, "blind-put"), WriteOutcome::kCached);
  const size_t before = sink.out.size();
  ASSERT_TRUE(c.FlushAll().ok());
  ASSERT_EQ(sink.out.size(), before + 4);
  for (size_t i = before; i < sink.out.size(); ++i)
    EXPECT_TRUE(sink.out[i].is_delete);
  EXPECT_EQ(written("flushed"), 2);
  EXPECT_EQ(written("blind"), 1);
  EXPECT_EQ(written("from-db"), 1);
  EXPECT_EQ(written("blind-put"), 1);
  EXPECT_EQ(written("window"), 1);
}

// RemoveNotInDb: the caller knows RocksDB lacks the key, so a dirty entry is
// dropped unwritten, a clean one dropped, an unknown key left uncached; the
// other entries and their write-backs are untouched.
TEST_P(HotStateCacheWriteBackTest, RemoveNotInDbDropsTheEntryAndWritesNothing) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  ASSERT_EQ(*c.Put(0, "dirty", "acc"), WriteOutcome::kCached);
  ASSERT_EQ(*c.FillAbsent(0, "absent"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Put(0, "kept", "k"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Put(1, "dirty", "other state"), WriteOutcome::kCached);
  EXPECT_EQ(c.Stats(0).dirty_entries, 2u);
  ASSERT_EQ(*c.RemoveNotInDb(0, "dirty"), WriteOutcome::kCached);
  ASSERT_EQ(*c.RemoveNotInDb(0, "absent"), WriteOutcome::kCached);
  ASSERT_EQ(*c.RemoveNotInDb(0, "unknown"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(0, "dirty").kind, Lookup::kMiss);
  EXPECT_EQ(c.Get(0, "absent").kind, Lookup::kMiss);
  EXPECT_EQ(c.Get(0, "unknown").kind, Lookup::kMiss);
  EXPECT_EQ(c.Stats(0).entries, 1u);
  EXPECT_EQ(c.Stats(0).dirty_entries, 1u);
  EXPECT_EQ(c.Stats(0).removes, 3u);
  ASSERT_TRUE(c.FlushAll().ok());
  ASSERT_EQ(sink.out.size(), 2u);
  for (const Written& w : sink.out) {
    EXPECT_FALSE(w.is_delete) << w.key;
    EXPECT_EQ(w.value, w.key == "kept" ? "k" : "other state") << w.key;
  }
}

TEST_P(HotStateCacheWriteBackTest, FlushIsSortedPerStateAndLeavesClean) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  std::vector<std::string> keys = {"b",  "a", std::string("\xff", 1),
                                   "ab", "",  std::string("\x00\x01", 2),
                                   "ba"};
  for (uint32_t s : {7u, 3u}) {
    for (const auto& k : keys) ASSERT_TRUE(c.Put(s, k, "v" + k).ok());
  }
  ASSERT_TRUE(c.Remove(3, "zz").ok());
  ASSERT_TRUE(c.Flush(7).ok());
  ASSERT_EQ(sink.out.size(), keys.size());
  for (size_t i = 1; i < sink.out.size(); ++i) {
    EXPECT_EQ(sink.out[i].state, 7u);
    EXPECT_LT(sink.out[i - 1].key, sink.out[i].key);  // bytewise
  }
  EXPECT_EQ(c.Stats(7).dirty_entries, 0u);
  EXPECT_EQ(c.Stats(3).dirty_entries, keys.size() + 1);
  sink.out.clear();
  ASSERT_TRUE(c.Put(7, "c", "new").ok());
  ASSERT_TRUE(c.FlushAll().ok());
  ASSERT_EQ(sink.out.size(), keys.size() + 2);
  EXPECT_EQ(sink.out.front().state, 3u);
  EXPECT_EQ(sink.out.back().state, 7u);
  EXPECT_EQ(sink.out.back().key, "c");
  EXPECT_EQ(sink.out[keys.size() - 1].key,
            "zz");  // before "\xff": unsigned bytes
  EXPECT_TRUE(sink.out[keys.size() - 1].is_delete);
  EXPECT_EQ(c.Stats(3).tombstones, 1u);
  sink.out.clear();
  ASSERT_TRUE(c.FlushAll().ok());
  EXPECT_TRUE(sink.out.empty());
  EXPECT_EQ(c.Get(7, "a").value(), "va");  // still cached
}

TEST_P(HotStateCacheWriteBackTest, WriteBackDirtyHonoursTheBound) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(c.Put(0, "k" + std::to_string(i), "value").ok());
  uint64_t all = c.dirty_bytes();
  ASSERT_TRUE(c.WriteBackDirty(all / 2).ok());
  EXPECT_LE(c.dirty_bytes(), all / 2);
  // It stops within one entry of the bound. An entry's charge is what
  // malloc_usable_size reports, which can be one 16-byte granule above
  // ChargeFor when glibc hands out a chunk whose remainder was too small to
  // split (it depends on the heap's state: under ctest, 24 of these 100 entries
  // were).
  EXPECT_GT(c.dirty_bytes(),
            all / 2 - (HotStateCache::ChargeFor(3, 5) + 16) - 1);
  EXPECT_EQ(c.entries(), 100u);
  EXPECT_EQ(sink.out.size(), 100u - c.Stats(0).dirty_entries);
  ASSERT_TRUE(c.WriteBackDirty(0).ok());
  EXPECT_EQ(c.dirty_bytes(), 0u);
  EXPECT_EQ(sink.out.size(), 100u);
}

// Slices ahead of a barrier: each writes back at most its bound, they
// reach every dirty entry once, entries dirtied again are written again, and
// the flush that follows writes only what the slices left.
TEST_P(HotStateCacheWriteBackTest, SlicesReachEveryDirtyEntryOnce) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 30), &sink);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(c.Put(i % 3, "key" + std::to_string(i), "v0").ok());
  }
  // Half of them clean again: slices must not count or write those.
  ASSERT_TRUE(c.Flush(0).ok());
  const size_t flushed = sink.out.size();
  EXPECT_EQ(flushed, 334u);
  std::map<std::string, int> writes;
  size_t slices = 0;
  while (c.dirty_bytes() > 0) {
    const size_t before = sink.out.size();
    ASSERT_TRUE(c.WriteBackSome(50).ok());
    ASSERT_LE(sink.out.size() - before, 50u);
    ASSERT_GT(sink.out.size(), before) << "a slice made no progress";
    ++slices;
  }
  EXPECT_EQ(slices, (1000u - flushed + 49) / 50);
  for (size_t i = flushed; i < sink.out.size(); ++i) {
    EXPECT_NE(sink.out[i].state, 0u);
    ++writes[sink.out[i].key];
  }
  EXPECT_EQ(writes.size(), 1000u - flushed);
  for (const auto& [key, n] : writes) EXPECT_EQ(n, 1) << key;
  // Dirtied again after its slice: written again, by the flush.
  ASSERT_TRUE(c.Put(1, "key1", "v1").ok());
  ASSERT_TRUE(c.Remove(2, "key2").ok());
  const size_t before_flush = sink.out.size();
  ASSERT_TRUE(c.FlushAll().ok());
  ASSERT_EQ(sink.out.size(), before_flush + 2);
  EXPECT_EQ(sink.out[before_flush].key, "key1");
  EXPECT_EQ(sink.out[before_flush].value, "v1");
  EXPECT_TRUE(sink.out[before_flush + 1].is_delete);
  EXPECT_EQ(c.Stats(1).dirty_entries + c.Stats(2).dirty_entries, 0u);
}

// The dirty set follows every way an entry leaves the dirty state: a value
// that grows into a new block, eviction, a dropped state and Clear.
TEST_P(HotStateCacheWriteBackTest, FlushFindsDirtyEntriesAfterMovesAndDrops) {
  RecordingSink sink;
  CacheOptions o = Opts(GetParam(), 64 << 10);
  o.write_back_batch = 0;
  HotStateCache c(o, &sink);
  for (int i = 0; i < 2000; ++i) {
    const std::string key = "key" + std::to_string(i);
    ASSERT_TRUE(c.Put(i % 2, key, "v").ok());
    // A new block for a third of them (the value grows past its block).
    if (i % 3 == 0) {
      ASSERT_TRUE(c.Put(i % 2, key, std::string(300, 'g')).ok());
    }
  }
  ASSERT_GT(c.Stats(0).evictions + c.Stats(1).evictions, 0u);
  c.DropState(1);
  const size_t before = sink.out.size();
  const uint64_t dirty0 = c.Stats(0).dirty_entries;
  ASSERT_TRUE(c.FlushAll().ok());
  EXPECT_EQ(sink.out.size() - before, dirty0);
  for (size_t i = before; i < sink.out.size(); ++i) {
    const int k = std::stoi(sink.out[i].key.substr(3));
    EXPECT_EQ(k % 2, 0);
    EXPECT_EQ(sink.out[i].value.size(), k % 3 == 0 ? 300u : 1u) << k;
  }
  EXPECT_EQ(c.dirty_bytes(), 0u);
  ASSERT_TRUE(c.Put(0, "after-clear", "x").ok());
  c.Clear();
  ASSERT_TRUE(c.WriteBackSome(10).ok());
  ASSERT_TRUE(c.FlushAll().ok());
  EXPECT_EQ(c.dirty_bytes(), 0u);
}

// The dirty set's slots count against the byte capacity: a cache whose
// entries are all dirty holds fewer of them, and stays within its capacity
// with the set included; a flush releases the set.
TEST_P(HotStateCacheWriteBackTest, DirtySetCountsAgainstCapacity) {
  RecordingSink sink;
  CacheOptions o = Opts(GetParam(), 256 << 10);
  o.write_back_batch = 0;
  CacheCore c(o, &sink);
  for (int i = 0; i < 10000; ++i) {
    ASSERT_TRUE(c.Put(0, "key" + std::to_string(i), std::string(40, 'v')).ok());
    ASSERT_LE(c.bytes() + c.dirty_set_bytes(), c.capacity_bytes());
  }
  const uint64_t dirty_entries = c.Stats(0).dirty_entries;
  ASSERT_GT(dirty_entries, 0u);
  // Room for entries is what the capacity leaves after the set's slots.
  const uint64_t per_entry = HotStateCache::ChargeFor(8, 40) + 16;
  EXPECT_LT(c.entries(), c.capacity_bytes() / HotStateCache::ChargeFor(8, 40));
  EXPECT_GT(c.entries(), c.capacity_bytes() / (per_entry + 3 * 8));
  EXPECT_GT(c.dirty_set_bytes(), dirty_entries * 8);
  ASSERT_TRUE(c.FlushAll().ok());
  EXPECT_EQ(c.Stats(0).dirty_entries, 0u);
  EXPECT_EQ(c.dirty_set_bytes(), 0u);
  // A quota far below the set's slots: evicts every entry, then stops.
  ASSERT_TRUE(c.Put(0, "again", "v").ok());
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(c.Put(0, "k" + std::to_string(i), std::string(40, 'v')).ok());
  }
  ASSERT_TRUE(testing_harness::SetCapacity(c, 256, 0).ok());
  EXPECT_EQ(c.entries(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Policies, HotStateCacheWriteBackTest,
                         testing_harness::kPolicies,
                         testing_harness::PolicyName);

}  // namespace
}  // namespace falcon
