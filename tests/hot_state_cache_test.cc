// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/hot_state_cache.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cache/block_arena.h"
#include "cache/bytes.h"
#include "cache/cache_core.h"
#include "cache_capacity.h"
#include "cache_policies.h"
#include "recording_sink.h"

namespace falcon {
namespace {

using cache_internal::CacheCore;
using testing_harness::Opts;
using testing_harness::RecordingSink;
using testing_harness::SetCapacity;
using testing_harness::Written;

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
    // Every entry is dirty: the dirty set's slots (at most 32 KiB slots for
    // 20,000 entries) are allocated too, until a flush releases them.
    EXPECT_LE(c.AllocatedBytes(),
              c.bytes() + 32768u * 8 + (1u << 15) +
                  (arena ? cache_internal::BlockArena::kChunkBytes +
                               cache_internal::BlockArena::kSlabBytes
                         : 0) +
                  20000u * 24);
    ASSERT_TRUE(c.FlushAll().ok());
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

INSTANTIATE_TEST_SUITE_P(Policies, HotStateCacheTest,
                         testing_harness::kPolicies,
                         testing_harness::PolicyName);

}  // namespace
}  // namespace falcon
