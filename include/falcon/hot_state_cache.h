// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// HotStateCache: a bounded write-back cache of serialized keyed-state entries
// in native memory, one per Flink keyed subtask (docs/cache.md).
//
// Entries are keyed by (state id, key bytes) and hold value bytes, exactly as
// RocksDB stores them. put() and remove() make an entry dirty (remove writes a
// tombstone that is later written back as a delete); fill()/fill_absent()
// insert what the caller just read from RocksDB after a miss, clean. Dirty
// entries reach RocksDB through a caller-supplied WriteBackSink: evicted dirty
// entries in one batch per call, Flush()/FlushAll() sorted by key per state,
// WriteBackDirty() the coldest dirty entries until a dirty-byte bound holds.
// The cache never flushes everything and empties itself.
//
// Design choice: eviction policy
//   Default: W-TinyLFU -- an admission window (1% of the capacity at first,
//   then adapted between 1% and 100% from ghost hits, below) in
//   front of a segmented main area (20% probation, 80% protected), with a
//   4-bit count-min frequency sketch (four counters in one cache line,
//   conservative update, 8 bytes = 16 counters per entry and at least
//   16 KiB, halved every 60 x max(capacity, 2048) accesses -- or sooner,
//   once 64 admission compares have found the victim's count saturated,
//   since then nothing can be admitted) that admits a window victim into the
//   main area only if it has been seen more often than the main area's
//   victim. Picked
//   by measured hit ratio (bench/cache_sim, docs/benchmarks.md): on Zipf
//   traces over 200k and 1M keys it reaches 0.952-0.994 of the top-k
//   frequency bound, >= 0.95 in all 18 cells (0.614 vs bound 0.625 vs LRU
//   0.515 at alpha 0.99 with 1% of 200k keys) and beats LRU in every cell;
//   it is scan-resistant (a key seen once never displaces a main entry seen
//   more often), and on the Nexmark-like recency trace, where a fixed 1%
//   window loses 13-50 points to LRU, the adaptive window is +1.0..+1.3
//   points above LRU with caches of 1% of the keys, and +0.2..+1.0 at 10%
//   (it was 0.6 points below LRU there until a window pass counted once,
//   and 0.2 until a one-sided batch could grow a window below half the
//   cache without the climber, below).
//   Misses against the targets are listed in docs/benchmarks.md.
//   Hits do not reorder anything: a W-TinyLFU hit sets a "referenced" bit in
//   the entry's header and counts itself in 4 bits of that header (aged by
//   the sketch's halvings), not in the sketch; the entry's count goes into
//   the sketch when admission compares it and when it is evicted, so every
//   estimate still sees every access (one sketch update costs 4 counter
//   reads and writes in another line: 12 of a 10k-entry hit's 60 ns). The
//   reordering is deferred to
//   eviction (CLOCK-style second chance: a referenced window head goes back
//   behind the newest entry, a referenced protected head to the MRU end, a
//   referenced probation entry is promoted to protected when it reaches the
//   head). A hit touches no neighbouring entry.
//   In the window, a pass (from insertion or a second chance to the head)
//   counts at most once as frequency, however often it was hit: a burst of
//   hits on a new key is recency, which the window rewards already, and
//   counted in full it let keys that had gone cold outrank keys with a
//   steady rate (on the recency trace the main area filled with aged
//   auctions, and the window grew to the whole cache, a CLOCK that trails
//   LRU). Hits in the main area count in full.
//   Window adaptation: two small "ghosts" (Bloom filters of the keys last
//   rejected by admission, and of the main-area keys last evicted, 1/16 of
//   the capacity each). A miss found in the first grows the window by one
//   entry, unless the sketch counts the key at 8 or more (then a larger main
//   area, not a larger window, would have kept it); a miss found in the
//   second shrinks it by one (ARC's idea applied to the window). It took
//   over from a hill climber on the hit ratios of consecutive periods,
//   whose per-period noise exceeded one step's effect: with the ghosts, 2
//   more Zipf cells reach 95% of the bound and the 1% recency cells went
//   from below LRU to above it. The climber still runs,
//   with steps of 1/128 (up) and 1/64 (down) of the capacity: the ghosts
//   cannot tell when a large window should shrink again (both sides hold
//   equally hot keys), the slow downward drift of the climber can. When a
//   batch of 256 ghost hits is clearly one-sided (3 sigma) and the
//   climber's last period moved the same way and gained, the window moves
//   16 entries per net hit: large caches on recency-heavy workloads need
//   most of their capacity as window, and one entry per ghost hit took most
//   of the simulated trace to get there (10% recency cell at 200k keys:
//   -2.03 -> -0.70 points against LRU). A window below half the cache grows
//   that way without the climber's agreement: right after the cache first
//   fills the hit ratio falls whatever the window does, so the climber never
//   agreed while new keys kept losing admission (that cell: -0.16 -> +0.36).
//   S3-FIFO was the alternative: a cheap hit path too, but its 2-bit
//   frequency and ghost queue trail a sketch on LFU-friendly, Zipf-like
//   traces (published comparisons), the workload keyed state mostly is; it
//   was not implemented and measured here. LRU is kept selectable as the
//   baseline (CachePolicy::kLru, exact: a hit moves the entry).
//
// Layout and hit path: one block per entry, [24-byte header: queue links,
// value length and flags, key length, state id][key][value]; blocks of up to
// 1 KiB come from the cache's own arena (8-byte size classes in 64 KiB slabs
// of 2 MiB chunks, advised for transparent huge pages when the capacity is at
// least 64 MiB: src/cache/block_arena.h), larger ones from malloc; the index
// is an open-addressing table of 8-byte slots (block pointer | 8-bit hash tag
// | probe distance, Robin Hood linear probing). A W-TinyLFU hit reads one slot
// line, then the block (key compare, flags, hit count, value): two dependent
// cache misses, and no sketch line.
//
// Memory accounting (docs/cache.md, "Per-entry overhead"): an entry costs
//   usable(block) + kEntryOverheadBytes
// where block = kEntryHeaderBytes (24) + key + value, usable() is what the
// allocator hands out for it (the arena: block rounded up to 8 bytes;
// malloc: malloc_usable_size), so the header and the allocator's rounding
// are inside it, and
// kEntryOverheadBytes (24) covers the worst-case index-slot share (14: the
// table grows by 1.4x at 80% load) and the worst-case frequency-sketch share
// (10: 8 bytes per entry, regrown by 1.25x). For key + value a multiple of 16
// this is exactly key + value + 48 bytes (at most 55 for other sizes in the
// arena; glibc's malloc rounds to 16 and would charge up to 63). Usage
// (bytes()) never exceeds the quota after a call returns, except transiently
// when the quota source shrank (next put/fill/ShrinkToQuota).
//
// Adaptive bypass (per state, optional): every window of `bypass_window`
// gets of a state, its hit ratio is compared with `bypass_threshold`; after
// `bypass_enter_windows` consecutive windows below it the state is bypassed:
// get() answers kBypass for keys it does not hold (the caller reads RocksDB
// and must not fill), put()/remove() of keys it does not hold answer
// kNotCached (the caller writes RocksDB itself), keys it still holds keep
// being served and updated in place, so no write-back is needed to enter
// bypass and nothing can go stale. After `bypass_probe_interval` gets the
// state is probed: it is cached again for one window; if that window is still
// below the threshold it returns to bypass and the probe interval doubles (up
// to 64x), otherwise it stays cached.
//
// Thread-safety: NOT thread-safe. One cache belongs to one task thread; no
// locks inside. The only cross-thread input is the BudgetLease quota (atomic).
// Ownership: the cache owns its entries; the sink and the lease are borrowed
// and must outlive the cache. Views returned by Get() point into the cache and
// are valid until the next non-const call on the cache.
// Errors: InvalidArgument for a state id >= kMaxStates; a failing sink's
// Status is returned as is (the cache is then consistent in memory, but the
// victims of that call are lost: the caller must fail the task so Flink
// restores from the last checkpoint).

