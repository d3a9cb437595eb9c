// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/hot_state_cache.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cache/block_arena.h"
#include "cache/bytes.h"
#include "cache/cache_core.h"
#include "cache/frequency_sketch.h"
#include "cache/ghost_filter.h"
#include "cache/policy_tuning.h"
#include "cache_capacity.h"

namespace falcon {
namespace {

using cache_internal::CacheCore;
using testing_harness::SetCapacity;

struct Written {
  uint32_t state;
  std::string key;
  std::string value;
  bool is_delete;
};

class RecordingSink : public WriteBackSink {
 public:
  Status Write(const DirtyEntry* entries, size_t count) override {
    batch_sizes.push_back(count);
    for (size_t i = 0; i < count; ++i) {
      out.push_back({entries[i].state_id, std::string(entries[i].key),
                     std::string(entries[i].value), entries[i].is_delete});
    }
    return fail ? Status::Internal("sink failed") : Status::OK();
  }
  std::vector<Written> out;
  std::vector<size_t> batch_sizes;
  bool fail = false;
};

// What the allocator really hands out for one entry, plus the fixed overhead:
// a block arena's (the cache's default for blocks up to 1 KiB) or malloc's.
uint64_t RealCharge(size_t key, size_t value, bool arena = true) {
  const size_t n = HotStateCache::kEntryHeaderBytes + key + value;
  uint64_t usable;
  if (arena && n <= cache_internal::BlockArena::kMaxBlockBytes) {
    cache_internal::BlockArena a;
    void* p = a.Allocate(n);
    usable = a.used_bytes();
    a.Free(p);
  } else {
    void* p = std::malloc(n);
    usable = malloc_usable_size(p);
    std::free(p);
  }
  return usable + HotStateCache::kEntryOverheadBytes;
}

CacheOptions Opts(CachePolicy p, uint64_t bytes, uint64_t entries = 0) {
  CacheOptions o;
  o.policy = p;
  o.max_bytes = bytes;
  o.max_entries = entries;
  return o;
}

class HotStateCacheTest : public ::testing::TestWithParam<CachePolicy> {};

TEST_P(HotStateCacheTest, PutGetRemoveFill) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  EXPECT_EQ(c.Get(1, "a").kind, Lookup::kMiss);
  ASSERT_EQ(*c.Put(1, "a", "va"), WriteOutcome::kCached);
  GetResult g = c.Get(1, "a");
  ASSERT_EQ(g.kind, Lookup::kHit);
  EXPECT_EQ(g.value(), "va");
  // Same key, other state: distinct.
  EXPECT_EQ(c.Get(2, "a").kind, Lookup::kMiss);
  ASSERT_EQ(*c.Put(1, "a", "second value"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(1, "a").value(), "second value");
  ASSERT_EQ(*c.Remove(1, "a"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(1, "a").kind, Lookup::kAbsent);
  // Fill after a miss is clean; fill does not override a cached (dirty) value.
  ASSERT_EQ(*c.Fill(2, "a", "from-db"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(2, "a").value(), "from-db");
  EXPECT_EQ(c.Stats(2).dirty_entries, 0u);
  ASSERT_EQ(*c.Fill(1, "a", "stale"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(1, "a").kind, Lookup::kAbsent);
  ASSERT_EQ(*c.FillAbsent(3, "gone"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(3, "gone").kind, Lookup::kAbsent);
  EXPECT_EQ(c.dirty_bytes(), c.Stats(1).dirty_bytes);
  EXPECT_TRUE(sink.out.empty());
  ASSERT_TRUE(c.FlushAll().ok());
  ASSERT_EQ(sink.out.size(), 1u);
  EXPECT_TRUE(sink.out[0].is_delete);
  EXPECT_EQ(sink.out[0].key, "a");
  // Flushed tombstones stay cached as clean "known absent".
  EXPECT_EQ(c.Get(1, "a").kind, Lookup::kAbsent);
  EXPECT_EQ(c.dirty_bytes(), 0u);
}

// The inline key compare: every length around its 8/16/32-byte branches, a
// one-bit difference at every position, unaligned buffers of the exact size
// (so ASan sees any read past the key).
// Get remembers the entry it hit so the next write of the same key skips the
// lookup. Every index change in between (an insert that shifts slots, an
// eviction, a relocation to a bigger block, a removal, Clear) must make the
// next access look the key up again and see the right entry.
TEST_P(HotStateCacheTest, ReadModifyWriteSeesEveryIndexChangeInBetween) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  std::vector<std::string> keys;
  for (int i = 0; i < 200; ++i) keys.push_back("key-" + std::to_string(i));
  for (const std::string& k : keys)
    ASSERT_EQ(*c.Put(7, k, "v0:" + k), WriteOutcome::kCached);
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::string& k = keys[i];
      GetResult g = c.Get(7, k);
      ASSERT_EQ(g.kind, Lookup::kHit) << k;
      ASSERT_EQ(g.value(), "v" + std::to_string(round) + ":" + k);
      // In between: insert and remove other keys (Robin Hood shifts), or
      // grow the entry itself (relocation), or touch the same key in
      // another state (same bytes, other entry).
      if (i % 3 == 0) {
        ASSERT_EQ(*c.Put(7, "other-" + std::to_string(i), "x"),
                  WriteOutcome::kCached);
        ASSERT_EQ(*c.Remove(7, "other-" + std::to_string(i)),
                  WriteOutcome::kCached);
        c.DropState(9);
      } else if (i % 3 == 1) {
        ASSERT_EQ(*c.Put(7, k, std::string(300, 'g')), WriteOutcome::kCached);
      } else {
        ASSERT_EQ(*c.Put(8, k, "state 8"), WriteOutcome::kCached);
      }
      ASSERT_EQ(*c.Put(7, k, "v" + std::to_string(round + 1) + ":" + k),
                WriteOutcome::kCached);
      EXPECT_EQ(c.Get(7, k).value(), "v" + std::to_string(round + 1) + ":" + k);
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i % 3 == 2) {
      EXPECT_EQ(c.Get(8, keys[i]).value(), "state 8");
    } else {
      EXPECT_EQ(c.Get(8, keys[i]).kind, Lookup::kMiss);
    }
  }
  // The memo never outlives Clear or the eviction of its entry.
  ASSERT_EQ(c.Get(7, keys[0]).kind, Lookup::kHit);
  c.Clear();
  EXPECT_EQ(c.Get(7, keys[0]).kind, Lookup::kMiss);
  ASSERT_EQ(*c.Put(7, keys[0], "after clear"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(7, keys[0]).value(), "after clear");

  HotStateCache tiny(Opts(GetParam(), 1 << 20, 2), &sink);
  ASSERT_EQ(*tiny.Put(1, "a", "1"), WriteOutcome::kCached);
  ASSERT_EQ(tiny.Get(1, "a").kind, Lookup::kHit);
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(*tiny.Put(1, "filler-" + std::to_string(i), "f"),
              WriteOutcome::kCached);
  }
  const GetResult a = tiny.Get(1, "a");
  if (a.kind == Lookup::kHit) {
    EXPECT_EQ(a.value(), "1");
  } else {
    EXPECT_EQ(a.kind, Lookup::kMiss);
    bool written_back = false;
    for (const Written& w : sink.out)
      written_back |= w.key == "a" && w.value == "1";
    EXPECT_TRUE(written_back);
  }
  EXPECT_LE(tiny.entries(), 2u);
}

TEST(CacheBytes, SameBytesFindsEveryDifference) {
  for (size_t n = 0; n <= 48; ++n) {
    for (size_t offset = 0; offset < 8; offset += 3) {
      std::vector<char> a_buf(offset + n), b_buf(offset + n);
      char* a = a_buf.data() + offset;
      char* b = b_buf.data() + offset;
      for (size_t i = 0; i < n; ++i)
        a[i] = b[i] = static_cast<char>(i * 37 + n);
      ASSERT_TRUE(cache_internal::SameBytes(a, b, n)) << "n=" << n;
      for (size_t i = 0; i < n; ++i) {
        b[i] ^= 0x10;
        EXPECT_FALSE(cache_internal::SameBytes(a, b, n))
            << "n=" << n << " differs at " << i;
        b[i] ^= 0x10;
      }
    }
  }
  EXPECT_TRUE(cache_internal::SameBytes(nullptr, nullptr, 0));
}

// Keys that differ in one byte are distinct entries, at every key length the
// inline compare handles differently.
TEST_P(HotStateCacheTest, KeysDifferingInOneByteAreDistinct) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 64 << 20), &sink);
  std::vector<std::string> keys;
  for (size_t n = 1; n <= 40; ++n) {
    std::string base(n, 'k');
    keys.push_back(base);
    for (size_t i = 0; i < n; ++i) {
      std::string k = base;
      k[i] = 'x';
      keys.push_back(k);
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(*c.Put(7, keys[i], std::to_string(i)), WriteOutcome::kCached);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    GetResult g = c.Get(7, keys[i]);
    ASSERT_EQ(g.kind, Lookup::kHit) << keys[i];
    EXPECT_EQ(g.value(), std::to_string(i)) << keys[i];
  }
}

TEST_P(HotStateCacheTest, EmptyKeysAndValues) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  ASSERT_EQ(*c.Put(0, "", ""), WriteOutcome::kCached);
  GetResult g = c.Get(0, "");
  ASSERT_EQ(g.kind, Lookup::kHit);
  EXPECT_EQ(g.size, 0u);
  ASSERT_EQ(*c.Put(0, std::string_view(), "x"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(0, std::string_view()).value(), "x");
  ASSERT_TRUE(c.FlushAll().ok());
  ASSERT_EQ(sink.out.size(), 1u);
  EXPECT_EQ(sink.out[0].key, "");
  EXPECT_EQ(sink.out[0].value, "x");
  EXPECT_FALSE(sink.out[0].is_delete);
}

TEST_P(HotStateCacheTest, OneMiBValues) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 4u << 20), &sink);
  std::string big(1 << 20, 'b');
  for (int i = 0; i < 8; ++i) {
    big[0] = static_cast<char>('0' + i);
    ASSERT_EQ(*c.Put(0, "big" + std::to_string(i), big), WriteOutcome::kCached);
    ASSERT_LE(c.bytes(), c.capacity_bytes());
  }
  EXPECT_LE(c.entries(), 3u);
  EXPECT_GE(sink.out.size(), 5u);  // dirty victims were written back whole
  for (const Written& w : sink.out) EXPECT_EQ(w.value.size(), 1u << 20);
  // Larger than the whole quota: not cached, and an older cached version of
  // the key is discarded (the caller writes the new one through).
  HotStateCache small(Opts(GetParam(), 512 << 10), &sink);
  ASSERT_EQ(*small.Put(0, "k", "old"), WriteOutcome::kCached);
  ASSERT_EQ(*small.Put(0, "k", big), WriteOutcome::kNotCached);
  EXPECT_EQ(small.Get(0, "k").kind, Lookup::kMiss);
  EXPECT_EQ(small.entries(), 0u);
  EXPECT_EQ(*small.Fill(0, "k", big), WriteOutcome::kNotCached);
  // Past kMaxValueBytes (8 MiB - 1, the header's 23-bit length): not cached
  // even when the quota would hold it.
  HotStateCache roomy(Opts(GetParam(), 64u << 20), &sink);
  std::string huge(HotStateCache::kMaxValueBytes + 1, 'h');
  ASSERT_EQ(*roomy.Put(0, "k", "old"), WriteOutcome::kCached);
  ASSERT_EQ(*roomy.Put(0, "k", huge), WriteOutcome::kNotCached);
  EXPECT_EQ(roomy.Get(0, "k").kind, Lookup::kMiss);
  huge.pop_back();
  ASSERT_EQ(*roomy.Put(0, "k", huge), WriteOutcome::kCached);
  GetResult r = roomy.Get(0, "k");
  ASSERT_EQ(r.kind, Lookup::kHit);
  EXPECT_EQ(r.size, HotStateCache::kMaxValueBytes);
}

