// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// MapCache: complete maps, in-place and rebuilt writes, tombstones, partial
// bodies of maps over the cap, write-back on flush and eviction, scans, and a
// randomized differential run against a model map and a fake RocksDB fed by
// the sink.

#include "falcon/map_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "falcon/hot_state_cache.h"

namespace falcon {
namespace {

// RocksDB as the sink leaves it: full key -> value.
class DbSink : public WriteBackSink {
 public:
  Status Write(const DirtyEntry* entries, size_t count) override {
    if (count == 0 || count > HotStateCache::kMaxBatch) {
      return Status::Internal("bad batch size");
    }
    for (size_t i = 0; i < count; ++i) {
      const DirtyEntry& e = entries[i];
      log.push_back((e.is_delete ? "-" : "+") + std::string(e.key));
      prefix_lengths.push_back(e.prefix_length);
      if (e.is_delete) {
        db.erase(std::string(e.key));
      } else {
        db[std::string(e.key)] = std::string(e.value);
      }
    }
    return Status::OK();
  }
  std::map<std::string, std::string>
      db;  // std::string orders as unsigned bytes
  std::vector<std::string> log;
  std::vector<uint32_t> prefix_lengths;  // per log line
};

std::string Packed(const std::map<std::string, std::string>& records) {
  std::string out;
  for (const auto& [k, v] : records) {
    const uint16_t klen = static_cast<uint16_t>(k.size());
    const uint32_t vlen = static_cast<uint32_t>(v.size());
    out.append(reinterpret_cast<const char*>(&klen), 2);
    out.append(reinterpret_cast<const char*>(&vlen), 4);
    out += k;
    out += v;
  }
  return out;
}

std::map<std::string, std::string> Unpacked(const char* data, size_t size) {
  std::map<std::string, std::string> out;
  size_t at = 0;
  while (at < size) {
    uint16_t klen;
    uint32_t vlen;
    std::memcpy(&klen, data + at, 2);
    std::memcpy(&vlen, data + at + 2, 4);
    at += kPackedRecordHeaderBytes;
    std::string k(data + at, klen);
    at += klen;
    out[k] = std::string(data + at, vlen);
    at += vlen;
  }
  return out;
}

constexpr uint32_t kState = 3;
constexpr uint64_t kCap = 64 << 10;

class MapCacheTest : public ::testing::Test {
 protected:
  MapCacheTest() { Open(8 << 20); }

  void Open(uint64_t bytes) {
    CacheOptions options;
    options.max_bytes = bytes;
    options.write_back_batch = 0;
    cache_ = std::make_unique<HotStateCache>(options, &sink_);
    maps_ = std::make_unique<MapCache>(cache_.get());
  }

  // What the caller does on a miss: scan RocksDB under the prefix, load it.
  Result<WriteOutcome> LoadFromDb(const std::string& prefix,
                                  uint64_t cap = kCap) {
    std::map<std::string, std::string> records;
    for (auto it = sink_.db.lower_bound(prefix);
         it != sink_.db.end() &&
         it->first.compare(0, prefix.size(), prefix) == 0;
         ++it) {
      records[it->first.substr(prefix.size())] = it->second;
    }
    return maps_->Load(kState, prefix, Packed(records),
                       static_cast<uint32_t>(records.size()), cap);
  }

  std::map<std::string, std::string> ScanAll(const std::string& prefix,
                                             size_t chunk = 1 << 16) {
    std::map<std::string, std::string> all;
    std::vector<char> out(chunk);
    std::string after;
    bool has_after = false;
    bool first = true;
    while (true) {
      std::string_view after_view(after);
      MapScanResult r =
          maps_->Scan(kState, prefix, has_after ? &after_view : nullptr,
                      out.data(), out.size(), first);
      first = false;
      EXPECT_EQ(r.kind, MapLookup::kHit);
      if (r.kind != MapLookup::kHit) return all;
      auto part = Unpacked(out.data(), r.bytes);
      EXPECT_EQ(part.size(), r.records);
      for (auto& [k, v] : part) all[k] = v;
      if (!r.more) return all;
      EXPECT_GT(r.records, 0u) << "a record larger than the chunk";
      if (r.records == 0) return all;
      after = part.rbegin()->first;
      has_after = true;
    }
  }

