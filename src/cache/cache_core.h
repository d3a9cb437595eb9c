// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The cache behind HotStateCache (include/falcon/hot_state_cache.h, whose
// contract it implements): it ties the units together and owns the order of
// their steps.
//
//   EntryIndex        Robin Hood index + memo           entry_index.h
//   EntryQueues       window / probation / protected    entry_queues.h
//   EntryAllocator    blocks: arena or malloc, charges  entry_allocator.h
//   Accounting        charges, dirty bytes, statistics  accounting.h
//   TinyLfuAdmission  frequency sketch, admission       admission_policy.h
//   WindowAdapter     climber + ghosts                  window_adapter.h
//   WriteBack         batches to the sink               write_back.h
//
// Get() is defined in this header so that HotStateCache::Get inlines it and
// everything it calls on a hit (hash, probe, hit count).
// bench/cache_sim and the tests build a CacheCore directly: the first to set
// PolicyTuning, the second to change the capacity without a lease
// (ApplyCapacity, then ShrinkToQuota).
//
// Thread-safety: none (one task thread).

#ifndef FALCON_SRC_CACHE_CACHE_CORE_H_
#define FALCON_SRC_CACHE_CACHE_CORE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cache/accounting.h"
#include "cache/admission_policy.h"
#include "cache/entry.h"
#include "cache/entry_allocator.h"
#include "cache/entry_index.h"
#include "cache/entry_queues.h"
#include "cache/map_body.h"
#include "cache/policy_tuning.h"
#include "cache/window_adapter.h"
#include "cache/write_back.h"
#include "falcon/cache_types.h"
#include "falcon/memory_budget.h"
#include "falcon/result.h"

namespace falcon {
namespace cache_internal {

class CacheCore {
 public:
  CacheCore(const CacheOptions& options, WriteBackSink* sink,
            const BudgetLease* lease = nullptr,
            const PolicyTuning& tuning = PolicyTuning());
  ~CacheCore();
  CacheCore(const CacheCore&) = delete;
  CacheCore& operator=(const CacheCore&) = delete;

  inline GetResult Get(uint32_t state_id, std::string_view key);
  Result<WriteOutcome> Put(uint32_t state_id, std::string_view key,
                           std::string_view value) {
    return Write(state_id, key, value, /*absent=*/false, /*dirty=*/true);
  }
  Result<WriteOutcome> Remove(uint32_t state_id, std::string_view key) {
    return Write(state_id, key, std::string_view(), /*absent=*/true,
                 /*dirty=*/true);
  }
  Result<WriteOutcome> RemoveNotInDb(uint32_t state_id, std::string_view key);
  Result<WriteOutcome> Fill(uint32_t state_id, std::string_view key,
                            std::string_view value);
  Result<WriteOutcome> FillAbsent(uint32_t state_id, std::string_view key);
  Result<WriteOutcome> Append(uint32_t state_id, std::string_view key,
                              std::string_view element, char delimiter,
                              size_t max_value_bytes);

  Status Flush(uint32_t state_id);
  Status FlushAll();
  Status WriteBackDirty(uint64_t max_dirty_bytes);
  Status WriteBackSome(size_t max_entries);
  void DropState(uint32_t state_id);
  void Clear();
  // Re-reads the lease quota (if any) and evicts down to the capacity.
  Status ShrinkToQuota();
  // New bounds; the next write or ShrinkToQuota evicts down to them. Set
  // from the lease; without one, only tests call it.
  void ApplyCapacity(uint64_t bytes, uint64_t entries);