// Updates that change a value's size move the entry between size classes
// and between the arena (blocks up to 1 KiB) and malloc; a block shrunk in
// place stays with its allocator. Every charge must come back out exactly:
// after all entries are gone, bytes and dirty bytes are zero, and at every
// step the per-state figures add up to the totals.
TEST_P(HotStateCacheTest, ResizedValuesKeepTheAccountingExact) {
  for (bool arena : {true, false}) {
    SCOPED_TRACE(arena ? "arena" : "malloc");
    RecordingSink sink;
    CacheOptions o = Opts(GetParam(), 256 << 10);
    o.block_arena = arena;
    HotStateCache c(o, &sink);
    std::mt19937_64 rng(11);
    std::map<std::string, std::string> model;
    for (int step = 0; step < 20000; ++step) {
      const uint32_t state = static_cast<uint32_t>(rng() % 3);
      std::string key = "k" + std::to_string(rng() % 300);
      // Mostly small, sometimes past the arena's 1 KiB, sometimes tiny.
      const size_t len = rng() % 4 == 0 ? 900 + rng() % 2000 : rng() % 200;
      const int op = static_cast<int>(rng() % 10);
      if (op < 6) {
        std::string v(len, static_cast<char>('a' + step % 26));
        ASSERT_TRUE(c.Put(state, key, v).ok());
        model[std::to_string(state) + "/" + key] = v;
      } else if (op < 7) {
        ASSERT_TRUE(c.Remove(state, key).ok());
        model.erase(std::to_string(state) + "/" + key);
      } else if (op < 9) {
        GetResult r = c.Get(state, key);
        auto it = model.find(std::to_string(state) + "/" + key);
        if (r.kind == Lookup::kHit) {
          ASSERT_NE(it, model.end());
          ASSERT_EQ(r.value(), it->second);
        }
      } else {
        ASSERT_TRUE(c.WriteBackDirty(c.dirty_bytes() / 2).ok());
      }
      ASSERT_LE(c.bytes(), c.capacity_bytes());
      if (step % 97 == 0) {
        const CacheStats t = c.TotalStats();
        ASSERT_EQ(t.bytes, c.bytes());
        ASSERT_EQ(t.dirty_bytes, c.dirty_bytes());
        ASSERT_EQ(t.entries, c.entries());
        ASSERT_GE(c.bytes(), c.entries() * HotStateCache::ChargeFor(0, 0));
      }
    }
    ASSERT_TRUE(c.FlushAll().ok());
    EXPECT_EQ(c.dirty_bytes(), 0u);
    c.DropState(0);
    c.DropState(1);
    c.DropState(2);
    EXPECT_EQ(c.entries(), 0u);
    EXPECT_EQ(c.bytes(), 0u);
    EXPECT_EQ(c.TotalStats().bytes, 0u);
  }
}