  void Flush() { ASSERT_TRUE(cache_->FlushAll().ok()); }

  DbSink sink_;
  std::unique_ptr<HotStateCache> cache_;
  std::unique_ptr<MapCache> maps_;
};

TEST_F(MapCacheTest, MissThenLoadThenHitsAndAbsentKeys) {
  sink_.db = {{"p1a", "A"}, {"p1b", "B"}, {"p2a", "other"}};
  EXPECT_EQ(maps_->Get(kState, "p1", "a").kind, MapLookup::kMiss);
  EXPECT_EQ(maps_->Peek(kState, "p1"), MapLookup::kMiss);
  auto loaded = LoadFromDb("p1");
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(*loaded, WriteOutcome::kCached);
  MapGetResult a = maps_->Get(kState, "p1", "a");
  ASSERT_EQ(a.kind, MapLookup::kHit);
  EXPECT_EQ(a.value, "A");
  EXPECT_EQ(maps_->Get(kState, "p1", "c").kind, MapLookup::kAbsent);
  EXPECT_EQ(maps_->IsEmpty(kState, "p1"), MapLookup::kHit);
  EXPECT_EQ(maps_->Stats(kState).loads, 1u);
  EXPECT_EQ(maps_->Stats(kState).loaded_entries, 2u);
  // A known-empty map.
  ASSERT_TRUE(LoadFromDb("p9").ok());
  EXPECT_EQ(maps_->IsEmpty(kState, "p9"), MapLookup::kAbsent);
  EXPECT_EQ(maps_->Get(kState, "p9", "a").kind, MapLookup::kAbsent);
  Flush();
  EXPECT_TRUE(sink_.log.empty()) << "loaded maps are clean";
}

TEST_F(MapCacheTest, WritesAreDirtyUntilFlushedAsSingleRecords) {
  sink_.db = {{"pk", "old"}, {"px", "gone"}};
  ASSERT_TRUE(LoadFromDb("p").ok());
  ASSERT_TRUE(maps_->Put(kState, "p", "k", "new", kCap).ok());    // in place
  ASSERT_TRUE(maps_->Put(kState, "p", "a", "first", kCap).ok());  // rebuilt
  ASSERT_TRUE(maps_->Put(kState, "p", "k", "longer!", kCap).ok());
  ASSERT_TRUE(maps_->Remove(kState, "p", "x").ok());  // in RocksDB: tombstone
  ASSERT_TRUE(maps_->Put(kState, "p", "t", "tmp", kCap).ok());
  ASSERT_TRUE(maps_->Remove(kState, "p", "t").ok());  // never written: gone
  EXPECT_EQ(maps_->Get(kState, "p", "x").kind, MapLookup::kAbsent);
  EXPECT_EQ(sink_.db.at("pk"), "old") << "write-back, not write-through";
  Flush();
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"+pa", "+pk", "-px"}));
  EXPECT_EQ(sink_.prefix_lengths, (std::vector<uint32_t>{1, 1, 1}))
      << "every record names its map's prefix";
  EXPECT_EQ(sink_.db, (std::map<std::string, std::string>{{"pa", "first"},
                                                          {"pk", "longer!"}}));
  sink_.log.clear();
  Flush();
  EXPECT_TRUE(sink_.log.empty()) << "clean after the flush";
  // Written back: now deleting needs a tombstone.
  ASSERT_TRUE(maps_->Remove(kState, "p", "a").ok());
  Flush();
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"-pa"}));
  EXPECT_EQ(ScanAll("p"),
            (std::map<std::string, std::string>{{"k", "longer!"}}));
  EXPECT_EQ(cache_->Stats(kState).dirty_writebacks, 4u);
  EXPECT_EQ(cache_->Stats(kState).tombstones, 2u);
  // A value entry of another state names no map.
  ASSERT_TRUE(cache_->Put(kState + 1, "v", "value").ok());
  sink_.prefix_lengths.clear();
  Flush();
  EXPECT_EQ(sink_.prefix_lengths, (std::vector<uint32_t>{0}));
}

