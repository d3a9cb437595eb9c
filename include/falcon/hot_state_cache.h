// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// HotStateCache: a bounded write-back cache of serialized keyed-state entries
// in native memory, one per Flink keyed subtask. Entries are keyed by (state
// id, key bytes) and hold value bytes, exactly as RocksDB stores them. The
// design (index, W-TinyLFU, memory accounting) is in docs/cache.md; the value
// types it takes and answers (options, limits, statistics, the write-back
// sink) are in falcon/cache_types.h.
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

#include "falcon/cache_types.h"
#include "falcon/memory_budget.h"
#include "falcon/result.h"
#include "falcon/status.h"

namespace falcon {

namespace cache_internal {
class CacheCore;  // src/cache/cache_core.h
}  // namespace cache_internal
class MapCache;

class HotStateCache : public CacheLimits {
 public:
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
  // Remove of a key the caller knows RocksDB does not hold (its written-key
  // filter has never seen it, and no evicted entry waits for the sink): the
  // cached entry, dirty or clean, is dropped and nothing is written back.
  // Never evicts; answers kCached.
  [[nodiscard]] Result<WriteOutcome> RemoveNotInDb(uint32_t state_id,
                                                   std::string_view key);
  // After a kMiss: the value read from RocksDB, or "known absent" (clean).
  // If the key got cached meanwhile, the cached version wins.
  [[nodiscard]] Result<WriteOutcome> Fill(uint32_t state_id,
                                          std::string_view key,
                                          std::string_view value);
  [[nodiscard]] Result<WriteOutcome> FillAbsent(uint32_t state_id,
                                                std::string_view key);
  // A ListState's append: `element` joins the cached value after
  // `delimiter` (no delimiter when the entry is "known absent"), dirty.
  // kNotCached when the key is not cached (nothing changes), or when the
  // grown value would be longer than `max_value_bytes` or not fit the cache:
  // the entry then leaves it, a dirty one through the sink before the call
  // returns. Either way the caller appends in RocksDB itself (a merge). May
  // evict.
  [[nodiscard]] Result<WriteOutcome> Append(uint32_t state_id,
                                            std::string_view key,
                                            std::string_view element,
                                            char delimiter,
                                            size_t max_value_bytes);

  // Writes back every dirty entry of one state (of all, in state id order),
  // sorted bytewise by key; they stay cached, clean.
  [[nodiscard]] Status Flush(uint32_t state_id);
  [[nodiscard]] Status FlushAll();
  // Writes back dirty entries, coldest first, until dirty_bytes() <=
  // max_dirty_bytes; they stay cached, clean.
  [[nodiscard]] Status WriteBackDirty(uint64_t max_dirty_bytes);
  // Writes back up to `max_entries` dirty entries, in no particular order
  // (each call goes on from where the last one stopped); they stay cached,
  // clean. For write-back ahead of a checkpoint barrier, in small slices.
  // Flushes and slices visit dirty entries only, never the clean ones.
  [[nodiscard]] Status WriteBackSome(size_t max_entries);
  // Forget a state's / every entry without write-back; statistics stay.
  void DropState(uint32_t state_id);
  void Clear();
  [[nodiscard]] Status ShrinkToQuota();  // re-reads the lease, evicts to it

  CacheStats Stats(uint32_t state_id) const;
  CacheStats TotalStats() const;

  // Charged bytes; with the index of dirty entries (about 8-21 bytes per
  // dirty entry, released by FlushAll) <= capacity after every call.
  uint64_t bytes() const;
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
