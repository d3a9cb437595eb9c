// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// HotStateCache: a bounded write-back cache of serialized keyed-state entries
// in native memory, one per Flink keyed subtask. Entries are keyed by (state
// id, key bytes) and hold value bytes, exactly as RocksDB stores them. The
// design (index, W-TinyLFU, memory accounting) is in docs/cache.md.
//
// Thread-safety: NOT thread-safe. One cache belongs to one task thread and
// takes no locks; the only cross-thread input is the (atomic) lease quota.
// Ownership: the cache owns its entries; the sink and the lease are borrowed
// and must outlive the cache. A GetResult points into the cache and is valid
// until the next non-const call.
// Errors: InvalidArgument (state id >= kMaxStates on a write or flush),
// ResourceExhausted (no memory for a block), or the sink's Status: then the
// call's evicted victims are lost and the caller must fail the task.

#ifndef FALCON_HOT_STATE_CACHE_H_
#define FALCON_HOT_STATE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "falcon/memory_budget.h"
#include "falcon/result.h"
#include "falcon/status.h"

namespace falcon {

namespace cache_internal {
class CacheCore;  // src/cache/cache_core.h
}  // namespace cache_internal
class MapCache;

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
  // Adaptive bypass per state (threshold <= 0: off): bypassed after
  // bypass_enter_windows windows of bypass_window gets below the threshold,
  // probed (cached for one window) every bypass_probe_interval gets.
  double bypass_threshold = 0.0;
  uint32_t bypass_window = 20000;
  uint32_t bypass_enter_windows = 2;
  uint32_t bypass_probe_interval = 200000;
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
  kBypass = 3,  // state bypassed, key not cached: read RocksDB, do not fill
};

struct GetResult {
  Lookup kind;
  const char* data;  // kHit only; valid until the next non-const call
  size_t size;
  std::string_view value() const { return std::string_view(data, size); }
};

// Outcome of Put()/Remove()/Fill()/FillAbsent().
enum class WriteOutcome : uint8_t {
  kCached = 0,  // the cache holds it (dirty for put/remove, clean for fill)
  // The caller writes/deletes in RocksDB itself (Fill: nothing to do): a
  // bypassed state's uncached key, an entry larger than the quota, a key or
  // value over its maximum, quota 0. Any cached version was discarded.
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
  uint64_t bypass_entered = 0;    // times the state entered bypass
  bool bypassed_now = false;
  double window_hit_ratio = 0.0;  // last completed bypass window (-1: none)
};

class HotStateCache {
 public:
  static constexpr uint32_t kMaxStates = 4096;
  static constexpr size_t kMaxKeyBytes = 65535;
  static constexpr size_t kMaxValueBytes = (1u << 23) - 1;  // 23-bit length
  static constexpr size_t kEntryHeaderBytes = 24;  // block: header|key|value
  // Charged per entry on top of its block's usable size: the worst-case
  // index-slot share (14) and frequency-sketch share (10).
  static constexpr uint64_t kEntryOverheadBytes = 24;
  static constexpr size_t kMaxBatch = 256;

  // `sink` non-null. The quota comes from `lease` if given, else the options.
  HotStateCache(const CacheOptions& options, WriteBackSink* sink,
                const BudgetLease* lease = nullptr);
  ~HotStateCache();
  HotStateCache(const HotStateCache&) = delete;
  HotStateCache& operator=(const HotStateCache&) = delete;

  // Never calls the sink; allocates only the first time a state id is seen.
  // A state id >= kMaxStates or a key over kMaxKeyBytes answers kBypass.
  GetResult Get(uint32_t state_id, std::string_view key);
  // Write-back update / delete (a dirty tombstone). May evict: dirty victims
  // reach the sink before the call returns.
  [[nodiscard]] Result<WriteOutcome> Put(uint32_t state_id,
                                         std::string_view key,
                                         std::string_view value);
  [[nodiscard]] Result<WriteOutcome> Remove(uint32_t state_id,
                                            std::string_view key);
  // After a kMiss: the value read from RocksDB, or "known absent" (clean).
  // If the key got cached meanwhile, the cached version wins.
  [[nodiscard]] Result<WriteOutcome> Fill(uint32_t state_id,
                                          std::string_view key,
                                          std::string_view value);
  [[nodiscard]] Result<WriteOutcome> FillAbsent(uint32_t state_id,
                                                std::string_view key);

  // Writes back every dirty entry of one state (of all, in state id order),
  // sorted bytewise by key; they stay cached, clean.
  [[nodiscard]] Status Flush(uint32_t state_id);
  [[nodiscard]] Status FlushAll();
  // Writes back dirty entries, coldest first, until dirty_bytes() <=
  // max_dirty_bytes; they stay cached, clean.
  [[nodiscard]] Status WriteBackDirty(uint64_t max_dirty_bytes);
  // Forget a state's / every entry without write-back. Clear() also resets
  // bypass; statistics stay.
  void DropState(uint32_t state_id);
  void Clear();
  [[nodiscard]] Status ShrinkToQuota();  // re-reads the lease, evicts to it

  CacheStats Stats(uint32_t state_id) const;
  CacheStats TotalStats() const;
  bool IsBypassed(uint32_t state_id) const;

  uint64_t bytes() const;  // charged bytes, <= capacity after every call
  uint64_t entries() const;
  uint64_t dirty_bytes() const;
  uint64_t capacity_bytes() const;
  uint64_t capacity_entries() const;  // 0 = no cap
  CachePolicy policy() const;
  double window_fraction() const;   // W-TinyLFU: the window's share now (0..1)
  uint64_t AllocatedBytes() const;  // what the allocators really hold
  // Charged bytes of one entry (block arena on): usable(kEntryHeaderBytes +
  // key + value) + kEntryOverheadBytes; usable = round8 up to 1 KiB, else
  // glibc's malloc_usable_size. Key + value a multiple of 8: key + value + 48.
  static uint64_t ChargeFor(size_t key_size, size_t value_size);

 private:
  friend class MapCache;  // include/falcon/map_cache.h
  std::unique_ptr<cache_internal::CacheCore> core_;
};

}  // namespace falcon

#endif  // FALCON_HOT_STATE_CACHE_H_