TEST_F(MapCacheTest, ClearLeavesTombstonesOnlyForWhatRocksDbHolds) {
  sink_.db = {{"pa", "1"}, {"pb", "2"}};
  ASSERT_TRUE(LoadFromDb("p").ok());
  ASSERT_TRUE(maps_->Put(kState, "p", "c", "3", kCap).ok());
  ASSERT_TRUE(maps_->Clear(kState, "p").ok());
  EXPECT_EQ(maps_->IsEmpty(kState, "p"), MapLookup::kAbsent);
  ASSERT_TRUE(maps_->Put(kState, "p", "b", "again", kCap).ok());
  Flush();
  EXPECT_EQ(sink_.log, (std::vector<std::string>{"-pa", "+pb"}));
  EXPECT_EQ(sink_.db, (std::map<std::string, std::string>{{"pb", "again"}}));
}

TEST_F(MapCacheTest, ScanIsInUnsignedByteOrderAndResumesAfterAKey) {
  std::map<std::string, std::string> records;
  for (int i = 0; i < 40; ++i) {
    records[std::string(1, static_cast<char>(i * 6))] = std::string(i, 'v');
  }
  for (const auto& [k, v] : records) sink_.db["p" + k] = v;
  ASSERT_TRUE(LoadFromDb("p").ok());
  // 0x80 and above sort after 0x7f, as in RocksDB.
  std::vector<char> out(1 << 16);
  MapScanResult all =
      maps_->Scan(kState, "p", nullptr, out.data(), out.size(), true);
  ASSERT_EQ(all.records, 40u);
  std::vector<unsigned char> order;
  size_t at = 0;
  for (uint32_t i = 0; i < all.records; ++i) {
    uint16_t klen;
    uint32_t vlen;
    std::memcpy(&klen, out.data() + at, 2);
    std::memcpy(&vlen, out.data() + at + 2, 4);
    order.push_back(static_cast<unsigned char>(out[at + 6]));
    at += 6 + klen + vlen;
  }
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_EQ(ScanAll("p", 64), records) << "in chunks of 64 bytes";
  // A record larger than the buffer says how large it is.
  MapScanResult tiny = maps_->Scan(kState, "p", nullptr, out.data(), 5, false);
  EXPECT_TRUE(tiny.more);
  EXPECT_EQ(tiny.records, 0u);
  EXPECT_EQ(tiny.needed, 6u + 1 + 0);
}

