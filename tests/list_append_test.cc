// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// HotStateCache::Append, the ListState path: a cached list grows by one
// element after the delimiter, a miss changes nothing, and a list grown past
// what the cache may hold leaves it through the sink. The model test runs the
// caller's side too (a miss or a list that left is merged into a model of
// RocksDB, as Java merges into RocksDB) and compares what RocksDB would hold.

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "cache_policies.h"
#include "falcon/hot_state_cache.h"
#include "recording_sink.h"

namespace falcon {
namespace {

using testing_harness::Opts;
using testing_harness::RecordingSink;

constexpr size_t kNoCap = HotStateCache::kMaxValueBytes;

class ListAppendTest : public ::testing::TestWithParam<CachePolicy> {};

TEST_P(ListAppendTest, AppendsOnlyToCachedLists) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  // A miss: nothing is cached, the caller merges into RocksDB.
  EXPECT_EQ(*c.Append(1, "k", "e1", ',', kNoCap), WriteOutcome::kNotCached);
  EXPECT_EQ(c.Get(1, "k").kind, Lookup::kMiss);
  EXPECT_EQ(c.entries(), 0u);

  ASSERT_EQ(*c.Put(1, "k", "e1"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Append(1, "k", "e2", ',', kNoCap), WriteOutcome::kCached);
  ASSERT_EQ(*c.Append(1, "k", "", ',', kNoCap), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(1, "k").value(), "e1,e2,");
  // Onto a dirty tombstone (a cleared list): the element is the whole list.
  ASSERT_EQ(*c.Remove(1, "k"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Append(1, "k", "e3", ',', kNoCap), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(1, "k").value(), "e3");
  // An empty element is an element: present, zero bytes.
  ASSERT_EQ(*c.FillAbsent(2, "empty"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Append(2, "empty", "", ',', kNoCap), WriteOutcome::kCached);
  GetResult g = c.Get(2, "empty");
  ASSERT_EQ(g.kind, Lookup::kHit);
  EXPECT_EQ(g.size, 0u);
  ASSERT_TRUE(c.FlushAll().ok());
  ASSERT_EQ(sink.out.size(), 2u);
  EXPECT_EQ(sink.out[0].value, "e3");
  EXPECT_FALSE(sink.out[1].is_delete);
  EXPECT_EQ(sink.out[1].value, "");
  EXPECT_EQ(c.dirty_bytes(), 0u);
}

TEST_P(ListAppendTest, ListNeverInRocksDbClearsWithoutATombstone) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  ASSERT_EQ(*c.FillAbsent(1, "w"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Append(1, "w", "a", ',', kNoCap), WriteOutcome::kCached);
  ASSERT_EQ(*c.Append(1, "w", "b", ',', kNoCap), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(1, "w").value(), "a,b");
  // Still never written back: the clear leaves a clean "absent".
  ASSERT_EQ(*c.Remove(1, "w"), WriteOutcome::kCached);
  EXPECT_EQ(c.dirty_bytes(), 0u);
  ASSERT_TRUE(c.FlushAll().ok());
  EXPECT_TRUE(sink.out.empty());
}

TEST_P(ListAppendTest, ListOutgrowingTheCacheLeavesThroughTheSink) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 4096), &sink);
  ASSERT_EQ(*c.Put(1, "big", "x"), WriteOutcome::kCached);
  std::string expected = "x";
  const std::string element(200, 'e');
  WriteOutcome last = WriteOutcome::kCached;
  int appended = 0;
  while (last == WriteOutcome::kCached) {
    last = *c.Append(1, "big", element, ',', kNoCap);
    if (last == WriteOutcome::kCached) {
      expected += "," + element;
      ++appended;
    }
    ASSERT_LE(c.bytes(), c.capacity_bytes());
  }
  EXPECT_GT(appended, 5);
  // The dirty list reached the sink before the call returned; the caller's
  // merge comes after it.
  ASSERT_EQ(sink.out.size(), 1u);
  EXPECT_EQ(sink.out[0].key, "big");
  EXPECT_EQ(sink.out[0].value, expected);
  EXPECT_EQ(c.Get(1, "big").kind, Lookup::kMiss);
  EXPECT_EQ(c.dirty_bytes(), 0u);
}

// One append that alone takes the list past the cache's capacity: the list
// is not grown, it leaves (dirty: through the sink) and the caller merges.
TEST_P(ListAppendTest, AppendPastTheCapacityLeavesTheListUngrown) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 4096), &sink);
  const std::string list(2500, 'l');
  ASSERT_EQ(*c.Put(1, "k", list), WriteOutcome::kCached);
  ASSERT_EQ(*c.Append(1, "k", std::string(1700, 'e'), ',', kNoCap),
            WriteOutcome::kNotCached);
  ASSERT_EQ(sink.out.size(), 1u);
  EXPECT_EQ(sink.out[0].value, list);
  EXPECT_EQ(c.entries(), 0u);
  // Not a quota eviction: the lease must not see a cache short of memory.
  EXPECT_EQ(c.Stats(1).evictions, 0u);
  // Clean, it leaves without a write.
  ASSERT_EQ(*c.Fill(1, "k", list), WriteOutcome::kCached);
  ASSERT_EQ(*c.Append(1, "k", std::string(1700, 'e'), ',', kNoCap),
            WriteOutcome::kNotCached);
  EXPECT_EQ(sink.out.size(), 1u);
  EXPECT_EQ(c.entries(), 0u);
}

