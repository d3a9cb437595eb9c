// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/cache_core.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace falcon {
namespace cache_internal {

namespace {
// The arena asks for transparent huge pages from this capacity on: each
// chunk is then resident in full (2 MiB), at most a few percent of the cache.
constexpr uint64_t kHugePageMinCapacity = uint64_t{64} << 20;

inline void CopyBytes(char* dst, const char* src, size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

inline uint32_t ValueWord(uint32_t vlen, bool absent) {
  return vlen | (absent ? kAbsentBit : 0);
}
}  // namespace

CacheCore::CacheCore(const CacheOptions& options, WriteBackSink* sink,
                     const BudgetLease* lease, const PolicyTuning& tuning)
    : policy_(options.policy),
      options_(options),
      lease_(lease),
      index_(options.huge_pages),
      blocks_(options.block_arena),
      admission_(tuning),
      window_(tuning,
              std::clamp<uint32_t>(options.window_percent, 1, 80) / 100.0),
      write_back_(sink, options.write_back_batch, &accounting_, &blocks_) {
  if (lease_ != nullptr) {
    RefreshQuota();
  } else {
    ApplyCapacity(options.max_bytes, options.max_entries);
  }
  const uint64_t guess =
      limits_.entries != 0 ? limits_.entries : limits_.bytes / 128;
  ResizeSketch(std::clamp<uint64_t>(guess, 64, 4096));  // <= 32 KiB up front
}

CacheCore::~CacheCore() {
  queues_.Clear([this](Entry* e) { blocks_.Free(e); });
}

uint64_t CacheCore::AllocatedBytes() const {
  return blocks_.HeldBytes(accounting_.block_bytes()) + index_.bytes() +
         admission_.bytes() + window_.bytes() + accounting_.dirty_set_bytes();
}

// --- capacity ---

void CacheCore::ApplyCapacity(uint64_t bytes, uint64_t entries) {
  // Huge pages where a 2 MiB grain is fine: chunks mapped from now on.
  blocks_.set_huge_pages(options_.huge_pages && bytes >= kHugePageMinCapacity);
  limits_.Set(bytes, entries, window_.fraction());
}

void CacheCore::RefreshQuota() {
  if (lease_ == nullptr) return;
  lease_->ReportUsage(accounting_.bytes(), quota_evictions_);
  const uint64_t b = lease_->quota_bytes();
  const uint64_t e = lease_->quota_entries();
  if (b != lease_bytes_seen_ || e != lease_entries_seen_) {
    lease_bytes_seen_ = b;
    lease_entries_seen_ = e;
    ApplyCapacity(b, e);
  }
}

Status CacheCore::ShrinkToQuota() {
  RefreshQuota();
  return MakeRoom();
}

uint64_t CacheCore::AdaptCapacity() const {
  return limits_.entries != 0 ? limits_.entries
                              : std::max<uint64_t>(accounting_.entries(), 64);
}

void CacheCore::ResizeSketch(uint64_t entries) {
  admission_.Resize(entries);
  window_.Resize(entries);
}

// --- writes ---

Result<WriteOutcome> CacheCore::Fill(uint32_t state_id, std::string_view key,
                                     std::string_view value) {
  return Write(state_id, key, value, /*absent=*/false, /*dirty=*/false);
}

Result<WriteOutcome> CacheCore::RemoveNotInDb(uint32_t state_id,
                                              std::string_view key) {
  if (state_id >= CacheLimits::kMaxStates) {
    return Status::InvalidArgument("state id >= CacheLimits::kMaxStates");
  }
  accounting_.Slot(state_id).stats.removes += 1;
  if (key.size() > CacheLimits::kMaxKeyBytes) return WriteOutcome::kCached;
  const uint64_t hash = HashKey(state_id, key.data(), key.size());
  const size_t pos = index_.Find(state_id, key, hash);
  if (pos != EntryIndex::kNoSlot) Discard(index_.At(pos));
  return WriteOutcome::kCached;
}

Result<WriteOutcome> CacheCore::FillAbsent(uint32_t state_id,
                                           std::string_view key) {
  return Write(state_id, key, std::string_view(), /*absent=*/true,
               /*dirty=*/false);
}

Result<WriteOutcome> CacheCore::Write(uint32_t state_id, std::string_view key,
                                      std::string_view value, bool absent,
                                      bool dirty) {
  if (state_id >= CacheLimits::kMaxStates) {
    return Status::InvalidArgument("state id >= CacheLimits::kMaxStates");
  }
  StateSlot& s = accounting_.Slot(state_id);
  if (dirty) {
    if (absent) {
      s.stats.removes += 1;
    } else {
      s.stats.puts += 1;
    }
  } else {
    s.stats.fills += 1;
  }
  RefreshQuota();
  const bool key_ok = key.size() <= CacheLimits::kMaxKeyBytes;
  uint64_t hash = 0;
  size_t pos = EntryIndex::kNoSlot;
  // The sketch has seen this access already.
  const bool counted = key_ok && Locate(state_id, key, &hash, &pos);
  missed_valid_ = false;
  Entry* e = pos != EntryIndex::kNoSlot ? index_.At(pos) : nullptr;

  if (!dirty && e != nullptr)
    return WriteOutcome::kCached;  // cached version wins
  const size_t need =
      CacheLimits::kEntryHeaderBytes + key.size() + value.size();
  const bool fits = key_ok && value.size() <= CacheLimits::kMaxValueBytes &&
                    blocks_.ChargeOf(need) <= limits_.bytes;
  if (!fits) {
    if (e != nullptr) Discard(e);  // the caller writes the newer version itself
    s.stats.not_cached += 1;
    Status st = MakeRoom();
    if (!st.ok()) return st;
    return WriteOutcome::kNotCached;
  }
  // A write of the key the last get or write touched is the same access
  // (Flink's value() then update() for one record): counted once.
  if (tiny_lfu() && dirty && !counted) {
    if (e != nullptr) {
      admission_.RecordHit(e);
    } else {
      admission_.RecordMiss(hash);
    }
  }
  Status st = e != nullptr ? UpdateInPlace(e, pos, hash, value, absent)
                           : Insert(state_id, key, hash, value, absent, dirty);
  if (st.ok()) st = MakeRoom();
  if (!st.ok()) return st;
  return WriteOutcome::kCached;
}

// The memo's entry is the one the last get or write touched: a write of it
// is the same access (Flink's value() then update()). So is a write of the
// key the last Get missed: the sketch counted the miss (the hash includes
// the state id; a collision only counts one access less).
bool CacheCore::Locate(uint32_t state_id, std::string_view key, uint64_t* hash,
                       size_t* pos) {
  if (index_.MemoMatches(state_id, key)) {
    *hash = index_.memo_hash();
    *pos = index_.memo_pos();
    return true;
  }
  *hash = HashKey(state_id, key.data(), key.size());
  *pos = index_.Find(state_id, key, *hash);
  return missed_valid_ && *hash == missed_hash_;
}

// A list's element appended to its cached value (a ListState's RocksDB
// value: elements joined by the delimiter). Only a cached list is appended
// to: a miss changes nothing, and a list grown past what the cache may hold
// or past `max_value_bytes` leaves it (written back first when dirty), so
// the caller merges into RocksDB itself in both cases.
Result<WriteOutcome> CacheCore::Append(uint32_t state_id, std::string_view key,
                                       std::string_view element, char delimiter,
                                       size_t max_value_bytes) {
  if (state_id >= CacheLimits::kMaxStates) {
    return Status::InvalidArgument("state id >= CacheLimits::kMaxStates");
  }
  StateSlot& s = accounting_.Slot(state_id);
  s.stats.puts += 1;
  RefreshQuota();
  // Not counted as not cached: the caller counts the adds it merges.
  if (key.size() > CacheLimits::kMaxKeyBytes) {
    missed_valid_ = false;
    return WriteOutcome::kNotCached;
  }
  uint64_t hash = 0;
  size_t pos = EntryIndex::kNoSlot;
  const bool counted = Locate(state_id, key, &hash, &pos);
  missed_valid_ = false;
  if (pos == EntryIndex::kNoSlot) return WriteOutcome::kNotCached;
  Entry* e = index_.At(pos);
  const bool was_absent = e->absent();
  const size_t old_len = was_absent ? 0 : e->value_len();
  const size_t new_len = old_len + (was_absent ? 0 : 1) + element.size();
  const size_t need = CacheLimits::kEntryHeaderBytes + e->klen + new_len;
  if (new_len >
          std::min<size_t>(max_value_bytes, CacheLimits::kMaxValueBytes) ||
      blocks_.ChargeOf(need) > limits_.bytes) {
    // Too long to cache, which is not the quota evicting: the lease is not
    // told (a join whose lists outgrow the cap is not short of memory, and
    // must go on lending its share). A dirty list reaches the sink before
    // the caller's merge.
    const bool dirty = e->dirty();
    Detach(e);
    if (dirty) {
      write_back_.AddEvicted(e);
    } else {
      blocks_.Free(e);
    }
    Status st = MakeRoom();
    if (!st.ok()) return st;
    return WriteOutcome::kNotCached;
  }
  if (tiny_lfu() && !counted) admission_.RecordHit(e);
  const bool not_in_db = e->not_in_db();
  const uint64_t usable = e->usable();
  const bool move =
      e->in_arena() ? BlockArena::BlockBytes(need) != usable : need > usable;
  if (move) {
    // A list past the arena's blocks grows into a block with half its size
    // again as slack, so appending n bytes copies O(n) bytes in all.
    size_t block = need;
    if (need > BlockArena::kMaxBlockBytes &&
        blocks_.ChargeOf(need + need / 2) <= limits_.bytes) {
      block = need + need / 2;
    }
    e = Relocate(e, pos, block, static_cast<uint32_t>(new_len),
                 /*absent=*/false, old_len);
    if (e == nullptr) {
      return Status::ResourceExhausted("cannot allocate an entry block");
    }
  }
  char* at = e->value() + old_len;
  if (!was_absent) *at++ = delimiter;
  CopyBytes(at, element.data(), element.size());
  e->vword = ValueWord(static_cast<uint32_t>(new_len), /*absent=*/false) |
             (e->vword & (kArenaBit | kRefBit | kHitsMask | kEpochMask));
  index_.Remember(e, pos, hash);
  accounting_.SetDirty(e, true);
  if (not_in_db) e->bits |= kNotInDbBit;
  OnHit(e);
  Status st = MakeRoom();
  if (!st.ok()) return st;
  return WriteOutcome::kCached;
}

// (Only dirty writes update.) The block is reused when the new value fits
// and is not too wasteful (an arena block: when the new length has the same
// size class); a value of the old length always does.
Status CacheCore::UpdateInPlace(Entry* e, size_t pos, uint64_t hash,
                                std::string_view value, bool absent) {
  const bool not_in_db = e->not_in_db();
  const uint32_t vlen = static_cast<uint32_t>(value.size());
  if (vlen != e->value_len()) {
    const size_t need = CacheLimits::kEntryHeaderBytes + e->klen + value.size();
    const uint64_t usable = e->usable();
    const bool move = e->in_arena() ? BlockArena::BlockBytes(need) != usable
                                    : need > usable || need * 2 + 64 < usable;
    if (move) {
      e = Relocate(e, pos, need, vlen, absent);
      if (e == nullptr)
        return Status::ResourceExhausted("cannot allocate an entry block");
    }
  }
  index_.Remember(e, pos, hash);
  e->vword = ValueWord(vlen, absent) |
             (e->vword & (kArenaBit | kRefBit | kHitsMask | kEpochMask));
  CopyBytes(e->value(), value.data(), value.size());
  // Removing a key RocksDB never got needs no tombstone: the entry becomes a
  // clean "known absent". State that lives and dies between two write-backs
  // (a window's accumulator, a retracted join row) never reaches RocksDB.
  accounting_.SetDirty(e, !(absent && not_in_db));
  if (not_in_db) e->bits |= kNotInDbBit;
  OnHit(e);
  return Status::OK();
}

// Same queue position and index slot; the charges follow the new block.
Entry* CacheCore::Relocate(Entry* e, size_t pos, size_t need, uint32_t vlen,
                           bool absent, size_t keep) {
  uint64_t new_usable = 0;
  bool in_arena = false;
  Entry* ne = blocks_.Allocate(need, &new_usable, &in_arena);
  if (ne == nullptr) return nullptr;
  const uint64_t usable = e->usable();
  const bool was_dirty = e->dirty();
  accounting_.SetDirty(e, false);
  std::memcpy(static_cast<void*>(ne), e,
              CacheLimits::kEntryHeaderBytes + e->klen + keep);
  // The new header's length and allocator now, so its charge is the new
  // block's from here on.
  ne->vword = ValueWord(vlen, absent) | (in_arena ? kArenaBit : 0) |
              (e->vword & (kRefBit | kHitsMask | kEpochMask));
  queues_.Relinked(ne, usable, new_usable);
  index_.Replace(pos, ne);
  accounting_.ChangeBlock(ne->state(), usable, new_usable);
  if (newest_ == e) newest_ = ne;
  blocks_.Free(e);
  if (was_dirty) accounting_.SetDirty(ne, true);
  return ne;
}

Status CacheCore::Insert(uint32_t state_id, std::string_view key, uint64_t hash,
                         std::string_view value, bool absent, bool dirty) {
  index_.ReserveOneMore(accounting_.entries());
  const size_t need =
      CacheLimits::kEntryHeaderBytes + key.size() + value.size();
  uint64_t usable = 0;
  bool in_arena = false;
  Entry* e = blocks_.Allocate(need, &usable, &in_arena);
  if (e == nullptr)
    return Status::ResourceExhausted("cannot allocate an entry block");
  e->prev = e->next = nullptr;
  e->vword = ValueWord(static_cast<uint32_t>(value.size()), absent) |
             ((admission_.epoch() & 3) << kEpochShift);
  if (in_arena) e->vword |= kArenaBit;
  e->klen = static_cast<uint16_t>(key.size());
  e->bits =
      static_cast<uint16_t>(state_id | (absent && !dirty ? kNotInDbBit : 0));
  CopyBytes(e->key(), key.data(), key.size());
  CopyBytes(e->value(), value.data(), value.size());
  if (!index_.Insert(e, hash)) {
    blocks_.Free(e);
    return Status::ResourceExhausted("a block address beyond 48 bits");
  }
  queues_.PushTail(kWindow, e);
  newest_ = e;
  accounting_.AddEntry(state_id, usable);
  if (dirty) accounting_.SetDirty(e, true);
  if (tiny_lfu() && accounting_.entries() > admission_.sized_for()) {
    ResizeSketch(admission_.sized_for() + admission_.sized_for() / 4 + 1);
  }
  return Status::OK();
}

// --- eviction ---

void CacheCore::Detach(Entry* e) {
  if (e == newest_) newest_ = nullptr;
  const uint64_t usable = e->usable();
  queues_.Unlink(e);
  index_.Erase(index_.FindEntry(e, e->Hash()));
  accounting_.RemoveEntry(e, usable);
}

void CacheCore::Discard(Entry* e) {
  Detach(e);
  blocks_.Free(e);
}

void CacheCore::Evict(Entry* e) {
  accounting_.stats(e->state()).evictions += 1;
  quota_evictions_ += 1;
  if (tiny_lfu()) admission_.RecordEviction(e);
  const bool dirty = e->dirty();
  Detach(e);
  if (dirty) {
    write_back_.AddEvicted(e);  // written back, then freed
  } else {
    blocks_.Free(e);
  }
}

Status CacheCore::MakeRoom() {
  if (tiny_lfu()) {
    EvictTinyLfu();
  } else {
    while (OverCapacity()) Evict(queues_.head(kWindow));
  }
  if (lease_ != nullptr && quota_evictions_ >= next_rebalance_check_) {
    MaybeRebalance();
  }
  return write_back_.EmitEvicted(queues_);
}

void CacheCore::MaybeRebalance() {
  next_rebalance_check_ = quota_evictions_ + kEvictionsPerRebalanceCheck;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  if (rebalanced_ &&
      now - last_rebalance_nanos_ < MemoryBudget::kRebalanceIntervalNanos) {
    return;
  }
  rebalanced_ = true;
  last_rebalance_nanos_ = now;
  lease_->ReportUsage(accounting_.bytes(), quota_evictions_);
  lease_->RequestRebalance();
  RefreshQuota();
}

// Window overflow becomes the admission candidates; while over capacity, each
// candidate meets the main area's victim and the less frequent one leaves.
void CacheCore::EvictTinyLfu() {
  Entry* cand = queues_.SpillWindow(
      limits_, newest_, [this](Entry* e) { admission_.EndWindowPass(e); });
  while (OverCapacity()) {
    Entry* victim = queues_.MainVictim(limits_, cand);
    if (victim == nullptr) {
      if (cand != nullptr) {
        Entry* next = cand->next;
        Evict(cand);
        cand = next;
      } else {
        Evict(queues_.head(kWindow));  // everything is in the window
      }
    } else if (cand == nullptr || admission_.Admit(cand, victim)) {
      if (cand != nullptr) window_.RecordMainVictim(victim->Hash());
      Evict(victim);
    } else {
      window_.RecordRejected(cand->Hash());
      Entry* next = cand->next;
      Evict(cand);
      cand = next;
    }
  }
}

// --- flushes and drops ---

template <class Keep>
Status CacheCore::WriteBackColdFirst(std::vector<Entry*>* entries,
                                     Keep&& keep) {
  queues_.ForEachColdFirst([&](Entry* e) {
    if (!e->dirty()) return true;
    return keep(e);
  });
  return write_back_.WriteSorted(entries);
}

Status CacheCore::Flush(uint32_t state_id) {
  if (state_id >= CacheLimits::kMaxStates) {
    return Status::InvalidArgument("state id >= CacheLimits::kMaxStates");
  }
  const StateSlot* s = accounting_.Find(state_id);
  if (s == nullptr || s->stats.dirty_entries == 0) return Status::OK();
  std::vector<Entry*> entries;
  accounting_.dirty_set().All(&entries);
  entries.erase(
      std::remove_if(entries.begin(), entries.end(),
                     [&](const Entry* e) { return e->state() != state_id; }),
      entries.end());
  return write_back_.WriteSorted(&entries);
}

Status CacheCore::FlushAll() {
  if (accounting_.dirty_entries() == 0) return Status::OK();
  std::vector<Entry*> entries;
  entries.reserve(accounting_.dirty_entries());
  accounting_.dirty_set().All(&entries);
  Status status = write_back_.WriteSorted(&entries);
  accounting_.dirty_set().ReleaseIfEmpty();  // regrows over the next interval
  return status;
}

Status CacheCore::WriteBackSome(size_t max_entries) {
  if (accounting_.dirty_entries() == 0 || max_entries == 0) {
    return Status::OK();
  }
  std::vector<Entry*> entries;
  entries.reserve(std::min<size_t>(max_entries, accounting_.dirty_entries()));
  accounting_.dirty_set().Scan(max_entries, &entries);
  return write_back_.WriteSorted(&entries);
}

Status CacheCore::WriteBackDirty(uint64_t max_dirty_bytes) {
  if (accounting_.dirty_bytes() <= max_dirty_bytes) return Status::OK();
  std::vector<Entry*> entries;
  uint64_t remaining = accounting_.dirty_bytes();
  return WriteBackColdFirst(&entries, [&](Entry* e) {
    entries.push_back(e);
    remaining -= e->charge();
    return remaining > max_dirty_bytes;
  });
}

void CacheCore::DropState(uint32_t state_id) {
  const StateSlot* s = accounting_.Find(state_id);
  if (s == nullptr || s->stats.entries == 0) return;
  queues_.ForEachColdFirst([&](Entry* e) {
    if (e->state() == state_id) Discard(e);
    return true;
  });
}

void CacheCore::Clear() {
  queues_.Clear([this](Entry* e) { blocks_.Free(e); });
  index_.Reset();  // releases a grown index
  newest_ = nullptr;
  accounting_.ClearEntries();
}

}  // namespace cache_internal
}  // namespace falcon
