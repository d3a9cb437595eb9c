// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The value types of the hot-state cache's contract
// (include/falcon/hot_state_cache.h): its options, limits, answers and
// statistics, and the write-back sink it hands dirty entries to. The cache's
// internal units (src/cache/) include this header, not the cache's own.
//
// Thread-safety: plain values; a WriteBackSink is called on the cache's
// thread only. Ownership: a DirtyEntry's and a GetResult's views borrow the
// cache's memory (see where they are handed out).

#ifndef FALCON_CACHE_TYPES_H_
#define FALCON_CACHE_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "falcon/status.h"

namespace falcon {

// Limits of a HotStateCache (also reachable as HotStateCache::kMaxStates...).
struct CacheLimits {
  static constexpr uint32_t kMaxStates = 4096;
  static constexpr size_t kMaxKeyBytes = 65535;
  static constexpr size_t kMaxValueBytes = (1u << 23) - 1;  // 23-bit length
  static constexpr size_t kEntryHeaderBytes = 24;  // block: header|key|value
  // Charged per entry on top of its block's usable size: the worst-case
  // index-slot share (14) and frequency-sketch share (10).
  static constexpr uint64_t kEntryOverheadBytes = 24;
  // Most entries one WriteBackSink::Write() call gets.
  static constexpr size_t kMaxBatch = 256;
};

// One dirty entry handed to a WriteBackSink; views valid during Write() only.
struct DirtyEntry {
  uint32_t state_id;
  std::string_view key;
  std::string_view value;  // empty when is_delete
  bool is_delete;
  // A map record's: how many leading bytes of `key` name its map (key group,
  // key, namespace), so the sink can tell which maps RocksDB holds. 0 for a
  // value entry (the whole key is the state's key).
  uint32_t prefix_length = 0;
};

// Implemented by the caller (the JNI layer: a native buffer Java drains into
// a RocksDB WriteBatch). Called synchronously on the cache's thread, from the
// cache's calls, with 1..kMaxBatch entries. Must not call back into the cache.
class WriteBackSink {
 public:
  virtual ~WriteBackSink() = default;
  [[nodiscard]] virtual Status Write(const DirtyEntry* entries,
                                     size_t count) = 0;
};

enum class CachePolicy : uint8_t { kWTinyLfu = 0, kLru = 1 };

struct CacheOptions {
  CachePolicy policy = CachePolicy::kWTinyLfu;
  // Without a BudgetLease: bound in charged bytes, entry cap (0 = none).
  uint64_t max_bytes = 64ull << 20;
  uint64_t max_entries = 0;
  // W-TinyLFU: the window's initial share, in percent (clamped to 1..80),
  // and whether it adapts (1%..100%) to the workload.
  uint32_t window_percent = 1;
  bool adaptive_window = true;
  // An eviction that writes a dirty entry back also writes back up to this
  // many dirty eviction candidates in the same sink call; they stay cached,
  // clean. 0 or 1: only the evicted entries.
  uint32_t write_back_batch = 32;
  bool block_arena = true;  // blocks of up to 1 KiB from an arena, not malloc
  // Transparent huge pages for the arena's chunks while the capacity is at
  // least 64 MiB, and for an index of 2 MiB or more.
  bool huge_pages = true;
};

enum class Lookup : uint8_t {
  kMiss = 0,    // not cached: read RocksDB, then Fill()/FillAbsent()
  kHit = 1,     // value in GetResult::data/size
  kAbsent = 2,  // tombstone or known absent: do NOT read RocksDB
  // Cannot be cached (state id or key over its limit): read RocksDB, do not
  // fill.
  kBypass = 3,
};

struct GetResult {
  Lookup kind;
  const char* data;  // kHit only; valid until the cache's next non-const call
  size_t size;
  std::string_view value() const { return std::string_view(data, size); }
};

// Outcome of Put()/Remove()/Fill()/FillAbsent().
enum class WriteOutcome : uint8_t {
  kCached = 0,  // the cache holds it (dirty for put/remove, clean for fill)
  // The caller writes/deletes in RocksDB itself (Fill: nothing to do): an
  // entry larger than the quota, a key or value over its maximum, quota 0.
  // Any cached version was discarded.
  kNotCached = 1,
};

// Per-state counters (summed over states by TotalStats()).
struct CacheStats {
  uint64_t hits = 0;         // gets answered kHit
  uint64_t absent_hits = 0;  // gets answered kAbsent
  uint64_t misses = 0;       // gets answered kMiss
  uint64_t bypassed = 0;     // gets answered kBypass
  uint64_t puts = 0;
  uint64_t removes = 0;
  uint64_t fills = 0;
  uint64_t evictions = 0;         // entries evicted (clean or dirty)
  uint64_t dirty_writebacks = 0;  // dirty entries handed to the sink
  uint64_t tombstones = 0;        // deletes handed to the sink
  uint64_t not_cached = 0;        // writes answered kNotCached
  uint64_t entries = 0;           // current
  uint64_t bytes = 0;             // current, charged bytes
  uint64_t dirty_entries = 0;     // current
  uint64_t dirty_bytes = 0;       // current
};

// Per-state counters of the map operations of a MapState (MapCache, whose
// Stats() of the HotStateCache counts the same maps as entries: hits, misses,
// evictions, write-backs).
struct MapStats {
  uint64_t loads = 0;           // maps loaded (Load() that cached a map)
  uint64_t loaded_entries = 0;  // user entries those loads brought
  uint64_t oversized = 0;       // Load()/Put() that found a map too large
  uint64_t not_cached_ops = 0;  // operations answered from RocksDB
};

}  // namespace falcon

#endif  // FALCON_CACHE_TYPES_H_