#ifndef FALCON_HOT_STATE_CACHE_H_
#define FALCON_HOT_STATE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "falcon/memory_budget.h"
#include "falcon/result.h"
#include "falcon/status.h"

namespace falcon {

namespace cache_internal {
class BlockArena;
// The index's memory (src/cache/block_arena.cc). With `huge` set, arrays of
// at least 2 MiB are mapped from a 2 MiB boundary and advised for
// transparent huge pages before the first touch, so a lookup in a large
// index does not miss the TLB; everything else comes from operator new.
void* AllocateIndex(size_t bytes, bool huge);
void FreeIndex(void* p, size_t bytes, bool huge);
template <class T>
struct IndexAllocator {
  using value_type = T;
  using propagate_on_container_swap = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_copy_assignment = std::true_type;
  explicit IndexAllocator(bool huge_pages = false) : huge(huge_pages) {}
  template <class U>
  IndexAllocator(const IndexAllocator<U>& o) : huge(o.huge) {}
  T* allocate(size_t n) {
    return static_cast<T*>(AllocateIndex(n * sizeof(T), huge));
  }
  void deallocate(T* p, size_t n) { FreeIndex(p, n * sizeof(T), huge); }
  template <class U>
  bool operator==(const IndexAllocator<U>& o) const {
    return huge == o.huge;
  }
  template <class U>
  bool operator!=(const IndexAllocator<U>& o) const {
    return huge != o.huge;
  }
  bool huge;
};
class FrequencySketch;
class GhostFilter;
}  // namespace cache_internal

// One dirty entry handed to a WriteBackSink. Views are valid during the
// Write() call only.
struct DirtyEntry {
  uint32_t state_id;
  std::string_view key;
  std::string_view value;  // empty when is_delete
  bool is_delete;
};

// Implemented by the caller (the JNI layer appends to a native buffer that
// Java drains into a RocksDB WriteBatch right after the call).
// Called synchronously from the cache's calls, on the cache's thread, with
// 1..kMaxBatch entries. Must not call back into the cache.
class WriteBackSink {
 public:
  virtual ~WriteBackSink() = default;
  [[nodiscard]] virtual Status Write(const DirtyEntry* entries, size_t count) = 0;
};

enum class CachePolicy : uint8_t { kWTinyLfu = 0, kLru = 1 };

struct CacheOptions {
  CachePolicy policy = CachePolicy::kWTinyLfu;
  // Used when no BudgetLease is given: byte bound (key + value + overhead) and
  // optional entry cap (0 = none). Changeable later with SetCapacity().
  uint64_t max_bytes = 64ull << 20;
  uint64_t max_entries = 0;
  // W-TinyLFU: admission window share of the capacity, in percent (1..50).
  uint32_t window_percent = 1;
  // W-TinyLFU: adapt the window share (1%..100%) from ghost hits (see the
  // design comment; recency-heavy workloads want a large window,
  // frequency-heavy ones a small one).
  bool adaptive_window = true;
  // Adaptive bypass. A threshold <= 0 turns it off.
  double bypass_threshold = 0.0;
  uint32_t bypass_window = 20000;         // gets per measurement window
  uint32_t bypass_enter_windows = 2;      // consecutive low windows to bypass
  uint32_t bypass_probe_interval = 200000;  // gets while bypassed before a probe
  // Batched write-back: when an eviction has to write a dirty entry back, the
  // same sink call also writes back up to this many more dirty entries from
  // the cold ends of the queues (the next eviction candidates), which stay
  // cached, now clean. Their later evictions then write nothing, so one
  // RocksDB write serves about this many evictions instead of one each.
  // 0 or 1 = off (write back only the evicted entries).
  uint32_t write_back_batch = 32;
  // Entry blocks of up to 1 KiB from the cache's own arena (8-byte size
  // classes) instead of malloc. Off: every block from malloc (the baseline
  // the benchmarks compare with).
  bool block_arena = true;
  // Transparent huge pages (madvise) for the arena's chunks while the
  // capacity is at least 64 MiB, and for an index of 2 MiB or more. Off: 4 KiB
  // pages only (hosts where huge-page compaction stalls are a concern).
  bool huge_pages = true;
};

// What Get() found.
enum class Lookup : uint8_t {
  kMiss = 0,    // not cached: read RocksDB, then Fill()/FillAbsent()
  kHit = 1,     // value in GetResult::value
  kAbsent = 2,  // cached as absent (tombstone or known absent): do NOT read RocksDB
  kBypass = 3,  // state bypassed and key not cached: read RocksDB, do not fill
};

struct GetResult {
  Lookup kind;
  // kHit only: the value bytes, valid until the next non-const cache call.
  const char* data;
  size_t size;
  std::string_view value() const { return std::string_view(data, size); }
};

// Outcome of Put()/Remove()/Fill().
enum class WriteOutcome : uint8_t {
  kCached = 0,     // the cache holds it (dirty for put/remove, clean for fill)
  kNotCached = 1,  // the caller writes/deletes in RocksDB itself (bypassed
                   // state, entry larger than the quota, key >= 64 KiB,
                   // value >= 16 MiB, quota 0); any cached version of the
                   // key was discarded.
                   // For Fill: nothing to do.
};

// Per-state counters (also summed over states by TotalStats()).
struct CacheStats {
  uint64_t hits = 0;          // gets answered kHit
  uint64_t absent_hits = 0;   // gets answered kAbsent
  uint64_t misses = 0;        // gets answered kMiss
  uint64_t bypassed = 0;      // gets answered kBypass
  uint64_t puts = 0;
  uint64_t removes = 0;
  uint64_t fills = 0;
  uint64_t evictions = 0;        // entries evicted (clean or dirty)
  uint64_t dirty_writebacks = 0; // dirty entries handed to the sink (any path)
  uint64_t tombstones = 0;       // deletes handed to the sink
  uint64_t not_cached = 0;       // writes answered kNotCached
  uint64_t entries = 0;       // current
  uint64_t bytes = 0;         // current, charged bytes
  uint64_t dirty_entries = 0; // current
  uint64_t dirty_bytes = 0;   // current
  uint64_t bypass_entered = 0;   // times the state entered bypass
  bool bypassed_now = false;     // current bypass state
  double window_hit_ratio = 0.0; // last completed bypass window (-1: none yet)
};

class HotStateCache {
 public:
  static constexpr uint32_t kMaxStates = 4096;
  static constexpr size_t kMaxKeyBytes = 65535;
  // Larger values are not cached (the caller writes them to RocksDB); the
  // entry header keeps the length in 23 bits (the 24th says which allocator
  // holds the block).
  static constexpr size_t kMaxValueBytes = (1u << 23) - 1;
  // Bytes of every entry's block before its key and value (queue links and
  // metadata); part of the block, so inside its usable size.
  static constexpr size_t kEntryHeaderBytes = 24;
  // Charged per entry on top of the block's usable size: the worst-case
  // index-slot share (16) and frequency-sketch share (8).
  static constexpr uint64_t kEntryOverheadBytes = 24;
  static constexpr size_t kMaxBatch = 256;