TEST_P(HotStateCacheTest, QuotaZero) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 0), &sink);
  EXPECT_EQ(*c.Put(0, "k", "v"), WriteOutcome::kNotCached);
  EXPECT_EQ(*c.Remove(0, "k"), WriteOutcome::kNotCached);
  EXPECT_EQ(*c.Fill(0, "k", "v"), WriteOutcome::kNotCached);
  EXPECT_EQ(c.Get(0, "k").kind, Lookup::kMiss);
  EXPECT_EQ(c.entries(), 0u);
  EXPECT_EQ(c.Stats(0).not_cached, 3u);
}

TEST_P(HotStateCacheTest, QuotaShrinkWhileFullEvictsDirtyToSink) {
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
TEST_P(HotStateCacheTest, EvictionWritesAheadTheNextCandidates) {
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
TEST_P(HotStateCacheTest, FailedWriteAheadKeepsEntriesDirty) {
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
TEST_P(HotStateCacheTest, RemovingAKeyRocksDbNeverGotWritesNothing) {
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

TEST_P(HotStateCacheTest, FlushIsSortedPerStateAndLeavesClean) {
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

TEST_P(HotStateCacheTest, WriteBackDirtyHonoursTheBound) {
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

TEST_P(HotStateCacheTest, DropStateAndClear) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(c.Put(1, "k" + std::to_string(i), "one").ok());
    ASSERT_TRUE(c.Put(2, "k" + std::to_string(i), "two").ok());
  }
  c.DropState(1);
  EXPECT_EQ(c.Stats(1).entries, 0u);
  EXPECT_EQ(c.Stats(1).bytes, 0u);
  EXPECT_EQ(c.Get(1, "k3").kind, Lookup::kMiss);
  EXPECT_EQ(c.Get(2, "k3").value(), "two");
  EXPECT_EQ(c.entries(), 50u);
  EXPECT_TRUE(sink.out.empty());  // dropped, not written back
  c.Clear();
  EXPECT_EQ(c.entries(), 0u);
  EXPECT_EQ(c.bytes(), 0u);
  EXPECT_EQ(c.dirty_bytes(), 0u);
  EXPECT_EQ(c.Get(2, "k3").kind, Lookup::kMiss);
  EXPECT_TRUE(sink.out.empty());
  // Usable again after clear.
  ASSERT_TRUE(c.Put(2, "k3", "again").ok());
  EXPECT_EQ(c.Get(2, "k3").value(), "again");
  EXPECT_EQ(c.Stats(2).puts, 51u);
}

TEST_P(HotStateCacheTest, Statistics) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  ASSERT_TRUE(c.Put(4, "a", "1").ok());
  ASSERT_TRUE(c.Remove(4, "b").ok());
  ASSERT_TRUE(c.Fill(4, "c", "3").ok());
  (void)c.Get(4, "a");
  (void)c.Get(4, "b");
  (void)c.Get(4, "x");
  CacheStats s = c.Stats(4);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.absent_hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.puts, 1u);
  EXPECT_EQ(s.removes, 1u);
  EXPECT_EQ(s.fills, 1u);
  EXPECT_EQ(s.entries, 3u);
  EXPECT_EQ(s.dirty_entries, 2u);
  EXPECT_EQ(s.bytes, RealCharge(1, 1) * 2 + RealCharge(1, 0));
  EXPECT_EQ(s.bytes, c.bytes());
  EXPECT_FALSE(s.bypassed_now);
  EXPECT_EQ(c.Stats(99).entries, 0u);
  CacheStats t = c.TotalStats();
  EXPECT_EQ(t.entries, 3u);
  EXPECT_EQ(t.hits, 1u);
}

TEST_P(HotStateCacheTest, InvalidArguments) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  EXPECT_FALSE(c.Put(HotStateCache::kMaxStates, "k", "v").ok());
  EXPECT_FALSE(c.Flush(HotStateCache::kMaxStates).ok());
  EXPECT_EQ(c.Get(HotStateCache::kMaxStates, "k").kind, Lookup::kBypass);
  std::string long_key(HotStateCache::kMaxKeyBytes + 1, 'k');
  EXPECT_EQ(c.Get(0, long_key).kind, Lookup::kBypass);
  EXPECT_EQ(*c.Put(0, long_key, "v"), WriteOutcome::kNotCached);
  std::string max_key(HotStateCache::kMaxKeyBytes, 'k');
  EXPECT_EQ(*c.Put(0, max_key, "v"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(0, max_key).value(), "v");
}

TEST_P(HotStateCacheTest, SinkErrorIsReturned) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 4096), &sink);
  sink.fail = true;
  Status last;
  for (int i = 0; i < 100 && last.ok(); ++i) {
    auto r = c.Put(0, "k" + std::to_string(i), std::string(100, 'v'));
    if (!r.ok()) last = r.status();
  }
  EXPECT_EQ(last.code(), Status::Code::kInternal);
  EXPECT_LE(c.bytes(), c.capacity_bytes());
}