TEST_F(MapCacheTest, AMapOverTheCapKeepsAPartialBody) {
  for (int i = 0; i < 100; ++i) sink_.db["p" + std::to_string(1000 + i)] = "v";
  auto loaded = LoadFromDb("p", /*cap=*/512);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(*loaded, WriteOutcome::kNotCached);
  EXPECT_EQ(maps_->Stats(kState).oversized, 1u);
  // Not in the (empty) partial body: RocksDB answers, and the answer stays.
  EXPECT_EQ(maps_->Get(kState, "p", "1000").kind, MapLookup::kOversized);
  ASSERT_TRUE(maps_->Fill(kState, "p", "1000", "v", false, 512).ok());
  ASSERT_TRUE(maps_->Fill(kState, "p", "2000", "", true, 512).ok());
  MapGetResult hit = maps_->Get(kState, "p", "1000");
  EXPECT_EQ(hit.kind, MapLookup::kHit);
  EXPECT_EQ(hit.value, "v");
  EXPECT_EQ(maps_->Get(kState, "p", "2000").kind, MapLookup::kAbsent);
  EXPECT_EQ(maps_->Get(kState, "p", "1001").kind, MapLookup::kOversized);
  EXPECT_EQ(cache_->dirty_bytes(), 0u) << "fills are clean";

  // Writes stay in the body until written back.
  auto put = maps_->Put(kState, "p", "x", "y", 512);
  ASSERT_TRUE(put.ok());
  EXPECT_EQ(*put, WriteOutcome::kCached);
  auto removed = maps_->Remove(kState, "p", "1000");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, WriteOutcome::kCached);
  EXPECT_EQ(maps_->Get(kState, "p", "x").value, "y");
  EXPECT_EQ(maps_->Get(kState, "p", "1000").kind, MapLookup::kAbsent);
  EXPECT_EQ(sink_.db.count("px"), 0u);
  EXPECT_EQ(sink_.db.count("p1000"), 1u);
  // A remove of a key the body does not know is the caller's, in RocksDB.
  auto unknown = maps_->Remove(kState, "p", "1001");
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(*unknown, WriteOutcome::kNotCached);

  // Scans read RocksDB: first the body's dirty records go there.
  EXPECT_EQ(maps_->IsEmpty(kState, "p"), MapLookup::kOversized);
  auto written = maps_->WriteBackPartial(kState, "p");
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(*written, WriteOutcome::kCached);
  EXPECT_EQ(sink_.db.at("px"), "y");
  EXPECT_EQ(sink_.db.count("p1000"), 0u);
  EXPECT_EQ(cache_->dirty_bytes(), 0u);
  EXPECT_EQ(maps_->Get(kState, "p", "x").value, "y") << "kept, clean";

  // Cleared, the map may be small: the partial body goes.
  ASSERT_TRUE(maps_->Put(kState, "p", "z", "dirty", 512).ok());
  auto cleared = maps_->Clear(kState, "p");
  ASSERT_TRUE(cleared.ok());
  EXPECT_EQ(*cleared, WriteOutcome::kNotCached);
  EXPECT_EQ(maps_->Get(kState, "p", "1000").kind, MapLookup::kMiss);
  EXPECT_EQ(cache_->dirty_bytes(), 0u);
  auto no_body = maps_->Fill(kState, "p", "1000", "v", false, 512);
  ASSERT_TRUE(no_body.ok());
  EXPECT_EQ(*no_body, WriteOutcome::kNotCached);
}

TEST_F(MapCacheTest, APartialBodyAtTheCapWritesBackAndStartsOver) {
  ASSERT_TRUE(maps_->Load(kState, "p", Packed({}), 0, 0).ok());  // over 0
  ASSERT_EQ(maps_->Peek(kState, "p"), MapLookup::kOversized);
  constexpr uint64_t kSmallCap = 400;
  std::map<std::string, std::string> model;
  for (int i = 0; i < 60; ++i) {
    const std::string key = "k" + std::to_string(100 + i);
    const std::string value(10 + i % 3, static_cast<char>('a' + i % 26));
    ASSERT_TRUE(maps_->Put(kState, "p", key, value, kSmallCap).ok());
    model["p" + key] = value;
    for (const auto& [full, v] : model) {
      MapGetResult g = maps_->Get(kState, "p", full.substr(1));
      if (g.kind == MapLookup::kOversized) {
        ASSERT_EQ(sink_.db.at(full), v) << "started over: written back";
      } else {
        ASSERT_EQ(g.kind, MapLookup::kHit);
        ASSERT_EQ(g.value, v);
      }
    }
  }
  EXPECT_GT(sink_.db.size(), 20u) << "the body started over several times";
  EXPECT_LT(cache_->Stats(kState).bytes, 4 * kSmallCap);
  Flush();
  EXPECT_EQ(sink_.db, model);
}