  // `sink` must be non-null and outlive the cache. `lease` (optional) provides
  // the quota; when null, options.max_bytes/max_entries do.
  HotStateCache(const CacheOptions& options, WriteBackSink* sink,
                const BudgetLease* lease = nullptr);
  ~HotStateCache();
  HotStateCache(const HotStateCache&) = delete;
  HotStateCache& operator=(const HotStateCache&) = delete;

  // Looks a key up. Never calls the sink; allocates only the first time a
  // state id is seen (its statistics slot), never on a hit. A state id >=
  // kMaxStates or a key longer than kMaxKeyBytes answers kBypass (read
  // RocksDB, do not fill).
  GetResult Get(uint32_t state_id, std::string_view key);

  // Write-back update: caches (state, key) -> value, dirty. May evict (dirty
  // victims go to the sink before this returns).
  [[nodiscard]] Result<WriteOutcome> Put(uint32_t state_id, std::string_view key,
                                         std::string_view value);
  // Write-back delete: caches a dirty tombstone (written back as a delete).
  [[nodiscard]] Result<WriteOutcome> Remove(uint32_t state_id,
                                            std::string_view key);
  // After a kMiss: insert the value read from RocksDB (clean). If the key got
  // cached meanwhile, the cached version wins (it is at least as new).
  [[nodiscard]] Result<WriteOutcome> Fill(uint32_t state_id, std::string_view key,
                                          std::string_view value);
  // After a kMiss whose RocksDB read found nothing: cache "known absent".
  [[nodiscard]] Result<WriteOutcome> FillAbsent(uint32_t state_id,
                                                std::string_view key);