TEST_P(HotStateCacheTest, AccountingMatchesTheAllocator) {
  for (bool arena : {true, false}) {
    SCOPED_TRACE(arena ? "arena" : "malloc");
    RecordingSink sink;
    CacheOptions o = Opts(GetParam(), 64 << 20);
    o.block_arena = arena;
    HotStateCache c(o, &sink);
    for (int i = 0; i < 20000; ++i) {
      std::string key(16, 'k');
      std::memcpy(&key[0], &i, sizeof(i));
      ASSERT_TRUE(c.Put(0, key, std::string(64, 'v')).ok());
    }
    // Charged = usable(24 + key + value) + 24 (= key + value + 48 for this
    // size). The arena hands out exactly the rounded size; glibc may hand out
    // a slightly larger chunk than asked, which is charged too.
    EXPECT_GE(c.bytes(), 20000u * RealCharge(16, 64, arena));
    EXPECT_LE(c.bytes(),
              20000u * (RealCharge(16, 64, arena) + (arena ? 0 : 16)));
    if (arena) {
      EXPECT_EQ(c.bytes(), 20000u * HotStateCache::ChargeFor(16, 64));
      EXPECT_EQ(HotStateCache::ChargeFor(16, 64), 16u + 64u + 48u);
    }
    uint64_t blocks = c.bytes() - 20000u * HotStateCache::kEntryOverheadBytes;
    // Index slots and sketch together stay within the 24 bytes charged. What
    // the arena holds beyond its blocks (a 64 MiB cache: 2 MiB huge-page
    // chunks) is at most one chunk and the slab in use.
    const uint64_t arena_slack =
        arena ? cache_internal::BlockArena::kChunkBytes +
                    cache_internal::BlockArena::kSlabBytes
              : 0;
    EXPECT_LE(
        c.AllocatedBytes() - blocks,
        20000u * HotStateCache::kEntryOverheadBytes + (1u << 15) + arena_slack);
    EXPECT_GE(c.AllocatedBytes(), blocks);
  }
}

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