TEST_F(MapCacheTest, ARecordLargerThanTheCapDropsThePartialBody) {
  ASSERT_TRUE(maps_->Load(kState, "p", Packed({}), 0, 0).ok());  // over 0
  ASSERT_TRUE(maps_->Put(kState, "p", "a", "old", 256).ok());
  ASSERT_TRUE(maps_->Put(kState, "p", "b", "dirty", 256).ok());
  auto big = maps_->Put(kState, "p", "a", std::string(300, 'x'), 256);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(*big, WriteOutcome::kNotCached) << "the caller writes it";
  EXPECT_EQ(maps_->Get(kState, "p", "a").kind, MapLookup::kMiss)
      << "no older version stays cached";
  EXPECT_EQ(sink_.db.at("pb"), "dirty") << "the body was written back";
  EXPECT_EQ(cache_->dirty_bytes(), 0u);
  EXPECT_EQ(cache_->Stats(kState).entries, 0u);
}

TEST_F(MapCacheTest, AMapGrowingOverItsCapIsWrittenBackAndStartsAPartialBody) {
  ASSERT_TRUE(LoadFromDb("p", 256).ok());
  int puts = 0;
  for (; puts < 100; ++puts) {
    auto r =
        maps_->Put(kState, "p", "k" + std::to_string(100 + puts), "value", 256);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(*r, WriteOutcome::kCached);
    if (maps_->Get(kState, "p", "k100").kind == MapLookup::kOversized) break;
  }
  ASSERT_LT(puts, 100) << "the map never reached its cap";
  EXPECT_EQ(sink_.db.size(), static_cast<size_t>(puts + 1))
      << "every put, the one over the cap included, is in RocksDB";
  EXPECT_EQ(cache_->dirty_bytes(), 0u);
}

// A map larger than the arena's blocks lives in a heap block; when it goes
// over the cap the block is freed, and the next write must not read it
// through the index's memo (AddressSanitizer catches the read).
TEST_F(MapCacheTest, AWriteAfterAMapWentOverTheCapDoesNotReadItsFreedBlock) {
  constexpr uint64_t kBigCap = 8 << 10;
  ASSERT_TRUE(LoadFromDb("p", kBigCap).ok());
  int puts = 0;
  for (; puts < 200; ++puts) {
    auto r = maps_->Put(kState, "p", "k" + std::to_string(100 + puts),
                        std::string(100, 'v'), kBigCap);
    ASSERT_TRUE(r.ok());
    if (maps_->Peek(kState, "p") == MapLookup::kOversized) break;
  }
  ASSERT_LT(puts, 200) << "the map never reached its cap";
  auto again = maps_->Put(kState, "p", "k999", "v", kBigCap);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, WriteOutcome::kCached) << "into the partial body";
  EXPECT_EQ(maps_->Get(kState, "p", "k999").value, "v");
}

TEST_F(MapCacheTest, EvictedDirtyMapsAreWrittenBack) {
  Open(16 << 10);
  for (int m = 0; m < 200; ++m) {
    const std::string prefix = "m" + std::to_string(1000 + m);
    ASSERT_TRUE(LoadFromDb(prefix).ok());
    ASSERT_TRUE(
        maps_->Put(kState, prefix, "k", std::string(40, 'x'), kCap).ok());
  }
  EXPECT_LE(cache_->bytes(), 16u << 10);
  EXPECT_GT(cache_->Stats(kState).evictions, 0u);
  EXPECT_EQ(cache_->Stats(kState).evictions + cache_->entries(), 200u);
  Flush();
  EXPECT_EQ(sink_.db.size(), 200u);
}

// A map's block is padded to a coarse size (8-byte steps to 256 bytes,
// 32 to 512, 64 to 1 KiB), so that a cache's maps use few of the arena's
// size classes; the padding is charged.
TEST_F(MapCacheTest, MapBlocksComeInCoarseSizes) {
  std::mt19937_64 rng(11);
  int checked_over_512 = 0;
  for (int m = 0; m < 300; ++m) {
    const std::string prefix = "p" + std::to_string(m);
    const int records = static_cast<int>(rng() % 12);
    for (int r = 0; r < records; ++r) {
      sink_.db[prefix + "k" + std::to_string(r)] =
          std::string(1 + rng() % 70, 'v');
    }
    const uint64_t before = cache_->bytes();
    ASSERT_TRUE(LoadFromDb(prefix).ok());
    ASSERT_EQ(maps_->Peek(kState, prefix), MapLookup::kHit);
    const uint64_t block =
        cache_->bytes() - before - HotStateCache::kEntryOverheadBytes;
    const uint64_t step = block <= 256 ? 8 : block <= 512 ? 32 : 64;
    if (block > 1024) continue;  // malloc's sizes
    EXPECT_EQ(block % step, 0u) << "block of " << block << " bytes";
    if (block > 512) ++checked_over_512;
  }
  EXPECT_GT(checked_over_512, 10);  // the coarsest steps were exercised
}