  // Writes back every dirty entry of one state (or of all states, in state id
  // order), sorted bytewise by key, in batches of <= kMaxBatch. Afterwards
  // they are clean; flushed tombstones stay cached as clean "known absent"
  // entries (they still save a RocksDB read).
  [[nodiscard]] Status Flush(uint32_t state_id);
  [[nodiscard]] Status FlushAll();
  // Writes back dirty entries, coldest first in eviction order, until
  // dirty_bytes() <= max_dirty_bytes. They stay cached, clean.
  [[nodiscard]] Status WriteBackDirty(uint64_t max_dirty_bytes);
  // Drops every entry of a state (dirty ones are NOT written back): for a
  // dropped state or one cleared/rewritten in RocksDB directly.
  void DropState(uint32_t state_id);
  // Drops everything (no write-back) and resets bypass; statistics stay.
  void Clear();

  // Re-reads the lease quota and evicts down to it.
  [[nodiscard]] Status ShrinkToQuota();
  // Only without a lease: new bounds, evicting down to them.
  [[nodiscard]] Status SetCapacity(uint64_t max_bytes, uint64_t max_entries);

  CacheStats Stats(uint32_t state_id) const;
  CacheStats TotalStats() const;
  bool IsBypassed(uint32_t state_id) const;

  uint64_t bytes() const { return bytes_; }
  uint64_t entries() const { return count_; }
  uint64_t dirty_bytes() const { return dirty_bytes_; }
  uint64_t capacity_bytes() const { return cap_bytes_; }
  uint64_t capacity_entries() const { return cap_entries_; }
  CachePolicy policy() const { return policy_; }
  // W-TinyLFU: current admission-window share of the capacity (0..1).
  double window_fraction() const { return window_frac_; }
  // Bytes the allocators really hold for entries and index structures
  // (index, sketch, ghosts, malloc_usable_size of malloc'd blocks, and the
  // arena's ResidentBytes: its slabs in use, partly used or kept, and whole
  // chunks where they are on huge pages). For the overhead benchmark and tests.
  uint64_t AllocatedBytes() const;
  // Charged bytes of one entry with this key and value size (a cache with
  // the arena: CacheOptions::block_arena, the default).
  static uint64_t ChargeFor(size_t key_size, size_t value_size);

