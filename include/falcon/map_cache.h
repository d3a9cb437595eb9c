// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// MapCache: the MapState operations of a HotStateCache. The unit is one user
// map: every entry under one prefix (Flink's key group, key and namespace
// bytes). A cached map is complete -- every entry of the map is in the cache
// -- or the map is not cached at all; an empty cached map is "known empty".
// It shares the cache's index, eviction policy and quota with ValueState
// entries: a map is one entry, charged for all its bytes (docs/cache.md).
//
//  * Load(): after a miss, the caller's scan of the whole prefix in RocksDB.
//    A map over `max_map_bytes` is not cached whole: it gets a partial body
//    instead, empty at first, so later operations skip the scan until it is
//    evicted. A partial body holds some of the map's records, as
//    authoritative as a whole map's; the other user keys are in RocksDB as
//    they are. Get answers from it (kOversized: not in it, read RocksDB,
//    then Fill); Put and Remove of a key it holds change it, a Put of a new
//    key joins it (kNotCached: a Remove of a key it does not hold, delete it
//    in RocksDB). Over `max_map_bytes` it writes its dirty records back and
//    starts over. IsEmpty and Scan answer kOversized: WriteBackPartial, then
//    read RocksDB.
//  * Get / IsEmpty / Scan read a cached map only; Put / Remove / Clear change
//    a cached map only (dirty records, tombstones). Anything else answers
//    kMiss / kOversized / kNotCached and the caller uses RocksDB itself.
//  * Write-back: dirty records reach the WriteBackSink as single entries
//    (key = prefix + user key; deletes for tombstones) on eviction and on
//    Flush/FlushAll/WriteBackDirty, in key order within a map.
//
// User keys are compared as unsigned bytes (RocksDB's order). Packed records,
// the format of Load() input and Scan() output, are in native byte order:
//   u16 user key length | u32 value length | user key | value
//
// Thread-safety and ownership: those of the HotStateCache it is made from
// (which must outlive it). A state id is either a ValueState's or a
// MapState's: never use one id with both APIs.

#ifndef FALCON_MAP_CACHE_H_
#define FALCON_MAP_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "falcon/hot_state_cache.h"
#include "falcon/result.h"

namespace falcon {

inline constexpr size_t kPackedRecordHeaderBytes = 6;

enum class MapLookup : uint8_t {
  kMiss = 0,       // the map is not cached: read RocksDB, then Load()
  kHit = 1,        // cached; the user key is present (Get: its value)
  kAbsent = 2,     // cached; the user key is absent (IsEmpty: the map is)
  kBypass = 3,     // cannot be cached (limits): use RocksDB, do not Load()
  kOversized = 4,  // the map is too large to cache: use RocksDB
};

struct MapGetResult {
  MapLookup kind;
  std::string_view value;  // kHit: valid until the next non-const call
};

struct MapScanResult {
  MapLookup kind;        // kHit (cached), kMiss, kBypass or kOversized
  size_t bytes = 0;      // packed records written to `out`
  uint32_t records = 0;  // how many
  // More live records follow the last one written; 0 records with `more`:
  // the next record alone needs `needed` bytes.
  bool more = false;
  size_t needed = 0;
};

class MapCache {
 public:
  explicit MapCache(HotStateCache* cache);

  // Looks the user key up; counts an access of the map (as a Get).
  MapGetResult Get(uint32_t state_id, std::string_view prefix,
                   std::string_view user_key);
  // kAbsent: cached and empty; kHit: cached with entries; else as Get.
  MapLookup IsEmpty(uint32_t state_id, std::string_view prefix);
  // kHit: the map is cached; else kMiss, kBypass or kOversized. Counts no
  // access.
  MapLookup Peek(uint32_t state_id, std::string_view prefix) const;
  // Copies the live records with user key > `after` (or all, without one)
  // to `out` in key order while they fit `capacity`. `first` counts an
  // access of the map; a continuation does not.
  MapScanResult Scan(uint32_t state_id, std::string_view prefix,
                     const std::string_view* after, char* out, size_t capacity,
                     bool first);

  // Caches the map read from RocksDB (`count` packed records, in key order)
  // clean, unless a version is cached already. Over `max_map_bytes`: caches
  // an empty partial body and answers kNotCached.
  [[nodiscard]] Result<WriteOutcome> Load(uint32_t state_id,
                                          std::string_view prefix,
                                          std::string_view packed,
                                          uint32_t count,
                                          uint64_t max_map_bytes);
  // Write-back put into a cached map. A put that takes the map over
  // `max_map_bytes` writes back all its dirty records (this one included)
  // and leaves an empty partial body: still kCached. kNotCached: not cached.
  [[nodiscard]] Result<WriteOutcome> Put(uint32_t state_id,
                                         std::string_view prefix,
                                         std::string_view user_key,
                                         std::string_view value,
                                         uint64_t max_map_bytes);
  [[nodiscard]] Result<WriteOutcome> Remove(uint32_t state_id,
                                            std::string_view prefix,
                                            std::string_view user_key);
  // Every entry of the map: tombstones for what RocksDB holds. On a map over
  // the cap its partial body is dropped and the answer is kNotCached.
  [[nodiscard]] Result<WriteOutcome> Clear(uint32_t state_id,
                                           std::string_view prefix);

  // A map over the cap: what RocksDB holds for `user_key` (its value, or
  // nothing when `absent`) joins the partial body, clean. kNotCached (and
  // nothing changes) when the map has no partial body.
  [[nodiscard]] Result<WriteOutcome> Fill(uint32_t state_id,
                                          std::string_view prefix,
                                          std::string_view user_key,
                                          std::string_view value, bool absent,
                                          uint64_t max_map_bytes);
  // A map over the cap: its dirty records go to the sink (they stay, clean),
  // so RocksDB holds the whole map. kNotCached without a partial body.
  [[nodiscard]] Result<WriteOutcome> WriteBackPartial(uint32_t state_id,
                                                      std::string_view prefix);

  MapStats Stats(uint32_t state_id) const;
  // Charged bytes of a cached map with this prefix and these records.
  static uint64_t ChargeFor(size_t prefix_size, size_t records,
                            size_t key_and_value_bytes);

 private:
  HotStateCache* cache_;
};

}  // namespace falcon

#endif  // FALCON_MAP_CACHE_H_