// A list longer than the caller's bound leaves the cache like one that
// outgrows it: the append that would pass the bound is the caller's merge.
TEST_P(ListAppendTest, ListPastItsBoundLeaves) {
  RecordingSink sink;
  HotStateCache c(Opts(GetParam(), 1 << 20), &sink);
  ASSERT_EQ(*c.Put(1, "k", "0123456789"), WriteOutcome::kCached);
  ASSERT_EQ(*c.Append(1, "k", "abcd", ',', 15), WriteOutcome::kCached);
  EXPECT_EQ(c.Get(1, "k").value(), "0123456789,abcd");
  ASSERT_EQ(*c.Append(1, "k", "e", ',', 16), WriteOutcome::kNotCached);
  ASSERT_EQ(sink.out.size(), 1u);
  EXPECT_EQ(sink.out[0].value, "0123456789,abcd");
  EXPECT_EQ(c.Get(1, "k").kind, Lookup::kMiss);
}

// Lists appended to, read, replaced and cleared at random, in a cache small
// enough to evict; a miss reads the model of RocksDB and fills. What the
// sink writes plus the caller's merges must leave RocksDB holding exactly
// the lists a plain model holds, and every read must see the model's list.
TEST_P(ListAppendTest, MatchesAModelOfRocksDb) {
  for (bool arena : {true, false}) {
    SCOPED_TRACE(arena ? "arena" : "malloc");
    RecordingSink sink;
    CacheOptions o = Opts(GetParam(), 48 << 10);
    o.block_arena = arena;
    HotStateCache c(o, &sink);
    std::map<std::string, std::string> model;  // key -> list bytes
    std::map<std::string, std::string> db;
    size_t applied = 0;
    auto apply_sink = [&] {
      for (; applied < sink.out.size(); ++applied) {
        const auto& w = sink.out[applied];
        if (w.is_delete) {
          db.erase(w.key);
        } else {
          db[w.key] = w.value;
        }
      }
    };
    auto merge = [](std::map<std::string, std::string>& m, const std::string& k,
                    const std::string& e) {
      auto it = m.find(k);
      if (it == m.end()) {
        m[k] = e;
      } else {
        it->second += "," + e;
      }
    };
    std::mt19937_64 rng(7);
    for (int step = 0; step < 40000; ++step) {
      const std::string key = "list" + std::to_string(rng() % 200);
      const int op = static_cast<int>(rng() % 10);
      if (op < 6) {
        const size_t len = rng() % 8 == 0 ? 300 + rng() % 900 : rng() % 40;
        const std::string e(len, static_cast<char>('a' + step % 26));
        Result<WriteOutcome> r = c.Append(0, key, e, ',', 6000);
        ASSERT_TRUE(r.ok());
        apply_sink();
        if (*r == WriteOutcome::kNotCached) merge(db, key, e);
        merge(model, key, e);
      } else if (op < 8) {
        GetResult g = c.Get(0, key);
        auto it = model.find(key);
        if (g.kind == Lookup::kMiss) {
          auto in_db = db.find(key);
          Result<WriteOutcome> r = in_db == db.end()
                                       ? c.FillAbsent(0, key)
                                       : c.Fill(0, key, in_db->second);
          ASSERT_TRUE(r.ok());
          apply_sink();
          ASSERT_EQ(in_db == db.end(), it == model.end());
          if (it != model.end()) ASSERT_EQ(in_db->second, it->second);
        } else if (g.kind == Lookup::kAbsent) {
          ASSERT_EQ(it, model.end());
        } else {
          ASSERT_NE(it, model.end());
          ASSERT_EQ(g.value(), it->second);
        }
      } else if (op < 9) {
        ASSERT_TRUE(c.Remove(0, key).ok());
        apply_sink();
        model.erase(key);
      } else {
        ASSERT_TRUE(c.WriteBackDirty(c.dirty_bytes() / 2).ok());
        apply_sink();
      }
      ASSERT_LE(c.bytes(), c.capacity_bytes());
      if (step % 101 == 0) {
        const CacheStats t = c.TotalStats();
        ASSERT_EQ(t.bytes, c.bytes());
        ASSERT_EQ(t.dirty_bytes, c.dirty_bytes());
      }
    }
    ASSERT_TRUE(c.FlushAll().ok());
    apply_sink();
    EXPECT_EQ(db, model);
    EXPECT_GT(c.Stats(0).evictions, 0u);
    c.DropState(0);
    EXPECT_EQ(c.bytes(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, ListAppendTest, testing_harness::kPolicies,
                         testing_harness::PolicyName);

}  // namespace
}  // namespace falcon