// What the cache holds for small maps that grow and churn (a join's state)
// stays near what it is charged: empty arena slabs give their pages back,
// and map blocks use few size classes. 1.43 before either (the bench's
// `RESULT map_cache_memory` with 5 bids per auction).
TEST_F(MapCacheTest, AllocatedBytesStayNearTheChargeUnderMapChurn) {
  Open(3 << 20);
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> age(1.0 / 400);
  uint64_t auctions = 1000;
  double worst = 0;
  for (int bid = 0; bid < 300000; ++bid) {
    if (bid % 5 == 0) ++auctions;
    const uint64_t auction =
        auctions - 1 -
        std::min<uint64_t>(static_cast<uint64_t>(age(rng)), auctions - 1);
    const std::string prefix = "a" + std::to_string(auction);
    if (maps_->Peek(kState, prefix) == MapLookup::kMiss) {
      ASSERT_TRUE(LoadFromDb(prefix).ok());
    }
    ASSERT_TRUE(maps_
                    ->Put(kState, prefix, "b" + std::to_string(bid),
                          std::string(40 + rng() % 40, 'v'), kCap)
                    .ok());
    if ((bid + 1) % 50000 == 0) {
      worst = std::max(worst, static_cast<double>(cache_->AllocatedBytes()) /
                                  static_cast<double>(cache_->bytes()));
      Flush();
    }
  }
  EXPECT_GT(cache_->bytes(), 2u << 20);  // the cache was full
  EXPECT_LT(worst, 1.25);
}

// The "<N> maps" of a MapState's [FALCON] line divide the quota by this
// charge; the e2e line check (tests/e2e/lib/check_falcon_lines.py,
// TYPICAL_MAP_CHARGE) recomputes it from the logged bytes.
TEST(MapCacheCharge, TypicalMapChargeMatchesTheEndToEndCheck) {
  EXPECT_EQ(MapCache::ChargeFor(16, 4, 4 * 88), 488u);
}

TEST_F(MapCacheTest, MalformedLoadIsAnError) {
  std::string packed = Packed({{"a", "b"}});
  EXPECT_FALSE(maps_->Load(kState, "p", packed, 2, kCap).ok());
  EXPECT_FALSE(maps_->Load(kState, "p", packed.substr(0, 5), 1, kCap).ok());
  EXPECT_EQ(maps_->Peek(kState, "p"), MapLookup::kMiss) << "nothing cached";
}