TEST(HotStateCacheBypass, EntersProbesAndLeaves) {
  RecordingSink sink;
  CacheOptions o = Opts(CachePolicy::kWTinyLfu, 1 << 20);
  o.bypass_threshold = 0.3;
  o.bypass_window = 100;
  o.bypass_enter_windows = 2;
  o.bypass_probe_interval = 500;
  HotStateCache c(o, &sink);
  ASSERT_TRUE(c.Put(1, "kept", "dirty").ok());
  // All misses: after two windows the state is bypassed.
  int i = 0;
  for (; i < 200; ++i) {
    std::string k = "miss" + std::to_string(i);
    ASSERT_EQ(c.Get(1, k).kind, Lookup::kMiss) << i;
  }
  EXPECT_TRUE(c.IsBypassed(1));
  EXPECT_EQ(c.Stats(1).bypass_entered, 1u);
  EXPECT_FALSE(c.IsBypassed(2));
  // Bypassed: unknown keys answer kBypass, writes of unknown keys are not
  // cached, fills are refused; cached keys are still served and updated.
  EXPECT_EQ(c.Get(1, "other").kind, Lookup::kBypass);
  EXPECT_EQ(*c.Put(1, "new", "v"), WriteOutcome::kNotCached);
  EXPECT_EQ(*c.Remove(1, "new"), WriteOutcome::kNotCached);
  EXPECT_EQ(*c.Fill(1, "other", "v"), WriteOutcome::kNotCached);
  EXPECT_EQ(c.Get(1, "kept").value(), "dirty");
  EXPECT_EQ(*c.Put(1, "kept", "dirty2"), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(1, "kept").value(), "dirty2");
  // After the probe interval the state is probed (cached again); a window of
  // hits keeps it cached.
  for (int j = 0; j < 500 && c.IsBypassed(1); ++j)
    (void)c.Get(1, "x" + std::to_string(j));
  EXPECT_FALSE(c.IsBypassed(1));
  for (int j = 0; j < 100; ++j) EXPECT_EQ(c.Get(1, "kept").kind, Lookup::kHit);
  EXPECT_FALSE(c.IsBypassed(1));
  EXPECT_GT(c.Stats(1).window_hit_ratio, 0.9);
  // Two low windows bypass it again; a failed probe goes back to bypass after
  // one window, with a doubled interval.
  for (int j = 0; j < 200; ++j) (void)c.Get(1, "y" + std::to_string(j));
  EXPECT_TRUE(c.IsBypassed(1));
  for (int j = 0; j < 499; ++j) (void)c.Get(1, "z" + std::to_string(j));
  EXPECT_TRUE(c.IsBypassed(1));
  (void)c.Get(1, "z");
  EXPECT_FALSE(c.IsBypassed(1));  // probing again after exactly 500 gets
  for (int j = 0; j < 100; ++j) (void)c.Get(1, "w" + std::to_string(j));
  EXPECT_TRUE(c.IsBypassed(1));  // probe failed
  for (int j = 0; j < 600; ++j) (void)c.Get(1, "v" + std::to_string(j));
  EXPECT_TRUE(c.IsBypassed(1));  // interval doubled to 1000
  EXPECT_EQ(c.Stats(1).bypass_entered, 3u);
}

TEST(HotStateCacheBypass, OffByDefault) {
  RecordingSink sink;
  HotStateCache c(Opts(CachePolicy::kWTinyLfu, 1 << 20), &sink);
  for (int i = 0; i < 100000; ++i) (void)c.Get(0, std::to_string(i));
  EXPECT_FALSE(c.IsBypassed(0));
}

INSTANTIATE_TEST_SUITE_P(Policies, HotStateCacheTest,
                         ::testing::Values(CachePolicy::kWTinyLfu,
                                           CachePolicy::kLru),
                         [](const ::testing::TestParamInfo<CachePolicy>& p) {
                           return p.param == CachePolicy::kLru ? "Lru"
                                                               : "WTinyLfu";
                         });

}  // namespace
}  // namespace falcon