 private:
  struct Entry;  // header of an entry's block (hot_state_cache.cc)
  struct Queue {
    Entry* head;  // LRU end (eviction side)
    Entry* tail;  // MRU end
    uint64_t bytes;
    uint64_t count;
  };
  struct StateSlot;

  StateSlot& Slot(uint32_t state_id);
  StateSlot& GrowSlots(uint32_t state_id);
  // Index (open addressing, Robin Hood): slot position of the entry with this
  // key, or kNoSlot.
  size_t Find(uint32_t state, std::string_view key, uint64_t hash) const;
  size_t FindEntry(const Entry* e, uint64_t hash) const;
  bool MemoMatches(uint32_t state, std::string_view key) const;
  void Remember(Entry* e, size_t pos, uint64_t hash);
  bool IndexInsert(Entry* e, uint64_t hash);
  void IndexErase(size_t pos);
  void Rehash(size_t slots);
  void Unlink(Entry* e);
  void PushTail(uint8_t queue, Entry* e);
  void InsertBefore(uint8_t queue, Entry* pos, Entry* e);
  void MoveToTail(Entry* e);
  void OnHit(Entry* e);
  void Demote(Entry* before);
  // Blocks: from the arena (marked in the header) or malloc.
  Entry* AllocBlock(size_t bytes, uint64_t* usable, bool* in_arena);
  void FreeBlock(Entry* e);
  uint64_t ChargeOf(size_t bytes) const;
  void SetDirty(Entry* e, bool dirty);
  void Detach(Entry* e);
  void Discard(Entry* e);
  void Evict(Entry* e);
  Entry* MainVictim(Entry* cand);
  bool Admit(Entry* candidate, Entry* victim);
  void BumpHits(Entry* e);
  void FoldHits(Entry* e, uint64_t hash);
  void CountWindowPass(Entry* e);
  bool OverCapacity() const;
  void RefreshQuota();
  void ApplyCapacity(uint64_t bytes, uint64_t entries);
  void CountGet(StateSlot& s, bool hit);
  void EndBypassWindow(StateSlot& s, bool hit);
  void Climb(bool hit);
  void ClimbStep();
  void GhostAdapt(uint64_t hash);
  void ResizeSketch(uint64_t entries);
  Result<WriteOutcome> Write(uint32_t state_id, std::string_view key,
                             std::string_view value, bool absent, bool dirty);
  Status MakeRoom();
  void CollectWriteAhead();
  Status EmitVictims();
  Status WriteBackSorted(std::vector<Entry*>* entries);
  template <class F>
  void ForEachColdFirst(F&& f);