// Random operations on a few maps of a small cache (evictions, oversized
// maps, flushes), against a model; reads must match the model, and after
// every flush RocksDB (the sink's map) must equal it.
TEST_F(MapCacheTest, DifferentialAgainstAModel) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Open(seed % 2 == 0 ? (4 << 10) : (1 << 20));
    sink_.db.clear();
    std::map<std::string, std::string> model;  // full key -> value
    std::mt19937_64 rng(seed);
    const uint64_t cap = 700;
    for (int step = 0; step < 20000; ++step) {
      // Fixed-length prefixes, as Flink's key group + key + namespace bytes.
      const std::string prefix = "P" + std::to_string(100 + rng() % 60);
      const std::string key(1, static_cast<char>(rng() % 40 + 100));
      const int op = static_cast<int>(rng() % 100);
      // The caller's read path: load on a miss.
      MapGetResult g = maps_->Get(kState, prefix, key);
      if (g.kind == MapLookup::kMiss &&
          op % 8 != 0) {  // sometimes left to RocksDB
        ASSERT_TRUE(LoadFromDb(prefix, cap).ok());
        g = maps_->Get(kState, prefix, key);
      }
      auto expected = model.find(prefix + key);
      if (g.kind == MapLookup::kOversized || g.kind == MapLookup::kMiss) {
        auto db = sink_.db.find(prefix + key);
        ASSERT_EQ(db == sink_.db.end(), expected == model.end()) << step;
        if (g.kind == MapLookup::kOversized && op % 3 != 0) {
          const bool absent = db == sink_.db.end();
          ASSERT_TRUE(maps_
                          ->Fill(kState, prefix, key,
                                 absent ? std::string() : db->second, absent,
                                 cap)
                          .ok());
        }
      } else if (g.kind == MapLookup::kHit) {
        ASSERT_NE(expected, model.end()) << step;
        ASSERT_EQ(g.value, expected->second) << step;
      } else {
        ASSERT_EQ(g.kind, MapLookup::kAbsent);
        ASSERT_EQ(expected, model.end()) << step;
      }
      if (op < 55) {
        std::string value(rng() % 30, static_cast<char>('a' + rng() % 26));
        auto r = maps_->Put(kState, prefix, key, value, cap);
        ASSERT_TRUE(r.ok());
        if (*r == WriteOutcome::kNotCached) sink_.db[prefix + key] = value;
        model[prefix + key] = value;
      } else if (op < 80) {
        auto r = maps_->Remove(kState, prefix, key);
        ASSERT_TRUE(r.ok());
        if (*r == WriteOutcome::kNotCached) sink_.db.erase(prefix + key);
        model.erase(prefix + key);
      } else if (op < 83) {
        auto r = maps_->Clear(kState, prefix);
        ASSERT_TRUE(r.ok());
        auto drop = [&](std::map<std::string, std::string>* m) {
          auto it = m->lower_bound(prefix);
          while (it != m->end() &&
                 it->first.compare(0, prefix.size(), prefix) == 0) {
            it = m->erase(it);
          }
        };
        if (*r == WriteOutcome::kNotCached) drop(&sink_.db);
        drop(&model);
      } else if (op < 88) {
        const MapLookup empty = maps_->IsEmpty(kState, prefix);
        if (empty == MapLookup::kOversized) {
          // The caller's scan of RocksDB, after the body's write-back.
          ASSERT_TRUE(maps_->WriteBackPartial(kState, prefix).ok());
          auto in = [&](const std::map<std::string, std::string>& m) {
            std::map<std::string, std::string> out;
            for (auto it = m.lower_bound(prefix);
                 it != m.end() &&
                 it->first.compare(0, prefix.size(), prefix) == 0;
                 ++it) {
              out.insert(*it);
            }
            return out;
          };
          ASSERT_EQ(in(sink_.db), in(model)) << "seed " << seed << " " << step;
        }
        if (empty == MapLookup::kHit) {
          ASSERT_EQ(ScanAll(prefix).size(),
                    static_cast<size_t>(std::count_if(
                        model.begin(), model.end(), [&](const auto& kv) {
                          return kv.first.compare(0, prefix.size(), prefix) ==
                                 0;
                        })));
        }
      } else if (op < 89) {
        Flush();
        ASSERT_EQ(sink_.db, model) << "seed " << seed << " step " << step;
      }
      ASSERT_LE(cache_->bytes(), cache_->capacity_bytes());
    }
    Flush();
    ASSERT_EQ(sink_.db, model) << "seed " << seed;
    // The run went through every path: loads, partial bodies, evictions.
    EXPECT_GT(maps_->Stats(kState).loads, 50u);
    EXPECT_GT(maps_->Stats(kState).oversized, 0u);
    if (seed % 2 == 0) {
      EXPECT_GT(cache_->Stats(kState).evictions, 100u);
    }
  }
}

}  // namespace
}  // namespace falcon
