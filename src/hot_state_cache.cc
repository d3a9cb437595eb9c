// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// HotStateCache implementation. Layout (docs/cache.md):
//  * one malloc'd block per entry: [uint32 value length][key][value];
//  * a 24-byte record per entry in chunked arrays, addressed by a 32-bit id:
//    block pointer, queue links (prev/next ids), hash-chain link and a meta
//    word (key length:16 | state id:12 | queue:2 | dirty:1 | absent:1);
//  * a power-of-two array of bucket heads (load factor in (0.5, 1]);
//  * three intrusive queues (W-TinyLFU: window, probation, protected; LRU uses
//    queue 0 only) and the frequency sketch.

#include "falcon/hot_state_cache.h"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <xxhash.h>

#include "cache/frequency_sketch.h"

namespace falcon {

namespace {

constexpr uint32_t kNil = 0xFFFFFFFFu;
constexpr uint32_t kChunkShift = 10;
constexpr uint32_t kChunkSize = 1u << kChunkShift;
constexpr uint32_t kMaxIds = 0xFFFFFFF0u;

constexpr uint8_t kWindow = 0;     // LRU: the only queue
constexpr uint8_t kProbation = 1;
constexpr uint8_t kProtected = 2;

constexpr double kClimbInitialStep = 0.0625;
constexpr double kClimbMinStep = 0.001;
constexpr double kClimbHold = 0.001;
constexpr double kMinWindow = 0.01;
constexpr double kMaxWindow = 1.0;

constexpr uint32_t kKeyLenMask = 0xFFFFu;
constexpr uint32_t kStateShift = 16;
constexpr uint32_t kStateMask = 0xFFFu;
constexpr uint32_t kIdentityMask = 0x0FFFFFFFu;  // key length + state
constexpr uint32_t kQueueShift = 28;
constexpr uint32_t kDirtyBit = 1u << 30;
constexpr uint32_t kAbsentBit = 1u << 31;

inline uint64_t HashKey(uint32_t state, const void* key, size_t len) {
  return XXH3_64bits_withSeed(key, len, state);
}

inline void CopyBytes(char* dst, const char* src, size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

inline bool SameBytes(const char* a, const char* b, size_t n) {
  return n == 0 || std::memcmp(a, b, n) == 0;
}

}  // namespace

struct HotStateCache::Rec {
  char* block;  // [uint32 value length][key][value]
  uint32_t prev;
  uint32_t next;
  uint32_t chain;
  uint32_t meta;