  const CachePolicy policy_;
  const CacheOptions options_;
  WriteBackSink* const sink_;
  const BudgetLease* const lease_;

  uint64_t cap_bytes_ = 0;
  uint64_t cap_entries_ = 0;  // 0 = none
  double window_frac_;
  // Window adaptation (Climb): hits and gets of the running period, its
  // length, the previous period's hit ratio and the current direction.
  uint64_t climb_hits_ = 0;
  uint64_t climb_samples_ = 0;
  uint64_t climb_period_ = 0;
  double climb_prev_rate_ = -1.0;
  int climb_dir_ = 1;
  // The last period's hit ratio beat the one before it: the climber's
  // direction is backed by its own evidence.
  bool climb_confirmed_ = false;
  // Window adaptation (GhostAdapt): ghost hits of the running batch on
  // either side.
  uint32_t ghost_grow_hits_ = 0;
  uint32_t ghost_shrink_hits_ = 0;
  uint64_t window_max_ = 0;
  uint64_t protected_max_ = 0;
  uint64_t window_max_entries_ = 0;
  uint64_t protected_max_entries_ = 0;
  uint64_t lease_bytes_seen_ = ~0ull;
  uint64_t lease_entries_seen_ = ~0ull;

  // Slot: block pointer (low 48 bits) | tag (8 bits) | probe distance (8).
  using Slots = std::vector<uint64_t, cache_internal::IndexAllocator<uint64_t>>;
  Slots slots_;
  Queue queues_[3];
  Entry* newest_ = nullptr;  // the entry inserted last, while it is cached
  // The last entry found by Get or updated by a write, its slot and hash;
  // null once the index changed since (MemoMatches).
  Entry* memo_ = nullptr;
  size_t memo_pos_ = 0;
  uint64_t memo_hash_ = 0;
  uint64_t count_ = 0;
  uint64_t bytes_ = 0;
  uint64_t block_bytes_ = 0;  // sum of the blocks' usable sizes
  uint64_t dirty_bytes_ = 0;
  uint64_t dirty_count_ = 0;
  std::unique_ptr<cache_internal::FrequencySketch> sketch_;
  std::unique_ptr<cache_internal::BlockArena>
      arena_;  // null: every block from malloc
  // W-TinyLFU window adaptation: recently rejected admission candidates and
  // recently evicted main-area victims (GhostAdapt).
  std::unique_ptr<cache_internal::GhostFilter> ghost_rejected_;
  std::unique_ptr<cache_internal::GhostFilter> ghost_victims_;
  std::vector<StateSlot> states_;
  std::vector<Entry*> victims_;     // dirty victims of one call (reused)
  size_t evicted_victims_ = 0;      // victims_[0, this) are evicted; the rest are written ahead
  std::vector<DirtyEntry> batch_;   // reused scratch
};

}  // namespace falcon

#endif  // FALCON_HOT_STATE_CACHE_H_