  // --- MapState (cache_core_maps.cc, include/falcon/map_cache.h). A map is
  // an entry of a map state: key = the map's prefix, value = a MapBody. A map
  // over the cap is an absent entry whose body (possibly empty) is partial:
  // the records it holds are authoritative, the others are in RocksDB.
  // Get(state, prefix) finds a map and counts the access; MapPeek does not.
  enum class MapOp : uint8_t { kPut, kRemove, kClear };
  GetResult MapPeek(uint32_t state_id, std::string_view prefix) const;
  Result<WriteOutcome> MapLoad(uint32_t state_id, std::string_view prefix,
                               std::string_view packed, uint32_t count,
                               uint64_t max_map_bytes);
  Result<WriteOutcome> MapWrite(uint32_t state_id, std::string_view prefix,
                                MapOp op, std::string_view user_key,
                                std::string_view value, uint64_t max_map_bytes);
  // A map over the cap: records what RocksDB holds for one user key (its
  // value, or nothing when `absent`), clean. kNotCached when the map is not
  // over the cap in the cache.
  Result<WriteOutcome> MapFill(uint32_t state_id, std::string_view prefix,
                               std::string_view user_key,
                               std::string_view value, bool absent,
                               uint64_t max_map_bytes);
  // A map over the cap: writes its dirty records back, so RocksDB holds the
  // whole map (before the caller reads it there). kNotCached otherwise.
  Result<WriteOutcome> MapWriteBackPartial(uint32_t state_id,
                                           std::string_view prefix);
  MapStats MapStatsOf(uint32_t state_id) const {
    const StateSlot* s = accounting_.Find(state_id);
    return s == nullptr ? MapStats() : s->map;
  }
  void CountMapNotCached(uint32_t state_id) {
    if (state_id < CacheLimits::kMaxStates) {
      accounting_.Slot(state_id).map.not_cached_ops += 1;
    }
  }

  CacheStats Stats(uint32_t state_id) const {
    return accounting_.Stats(state_id);
  }
  CacheStats TotalStats() const { return accounting_.Total(); }

  uint64_t bytes() const { return accounting_.bytes(); }
  uint64_t dirty_set_bytes() const { return accounting_.dirty_set_bytes(); }
  uint64_t entries() const { return accounting_.entries(); }
  uint64_t dirty_bytes() const { return accounting_.dirty_bytes(); }
  uint64_t capacity_bytes() const { return limits_.bytes; }
  uint64_t capacity_entries() const { return limits_.entries; }
  CachePolicy policy() const { return policy_; }
  double window_fraction() const { return window_.fraction(); }
  uint64_t AllocatedBytes() const;

 private:
  bool tiny_lfu() const { return policy_ == CachePolicy::kWTinyLfu; }
  // The dirty set's slots count against the byte capacity too (an empty
  // cache is never over: the slots of a set emptied by evictions stay until
  // the next flush releases them, and there is nothing left to evict).
  bool OverCapacity() const {
    if (accounting_.entries() == 0) return false;
    return accounting_.bytes() + accounting_.dirty_set_bytes() >
               limits_.bytes ||
           (limits_.entries != 0 && accounting_.entries() > limits_.entries);
  }
  // The capacity in entries the window adaptation scales its steps by.
  uint64_t AdaptCapacity() const;
  void RefreshQuota();
  void ResizeSketch(uint64_t entries);

  // The slot of (state, key), or EntryIndex::kNoSlot, and its hash; true
  // when the admission has counted this access already. The key is at most
  // kMaxKeyBytes.
  bool Locate(uint32_t state_id, std::string_view key, uint64_t* hash,
              size_t* pos);
  Result<WriteOutcome> Write(uint32_t state_id, std::string_view key,
                             std::string_view value, bool absent, bool dirty);
  Status UpdateInPlace(Entry* e, size_t pos, uint64_t hash,
                       std::string_view value, bool absent);
  // Moves e to a block of `need` bytes, keeping the first `keep` bytes of
  // its value; returns the new block or null.
  Entry* Relocate(Entry* e, size_t pos, size_t need, uint32_t vlen, bool absent,
                  size_t keep = 0);
  Status Insert(uint32_t state_id, std::string_view key, uint64_t hash,
                std::string_view value, bool absent, bool dirty);
  // A hit: LRU moves the entry to the MRU end; W-TinyLFU only marks it
  // referenced (the reordering happens at eviction).
  void OnHit(Entry* e) {
    if (!tiny_lfu()) {
      queues_.MoveToTail(e);
    } else if (!e->referenced()) {
      e->set_referenced();
    }
  }