  uint32_t key_len() const { return meta & kKeyLenMask; }
  uint32_t state() const { return (meta >> kStateShift) & kStateMask; }
  uint8_t queue() const { return static_cast<uint8_t>((meta >> kQueueShift) & 3); }
  bool dirty() const { return (meta & kDirtyBit) != 0; }
  bool absent() const { return (meta & kAbsentBit) != 0; }
  uint32_t value_len() const {
    uint32_t v;
    std::memcpy(&v, block, sizeof(v));
    return v;
  }
  const char* key() const { return block + 4; }
  const char* value() const { return block + 4 + key_len(); }
  void set_queue(uint8_t q) {
    meta = (meta & ~(3u << kQueueShift)) | (uint32_t(q) << kQueueShift);
  }
};

struct HotStateCache::StateSlot {
  CacheStats stats;
  uint32_t window_gets = 0;
  uint32_t window_hits = 0;
  uint32_t low_windows = 0;
  uint32_t probe_multiplier = 1;
  uint64_t bypass_gets_left = 0;
  bool probing = false;
  StateSlot() { stats.window_hit_ratio = -1.0; }
};

// ---------------------------------------------------------------------------

HotStateCache::HotStateCache(const CacheOptions& options, WriteBackSink* sink,
                             const BudgetLease* lease)
    : policy_(options.policy),
      options_(options),
      sink_(sink),
      lease_(lease),
      window_frac_(std::clamp<uint32_t>(options.window_percent, 1, 80) / 100.0),
      free_head_(kNil),
      sketch_(new cache_internal::FrequencySketch()) {
  for (Queue& q : queues_) q = Queue{kNil, kNil, 0, 0};
  buckets_.assign(64, kNil);
  bucket_mask_ = 63;
  if (lease_ != nullptr) {
    RefreshQuota();
  } else {
    ApplyCapacity(options.max_bytes, options.max_entries);
  }
  uint64_t guess = cap_entries_ != 0 ? cap_entries_ : cap_bytes_ / 128;
  sketch_->Resize(std::clamp<uint64_t>(guess, 64, 4096));
  victims_.reserve(64);
  batch_.reserve(kMaxBatch);
}

HotStateCache::~HotStateCache() { Clear(); }

HotStateCache::Rec& HotStateCache::R(uint32_t id) {
  return chunks_[id >> kChunkShift][id & (kChunkSize - 1)];
}
const HotStateCache::Rec& HotStateCache::R(uint32_t id) const {
  return chunks_[id >> kChunkShift][id & (kChunkSize - 1)];
}

uint64_t HotStateCache::ChargeFor(size_t key_size, size_t value_size) {
  static_assert(sizeof(Rec) == 24, "the record is part of kEntryOverheadBytes");
  // glibc's malloc_usable_size for a request n: max(24, round16(n + 8) - 8).
  uint64_t n = 4 + key_size + value_size;
  uint64_t usable = ((n + 8 + 15) & ~uint64_t{15}) - 8;
  if (usable < 24) usable = 24;
  return usable + kEntryOverheadBytes;
}

uint64_t HotStateCache::AllocatedBytes() const {
  uint64_t blocks = bytes_ - count_ * kEntryOverheadBytes;
  return blocks + chunks_.size() * kChunkSize * sizeof(Rec) +
         buckets_.size() * sizeof(uint32_t) + sketch_->bytes();
}

HotStateCache::StateSlot& HotStateCache::Slot(uint32_t state_id) {
  if (state_id >= states_.size()) states_.resize(state_id + 1);
  return states_[state_id];
}

// --- queues ----------------------------------------------------------------

void HotStateCache::Unlink(uint32_t id) {
  Rec& r = R(id);
  Queue& q = queues_[r.queue()];
  if (r.prev != kNil) R(r.prev).next = r.next; else q.head = r.next;
  if (r.next != kNil) R(r.next).prev = r.prev; else q.tail = r.prev;
  uint64_t charge = malloc_usable_size(r.block) + kEntryOverheadBytes;
  q.bytes -= charge;
  q.count -= 1;
  r.prev = r.next = kNil;
}

void HotStateCache::PushTail(uint8_t qi, uint32_t id) {
  Rec& r = R(id);
  Queue& q = queues_[qi];
  r.set_queue(qi);
  r.prev = q.tail;
  r.next = kNil;
  if (q.tail != kNil) R(q.tail).next = id; else q.head = id;
  q.tail = id;
  q.bytes += malloc_usable_size(r.block) + kEntryOverheadBytes;
  q.count += 1;
}

void HotStateCache::Demote() {
  Queue& p = queues_[kProtected];
  while (p.head != kNil &&
         (p.bytes > protected_max_ ||
          (cap_entries_ != 0 && p.count > protected_max_entries_))) {
    uint32_t id = p.head;
    Unlink(id);
    PushTail(kProbation, id);
  }
}

void HotStateCache::OnHit(uint32_t id) {
  Rec& r = R(id);
  const uint8_t qi = r.queue();
  if (qi == kProbation) {
    Unlink(id);
    PushTail(kProtected, id);
    Demote();
    return;
  }
  // Move to the MRU end of the same queue: links only, no accounting.
  Queue& q = queues_[qi];
  if (q.tail == id) return;
  if (r.prev != kNil) R(r.prev).next = r.next; else q.head = r.next;
  R(r.next).prev = r.prev;  // r.next exists: id is not the tail
  r.prev = q.tail;
  r.next = kNil;
  R(q.tail).next = id;
  q.tail = id;
}

// --- index -----------------------------------------------------------------

uint64_t HotStateCache::HashOf(uint32_t id) const {
  const Rec& r = R(id);
  return HashKey(r.state(), r.key(), r.key_len());
}

uint32_t HotStateCache::Find(uint32_t state, std::string_view key,
                             uint64_t hash) const {
  const uint32_t want = static_cast<uint32_t>(key.size()) | (state << kStateShift);
  uint32_t id = buckets_[hash & bucket_mask_];
  while (id != kNil) {
    const Rec& r = R(id);
    if ((r.meta & kIdentityMask) == want &&
        SameBytes(r.key(), key.data(), key.size())) {
      return id;
    }
    id = r.chain;
  }
  return kNil;
}

void HotStateCache::IndexInsert(uint32_t id, uint64_t hash) {
  uint32_t& head = buckets_[hash & bucket_mask_];
  R(id).chain = head;
  head = id;
}

void HotStateCache::IndexErase(uint32_t id, uint64_t hash) {
  uint32_t* link = &buckets_[hash & bucket_mask_];
  while (*link != id) link = &R(*link).chain;
  *link = R(id).chain;
  R(id).chain = kNil;
}

void HotStateCache::GrowBuckets() {
  size_t n = buckets_.size() * 2;
  std::vector<uint32_t> fresh(n, kNil);
  buckets_.swap(fresh);
  bucket_mask_ = n - 1;
  for (uint32_t old_head : fresh) {
    uint32_t id = old_head;
    while (id != kNil) {
      uint32_t next = R(id).chain;
      IndexInsert(id, HashOf(id));
      id = next;
    }
  }
}

uint32_t HotStateCache::AllocRec() {
  if (free_head_ != kNil) {
    uint32_t id = free_head_;
    free_head_ = R(id).chain;
    return id;
  }
  if (next_unused_ >= kMaxIds) return kNil;
  if ((next_unused_ >> kChunkShift) >= chunks_.size()) {
    chunks_.emplace_back(new Rec[kChunkSize]);
  }
  return next_unused_++;
}

// --- accounting --------------------------------------------------------------

void HotStateCache::SetDirty(uint32_t id, bool dirty) {
  Rec& r = R(id);
  if (r.dirty() == dirty) return;
  uint64_t charge = malloc_usable_size(r.block) + kEntryOverheadBytes;
  CacheStats& st = states_[r.state()].stats;
  if (dirty) {
    r.meta |= kDirtyBit;
    dirty_bytes_ += charge;
    dirty_count_ += 1;
    st.dirty_bytes += charge;
    st.dirty_entries += 1;
  } else {
    r.meta &= ~kDirtyBit;
    dirty_bytes_ -= charge;
    dirty_count_ -= 1;
    st.dirty_bytes -= charge;
    st.dirty_entries -= 1;
  }
}

// Unlinks an entry from its queue and the index and removes it from the
// accounting. The block and record stay allocated (see ReleaseRec).
void HotStateCache::Detach(uint32_t id) {
  Rec& r = R(id);
  uint64_t charge = malloc_usable_size(r.block) + kEntryOverheadBytes;
  Unlink(id);
  IndexErase(id, HashOf(id));
  CacheStats& st = states_[r.state()].stats;
  if (r.dirty()) {
    dirty_bytes_ -= charge;
    dirty_count_ -= 1;
    st.dirty_bytes -= charge;
    st.dirty_entries -= 1;
  }
  bytes_ -= charge;
  count_ -= 1;
  st.bytes -= charge;
  st.entries -= 1;
}

void HotStateCache::ReleaseRec(uint32_t id) {
  Rec& r = R(id);
  std::free(r.block);
  r.block = nullptr;
  r.meta = 0;
  r.chain = free_head_;
  free_head_ = id;
}

// --- quota -------------------------------------------------------------------

void HotStateCache::ApplyCapacity(uint64_t bytes, uint64_t entries) {
  cap_bytes_ = bytes;
  cap_entries_ = entries;
  window_max_ = static_cast<uint64_t>(double(bytes) * window_frac_);
  protected_max_ = (bytes - window_max_) / 5 * 4;
  window_max_entries_ = std::max<uint64_t>(1, static_cast<uint64_t>(double(entries) * window_frac_));
  protected_max_entries_ = (entries - std::min(entries, window_max_entries_)) / 5 * 4;
}

void HotStateCache::RefreshQuota() {
  if (lease_ == nullptr) return;
  uint64_t b = lease_->quota_bytes();
  uint64_t e = lease_->quota_entries();
  if (b != lease_bytes_seen_ || e != lease_entries_seen_) {
    lease_bytes_seen_ = b;
    lease_entries_seen_ = e;
    ApplyCapacity(b, e);
  }
}

bool HotStateCache::OverCapacity() const {
  return bytes_ > cap_bytes_ || (cap_entries_ != 0 && count_ > cap_entries_);
}

Status HotStateCache::ShrinkToQuota() {
  RefreshQuota();
  return MakeRoom();
}

Status HotStateCache::SetCapacity(uint64_t max_bytes, uint64_t max_entries) {
  if (lease_ != nullptr) {
    return Status::FailedPrecondition("capacity comes from the budget lease");
  }
  ApplyCapacity(max_bytes, max_entries);
  return MakeRoom();
}

// --- eviction ----------------------------------------------------------------

bool HotStateCache::Admit(uint32_t candidate, uint32_t victim) const {
  return sketch_->Frequency(HashOf(candidate)) > sketch_->Frequency(HashOf(victim));
}

void HotStateCache::Evict(uint32_t id) {
  Rec& r = R(id);
  states_[r.state()].stats.evictions += 1;
  bool dirty = r.dirty();
  Detach(id);
  if (dirty) {
    victims_.push_back(id);  // written back, then released, by MakeRoom
  } else {
    ReleaseRec(id);
  }
}

Status HotStateCache::MakeRoom() {
  victims_.clear();
  if (policy_ == CachePolicy::kLru) {
    while (OverCapacity()) Evict(queues_[kWindow].head);
  } else {
    // Window overflow moves to probation; those entries are the candidates.
    Queue& w = queues_[kWindow];
    uint32_t cand = kNil;
    while (w.head != kNil &&
           (w.bytes > window_max_ ||
            (cap_entries_ != 0 && w.count > window_max_entries_))) {
      uint32_t id = w.head;
      Unlink(id);
      PushTail(kProbation, id);
      if (cand == kNil) cand = id;
    }
    while (OverCapacity()) {
      uint32_t victim = queues_[kProbation].head;
      if (victim == kNil) victim = queues_[kProtected].head;
      if (victim == kNil) victim = w.head;
      if (cand != kNil && victim != cand) {
        if (Admit(cand, victim)) {
          Evict(victim);
        } else {
          uint32_t next = R(cand).next;
          Evict(cand);
          cand = next;
        }
      } else {
        if (victim == cand) cand = R(cand).next;
        Evict(victim);
      }
    }
  }
  if (victims_.empty()) return Status::OK();
  return EmitVictims();
}

Status HotStateCache::EmitVictims() {
  Status status;
  size_t i = 0;
  while (i < victims_.size()) {
    batch_.clear();
    size_t end = std::min(victims_.size(), i + kMaxBatch);
    for (size_t j = i; j < end; ++j) {
      const Rec& r = R(victims_[j]);
      batch_.push_back(DirtyEntry{
          r.state(), std::string_view(r.key(), r.key_len()),
          r.absent() ? std::string_view() : std::string_view(r.value(), r.value_len()),
          r.absent()});
      CacheStats& st = states_[r.state()].stats;
      st.dirty_writebacks += 1;
      if (r.absent()) st.tombstones += 1;
    }
    if (status.ok()) status = sink_->Write(batch_.data(), batch_.size());
    for (size_t j = i; j < end; ++j) ReleaseRec(victims_[j]);
    i = end;
  }
  victims_.clear();
  batch_.clear();
  return status;
}

// --- get ---------------------------------------------------------------------

void HotStateCache::CountGet(StateSlot& s, bool hit) {
  if (options_.bypass_threshold <= 0.0) return;
  if (s.stats.bypassed_now) {
    if (--s.bypass_gets_left == 0) {
      s.stats.bypassed_now = false;
      s.probing = true;
      s.window_gets = s.window_hits = 0;
    }
    return;
  }
  s.window_gets += 1;
  s.window_hits += hit ? 1 : 0;
  if (s.window_gets < std::max<uint32_t>(1, options_.bypass_window)) return;
  double ratio = double(s.window_hits) / double(s.window_gets);
  s.stats.window_hit_ratio = ratio;
  s.window_gets = s.window_hits = 0;
  if (ratio < options_.bypass_threshold) {
    s.low_windows += 1;
    if (s.probing || s.low_windows >= std::max<uint32_t>(1, options_.bypass_enter_windows)) {
      if (s.probing) s.probe_multiplier = std::min<uint32_t>(s.probe_multiplier * 2, 64);
      s.probing = false;
      s.low_windows = 0;
      s.stats.bypassed_now = true;
      s.stats.bypass_entered += 1;
      s.bypass_gets_left =
          std::max<uint64_t>(1, uint64_t(options_.bypass_probe_interval) * s.probe_multiplier);
    }
  } else {
    s.low_windows = 0;
    if (s.probing) {
      s.probing = false;
      s.probe_multiplier = 1;
    }
  }
}

GetResult HotStateCache::Get(uint32_t state_id, std::string_view key) {
  if (state_id >= kMaxStates) return GetResult{Lookup::kBypass, nullptr, 0};
  StateSlot& s = Slot(state_id);
  if (key.size() > kMaxKeyBytes) {
    s.stats.bypassed += 1;
    return GetResult{Lookup::kBypass, nullptr, 0};
  }
  const uint64_t hash = HashKey(state_id, key.data(), key.size());
  const uint32_t id = Find(state_id, key, hash);
  const bool bypassed = s.stats.bypassed_now;
  if (policy_ == CachePolicy::kWTinyLfu && !bypassed) {
    sketch_->Increment(hash);
    if (options_.adaptive_window) Climb(id != kNil);
  }
  if (id != kNil) {
    OnHit(id);
    CountGet(s, true);
    const Rec& r = R(id);
    if (r.absent()) {
      s.stats.absent_hits += 1;
      return GetResult{Lookup::kAbsent, nullptr, 0};
    }
    s.stats.hits += 1;
    return GetResult{Lookup::kHit, r.value(), r.value_len()};
  }
  CountGet(s, false);
  if (bypassed) {
    s.stats.bypassed += 1;
    return GetResult{Lookup::kBypass, nullptr, 0};
  }
  s.stats.misses += 1;
  return GetResult{Lookup::kMiss, nullptr, 0};
}

// Hill climbing on the window share (W-TinyLFU), after the idea in Caffeine's
// design notes: every sample period (2x capacity gets, at least 4096) the hit
// ratio of the period is compared with the previous one; the window keeps
// moving in the direction that improved it and turns around otherwise. The
// step (6.25% of capacity) decays by 2% per period and restarts when the hit
// ratio moves by 5 points or more (a workload shift).
void HotStateCache::Climb(bool hit) {
  climb_hits_ += hit ? 1 : 0;
  if (++climb_samples_ < climb_period_) return;
  const double rate = double(climb_hits_) / double(climb_samples_);
  climb_hits_ = climb_samples_ = 0;
  const uint64_t cap = cap_entries_ != 0 ? cap_entries_ : std::max<uint64_t>(count_, 64);
  climb_period_ = std::max<uint64_t>(4096, 2 * cap);
  if (climb_prev_rate_ >= 0) {
    const double delta = rate - climb_prev_rate_;
    // No change at all (e.g. all misses during a scan, or all hits): hold,
    // so a long scan cannot walk the window up to pure LRU.
    if (std::abs(delta) < kClimbHold) {
      climb_prev_rate_ = rate;
      return;
    }
    if (delta < 0) climb_dir_ = -climb_dir_;
    if (std::abs(delta) >= 0.05) {
      climb_step_ = kClimbInitialStep;
    } else {
      climb_step_ = std::max(climb_step_ * 0.98, kClimbMinStep);
    }
  }  // else: the first period takes the first step, towards a larger window
  climb_prev_rate_ = rate;
  const double frac =
      std::clamp(window_frac_ + climb_dir_ * climb_step_, kMinWindow, kMaxWindow);
  if (frac != window_frac_) {
    window_frac_ = frac;
    ApplyCapacity(cap_bytes_, cap_entries_);
  }
}

bool HotStateCache::IsBypassed(uint32_t state_id) const {
  return state_id < states_.size() && states_[state_id].stats.bypassed_now;
}

// --- writes --------------------------------------------------------------------

void HotStateCache::Discard(uint32_t id) {
  Detach(id);
  ReleaseRec(id);
}

Result<WriteOutcome> HotStateCache::Write(uint32_t state_id, std::string_view key,
                                          std::string_view value, bool absent,
                                          bool dirty) {
  if (state_id >= kMaxStates) {
    return Status::InvalidArgument("state id >= HotStateCache::kMaxStates");
  }
  StateSlot& s = Slot(state_id);
  if (dirty) {
    if (absent) s.stats.removes += 1; else s.stats.puts += 1;
  } else {
    s.stats.fills += 1;
  }
  RefreshQuota();
  const bool key_ok = key.size() <= kMaxKeyBytes;
  const uint64_t hash = key_ok ? HashKey(state_id, key.data(), key.size()) : 0;
  uint32_t id = key_ok ? Find(state_id, key, hash) : kNil;

  if (!dirty && id != kNil) return WriteOutcome::kCached;  // cached version wins
  const bool fits = key_ok && value.size() <= kMaxValueBytes &&
                    ChargeFor(key.size(), value.size()) <= cap_bytes_;
  const bool bypass_new = s.stats.bypassed_now && id == kNil;
  if (!fits || bypass_new) {
    if (id != kNil) Discard(id);  // the caller writes the newer version itself
    s.stats.not_cached += 1;
    Status st = MakeRoom();
    if (!st.ok()) return st;
    return WriteOutcome::kNotCached;
  }
  if (policy_ == CachePolicy::kWTinyLfu && dirty) sketch_->Increment(hash);

  const size_t need = 4 + key.size() + value.size();
  const uint32_t vlen = static_cast<uint32_t>(value.size());
  if (id != kNil) {
    // Update in place; reuse the block when it fits and is not too wasteful.
    Rec& r = R(id);
    size_t usable = malloc_usable_size(r.block);
    if (need > usable || need * 2 + 64 < usable) {
      char* nb = static_cast<char*>(std::malloc(need));
      if (nb == nullptr) return Status::ResourceExhausted("malloc failed");
      CopyBytes(nb + 4, key.data(), key.size());
      // Re-account: detach from the queue with the old charge, attach new.
      uint8_t q = r.queue();
      bool was_dirty = r.dirty();
      SetDirty(id, false);
      uint64_t old_charge = usable + kEntryOverheadBytes;
      // Keep the queue position: adjust queue bytes in place.
      uint64_t new_charge = malloc_usable_size(nb) + kEntryOverheadBytes;
      queues_[q].bytes = queues_[q].bytes - old_charge + new_charge;
      bytes_ = bytes_ - old_charge + new_charge;
      CacheStats& st = states_[state_id].stats;
      st.bytes = st.bytes - old_charge + new_charge;
      std::free(r.block);
      r.block = nb;
      if (was_dirty) SetDirty(id, true);
    }
    std::memcpy(r.block, &vlen, 4);
    CopyBytes(r.block + 4 + key.size(), value.data(), value.size());
    if (absent) r.meta |= kAbsentBit; else r.meta &= ~kAbsentBit;
    SetDirty(id, dirty);
    OnHit(id);
  } else {
    char* block = static_cast<char*>(std::malloc(need));
    if (block == nullptr) return Status::ResourceExhausted("malloc failed");
    id = AllocRec();
    if (id == kNil) {
      std::free(block);
      s.stats.not_cached += 1;
      return WriteOutcome::kNotCached;
    }
    std::memcpy(block, &vlen, 4);
    CopyBytes(block + 4, key.data(), key.size());
    CopyBytes(block + 4 + key.size(), value.data(), value.size());
    Rec& r = R(id);
    r.block = block;
    r.meta = static_cast<uint32_t>(key.size()) | (state_id << kStateShift) |
             (absent ? kAbsentBit : 0);
    r.prev = r.next = r.chain = kNil;
    IndexInsert(id, hash);
    PushTail(kWindow, id);
    uint64_t charge = malloc_usable_size(block) + kEntryOverheadBytes;
    bytes_ += charge;
    count_ += 1;
    s.stats.bytes += charge;
    s.stats.entries += 1;
    if (dirty) SetDirty(id, true);
    if (count_ > buckets_.size()) GrowBuckets();
    if (policy_ == CachePolicy::kWTinyLfu && count_ > sketch_->sized_for()) {
      sketch_->Resize(sketch_->sized_for() * 2);
    }
  }
  Status st = MakeRoom();
  if (!st.ok()) return st;
  return WriteOutcome::kCached;
}

Result<WriteOutcome> HotStateCache::Put(uint32_t state_id, std::string_view key,
                                        std::string_view value) {
  return Write(state_id, key, value, /*absent=*/false, /*dirty=*/true);
}
Result<WriteOutcome> HotStateCache::Remove(uint32_t state_id, std::string_view key) {
  return Write(state_id, key, std::string_view(), /*absent=*/true, /*dirty=*/true);
}
Result<WriteOutcome> HotStateCache::Fill(uint32_t state_id, std::string_view key,
                                         std::string_view value) {
  if (state_id < states_.size() && states_[state_id].stats.bypassed_now) {
    states_[state_id].stats.not_cached += 1;
    return WriteOutcome::kNotCached;
  }
  return Write(state_id, key, value, /*absent=*/false, /*dirty=*/false);
}
Result<WriteOutcome> HotStateCache::FillAbsent(uint32_t state_id, std::string_view key) {
  if (state_id < states_.size() && states_[state_id].stats.bypassed_now) {
    states_[state_id].stats.not_cached += 1;
    return WriteOutcome::kNotCached;
  }
  return Write(state_id, key, std::string_view(), /*absent=*/true, /*dirty=*/false);
}

// --- write-back --------------------------------------------------------------

template <class F>
void HotStateCache::ForEachColdFirst(F&& f) {
  const uint8_t order[3] = {kProbation, kWindow, kProtected};
  for (uint8_t q : order) {
    uint32_t id = queues_[q].head;
    while (id != kNil) {
      uint32_t next = R(id).next;
      if (!f(id)) return;
      id = next;
    }
  }
}

Status HotStateCache::WriteBackSorted(std::vector<uint32_t>* ids) {
  std::sort(ids->begin(), ids->end(), [this](uint32_t a, uint32_t b) {
    const Rec& ra = R(a);
    const Rec& rb = R(b);
    if (ra.state() != rb.state()) return ra.state() < rb.state();
    std::string_view ka(ra.key(), ra.key_len()), kb(rb.key(), rb.key_len());
    return ka < kb;  // bytewise (char_traits<char>::compare uses memcmp order)
  });
  size_t i = 0;
  while (i < ids->size()) {
    batch_.clear();
    size_t end = std::min(ids->size(), i + kMaxBatch);
    for (size_t j = i; j < end; ++j) {
      const Rec& r = R((*ids)[j]);
      batch_.push_back(DirtyEntry{
          r.state(), std::string_view(r.key(), r.key_len()),
          r.absent() ? std::string_view() : std::string_view(r.value(), r.value_len()),
          r.absent()});
    }
    Status st = sink_->Write(batch_.data(), batch_.size());
    batch_.clear();
    if (!st.ok()) return st;
    for (size_t j = i; j < end; ++j) {
      uint32_t id = (*ids)[j];
      CacheStats& cs = states_[R(id).state()].stats;
      cs.dirty_writebacks += 1;
      if (R(id).absent()) cs.tombstones += 1;
      SetDirty(id, false);
    }
    i = end;
  }
  return Status::OK();
}

Status HotStateCache::Flush(uint32_t state_id) {
  if (state_id >= kMaxStates) {
    return Status::InvalidArgument("state id >= HotStateCache::kMaxStates");
  }
  if (state_id >= states_.size() || states_[state_id].stats.dirty_entries == 0) {
    return Status::OK();
  }
  std::vector<uint32_t> ids;
  ids.reserve(states_[state_id].stats.dirty_entries);
  ForEachColdFirst([&](uint32_t id) {
    const Rec& r = R(id);
    if (r.dirty() && r.state() == state_id) ids.push_back(id);
    return true;
  });
  return WriteBackSorted(&ids);
}

Status HotStateCache::FlushAll() {
  if (dirty_count_ == 0) return Status::OK();
  std::vector<uint32_t> ids;
  ids.reserve(dirty_count_);
  ForEachColdFirst([&](uint32_t id) {
    if (R(id).dirty()) ids.push_back(id);
    return true;
  });
  return WriteBackSorted(&ids);
}

Status HotStateCache::WriteBackDirty(uint64_t max_dirty_bytes) {
  if (dirty_bytes_ <= max_dirty_bytes) return Status::OK();
  std::vector<uint32_t> ids;
  uint64_t remaining = dirty_bytes_;
  ForEachColdFirst([&](uint32_t id) {
    const Rec& r = R(id);
    if (r.dirty()) {
      ids.push_back(id);
      remaining -= malloc_usable_size(r.block) + kEntryOverheadBytes;
    }
    return remaining > max_dirty_bytes;
  });
  return WriteBackSorted(&ids);
}

void HotStateCache::DropState(uint32_t state_id) {
  if (state_id >= states_.size() || states_[state_id].stats.entries == 0) return;
  ForEachColdFirst([&](uint32_t id) {
    if (R(id).state() == state_id) Discard(id);
    return true;
  });
}

void HotStateCache::Clear() {
  for (uint8_t q = 0; q < 3; ++q) {
    uint32_t id = queues_[q].head;
    while (id != kNil) {
      uint32_t next = R(id).next;
      std::free(R(id).block);
      R(id).block = nullptr;
      id = next;
    }
    queues_[q] = Queue{kNil, kNil, 0, 0};
  }
  chunks_.clear();
  free_head_ = kNil;
  next_unused_ = 0;
  std::fill(buckets_.begin(), buckets_.end(), kNil);
  count_ = bytes_ = dirty_bytes_ = dirty_count_ = 0;
  for (StateSlot& s : states_) {
    s.stats.entries = s.stats.bytes = s.stats.dirty_entries = s.stats.dirty_bytes = 0;
    s.stats.bypassed_now = false;
    s.window_gets = s.window_hits = s.low_windows = 0;
    s.probe_multiplier = 1;
    s.bypass_gets_left = 0;
    s.probing = false;
  }
}

// --- statistics ---------------------------------------------------------------

CacheStats HotStateCache::Stats(uint32_t state_id) const {
  if (state_id >= states_.size()) {
    CacheStats empty;
    empty.window_hit_ratio = -1.0;
    return empty;
  }
  return states_[state_id].stats;
}

CacheStats HotStateCache::TotalStats() const {
  CacheStats t;
  t.window_hit_ratio = -1.0;
  for (const StateSlot& s : states_) {
    const CacheStats& c = s.stats;
    t.hits += c.hits;
    t.absent_hits += c.absent_hits;
    t.misses += c.misses;
    t.bypassed += c.bypassed;
    t.puts += c.puts;
    t.removes += c.removes;
    t.fills += c.fills;
    t.evictions += c.evictions;
    t.dirty_writebacks += c.dirty_writebacks;
    t.tombstones += c.tombstones;
    t.not_cached += c.not_cached;
    t.entries += c.entries;
    t.bytes += c.bytes;
    t.dirty_entries += c.dirty_entries;
    t.dirty_bytes += c.dirty_bytes;
    t.bypass_entered += c.bypass_entered;
    t.bypassed_now = t.bypassed_now || c.bypassed_now;
  }
  return t;
}

}  // namespace falcon
