// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// A join's MapState under churn, as Nexmark q4 drives it: one map per
// auction, bids appended to recent auctions (the age of the auction a bid
// goes to is exponential), a new auction every `bids_per_auction` bids, a
// miss loads the map from a sorted "RocksDB" (std::map), a checkpoint
// writes everything back every 200k bids. Maps grow through the arena's
// size classes and past its 1 KiB limit into malloc, which is what leaves
// slabs empty behind them. Reported: AllocatedBytes() (the `allocatedBytes`
// metric) over bytes() (charged), sampled at every checkpoint.

#include "map_cache_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "falcon/hot_state_cache.h"
#include "falcon/map_cache.h"

namespace falcon {
namespace {

constexpr uint32_t kState = 1;
constexpr uint64_t kMaxMapBytes = 64 << 10;

class SortedDb : public WriteBackSink {
 public:
  Status Write(const DirtyEntry* entries, size_t count) override {
    for (size_t i = 0; i < count; ++i) {
      std::string key(entries[i].key);
      if (entries[i].is_delete) {
        rows_.erase(key);
      } else {
        rows_[key] = std::string(entries[i].value);
      }
    }
    return Status::OK();
  }

  // The map under `prefix` as packed records (map_cache.h), and its count.
  uint32_t Scan(const std::string& prefix, std::string* packed) const {
    packed->clear();
    uint32_t count = 0;
    for (auto it = rows_.lower_bound(prefix);
         it != rows_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
         ++it) {
      const uint16_t key_length =
          static_cast<uint16_t>(it->first.size() - prefix.size());
      const uint32_t value_length = static_cast<uint32_t>(it->second.size());
      packed->append(reinterpret_cast<const char*>(&key_length), 2);
      packed->append(reinterpret_cast<const char*>(&value_length), 4);
      packed->append(it->first, prefix.size(), std::string::npos);
      packed->append(it->second);
      ++count;
    }
    return count;
  }

 private:
  std::map<std::string, std::string> rows_;
};

struct Shape {
  uint64_t cache_bytes;
  int bids_per_auction;  // the mean map ends up about this many records
  size_t max_value_bytes;
};

void Run(const Shape& shape) {
  SortedDb db;
  CacheOptions options;
  options.max_bytes = shape.cache_bytes;
  HotStateCache cache(options, &db);
  MapCache maps(&cache);
  std::mt19937_64 rng(1);
  std::exponential_distribution<double> age(1.0 / 400);
  constexpr long kBids = 1000000;
  constexpr long kCheckpointEvery = 200000;
  uint64_t auctions = 1000;
  double worst = 0;
  double sum = 0;
  int samples = 0;
  std::string packed;
  std::string value;
  for (long bid = 0; bid < kBids; ++bid) {
    if (bid % shape.bids_per_auction == 0) ++auctions;
    const uint64_t back =
        std::min<uint64_t>(static_cast<uint64_t>(age(rng)), auctions - 1);
    const uint64_t auction = auctions - 1 - back;
    char prefix_bytes[12] = {'k', 'g'};
    std::memcpy(prefix_bytes + 2, &auction, 8);
    const std::string_view prefix(prefix_bytes, sizeof(prefix_bytes));
    if (maps.IsEmpty(kState, prefix) == MapLookup::kMiss) {
      const uint32_t count = db.Scan(std::string(prefix), &packed);
      if (!maps.Load(kState, prefix, packed, count, kMaxMapBytes).ok()) {
        std::printf("RESULT map_cache_memory error=load\n");
        return;
      }
    }
    char user_key[16];
    std::memcpy(user_key, &bid, 8);
    std::memcpy(user_key + 8, &auction, 8);
    value.assign(40 + rng() % (shape.max_value_bytes - 40), 'v');
    if (!maps.Put(kState, prefix, std::string_view(user_key, 16), value,
                  kMaxMapBytes)
             .ok()) {
      std::printf("RESULT map_cache_memory error=put\n");
      return;
    }
    if ((bid + 1) % kCheckpointEvery == 0) {
      const double ratio =
          static_cast<double>(cache.AllocatedBytes()) / cache.bytes();
      worst = std::max(worst, ratio);
      sum += ratio;
      ++samples;
      if (!cache.FlushAll().ok()) {
        std::printf("RESULT map_cache_memory error=flush\n");
        return;
      }
    }
  }
  std::printf(
      "RESULT map_cache_memory cache_mib=%.0f bids_per_auction=%d "
      "value_bytes=40..%zu maps=%llu charged_mib=%.2f allocated_mib=%.2f "
      "allocated_over_charged_mean=%.3f worst=%.3f\n",
      shape.cache_bytes / 1048576.0, shape.bids_per_auction,
      shape.max_value_bytes, static_cast<unsigned long long>(cache.entries()),
      cache.bytes() / 1048576.0, cache.AllocatedBytes() / 1048576.0,
      sum / samples, worst);
}

}  // namespace

void PrintMapCacheMemory() {
  // Maps that grow to 2-5 KiB (past the arena), and maps that stay in it.
  Run({3u << 20, 50, 120});
  Run({3u << 20, 5, 80});
  Run({32u << 20, 50, 120});
}

}  // namespace falcon