  // Puts a new body (or value) into e, relocating the block when its size
  // class changes; sets the entry's dirty bit to `dirty`.
  Status ReplaceValue(Entry* e, size_t pos, std::string_view value, bool absent,
                      bool dirty);
  // Writes to a map over the cap (its partial body); see cache_core_maps.cc.
  Result<WriteOutcome> PartialWrite(Entry* e, size_t pos, uint64_t hash,
                                    MapOp op, std::string_view user_key,
                                    std::string_view value,
                                    uint64_t max_map_bytes);
  Result<WriteOutcome> PartialPut(Entry* e, size_t pos, uint64_t hash,
                                  uint32_t at, bool found,
                                  std::string_view user_key,
                                  std::string_view value, uint8_t flags,
                                  uint64_t max_map_bytes);
  // A map grown over its cap: its dirty records (`body`) go to the sink now,
  // and the entry becomes an empty partial body (clean).
  Status Oversize(Entry* e, size_t pos, std::string_view body);

  // Unlinks e from its queue and the index and takes it off the books; the
  // block stays allocated.
  void Detach(Entry* e);
  void Discard(Entry* e);
  void Evict(Entry* e);
  // Evicts down to the capacity; dirty victims (and the write-ahead) reach
  // the sink.
  Status MakeRoom();
  void EvictTinyLfu();
  // While this cache keeps evicting: asks its lease for a rebalance of the
  // slot, at most once per MemoryBudget::kRebalanceIntervalNanos.
  void MaybeRebalance();
  template <class Keep>
  Status WriteBackColdFirst(std::vector<Entry*>* entries, Keep&& keep);

  const CachePolicy policy_;
  const CacheOptions options_;
  const BudgetLease* const lease_;
  uint64_t lease_bytes_seen_ = ~0ull;
  uint64_t lease_entries_seen_ = ~0ull;
  uint64_t quota_evictions_ = 0;  // every eviction, reported to the lease
  // The clock is read once per this many evictions.
  static constexpr uint64_t kEvictionsPerRebalanceCheck = 256;
  uint64_t next_rebalance_check_ = kEvictionsPerRebalanceCheck;
  int64_t last_rebalance_nanos_ = 0;
  bool rebalanced_ = false;
  SegmentLimits limits_;
  EntryIndex index_;
  EntryQueues queues_;
  EntryAllocator blocks_;
  Accounting accounting_;
  TinyLfuAdmission admission_;
  WindowAdapter window_;
  WriteBack write_back_;
  Entry* newest_ = nullptr;  // the entry inserted last, while it is cached
  // The hash of the key the last Get missed, until the next write: a write
  // of that key (value() found nothing, update() follows) is the same access.
  uint64_t missed_hash_ = 0;
  bool missed_valid_ = false;
  MapBodyBuilder map_builder_;  // reused by the map writes
};

inline GetResult CacheCore::Get(uint32_t state_id, std::string_view key) {
  if (state_id >= CacheLimits::kMaxStates)
    return GetResult{Lookup::kBypass, nullptr, 0};
  StateSlot& s = accounting_.Slot(state_id);
  if (key.size() > CacheLimits::kMaxKeyBytes) {
    s.stats.bypassed += 1;
    return GetResult{Lookup::kBypass, nullptr, 0};
  }
  const uint64_t hash = HashKey(state_id, key.data(), key.size());
  const size_t pos = index_.Find(state_id, key, hash);
  const bool hit = pos != EntryIndex::kNoSlot;
  if (tiny_lfu()) {
    if (hit) {
      admission_.RecordHit(index_.At(pos));
    } else {
      admission_.RecordMiss(hash);
    }
    if (options_.adaptive_window) {
      if (window_.Sample(hit) && window_.EndPeriod(AdaptCapacity())) {
        ApplyCapacity(limits_.bytes, limits_.entries);
      }
      if (!hit && window_.OnMiss(hash, admission_.sketch(), AdaptCapacity())) {
        ApplyCapacity(limits_.bytes, limits_.entries);
      }
    }
  }
  if (hit) {
    Entry* e = index_.At(pos);
    index_.Remember(e, pos, hash);
    OnHit(e);
    if (e->absent()) {
      s.stats.absent_hits += 1;
      // A map over the cap: its partial body (empty for a ValueState).
      return GetResult{Lookup::kAbsent, e->value(), e->value_len()};
    }
    s.stats.hits += 1;
    return GetResult{Lookup::kHit, e->value(), e->value_len()};
  }
  s.stats.misses += 1;
  missed_hash_ = hash;
  missed_valid_ = true;
  return GetResult{Lookup::kMiss, nullptr, 0};
}

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_CACHE_CORE_H_
