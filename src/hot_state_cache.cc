// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// HotStateCache implementation. Layout (docs/cache.md):
//  * one block per entry: a 24-byte header (queue links, value length and
//    flags, key length, state id, queue, dirty and referenced bits), then
//    the key, then the value; blocks of up to 1 KiB from the arena
//    (cache/block_arena.h), larger ones from malloc;
//  * the index: an open-addressing table of 8-byte slots (Robin Hood linear
//    probing, backward-shift deletion), each holding the block pointer, an
//    8-bit hash tag and the probe distance, so a lookup reads one slot line
//    and then the block itself: two dependent cache misses for a hit;
//  * three intrusive doubly linked queues through the block headers
//    (W-TinyLFU: window, probation, protected; LRU uses queue 0 only) and the
//    frequency sketch.
// W-TinyLFU hits only set the entry's referenced bit and count themselves in
// the entry (both in the block header, which the key compare has just
// loaded); the counts reach the sketch when the entry meets admission or is
// evicted (BumpHits, FoldHits). Reordering is deferred to eviction
// (CLOCK-style second chance), so a hit never touches neighbouring entries
// nor the sketch.

#include "falcon/hot_state_cache.h"

#include <malloc.h>
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

#include "cache/block_arena.h"
#include "cache/bytes.h"
#include "cache/cache_line.h"
#include "cache/frequency_sketch.h"
#include "cache/ghost_filter.h"

namespace falcon {

namespace {

constexpr uint8_t kWindow = 0;     // LRU: the only queue
constexpr uint8_t kProbation = 1;
constexpr uint8_t kProtected = 2;

constexpr double kMinWindow = 0.01;
constexpr double kMaxWindow = 1.0;
#ifndef FALCON_CLIMB_STEP
#define FALCON_CLIMB_STEP 0.0078125
#endif
#ifndef FALCON_CLIMB_DOWN_RATIO
#define FALCON_CLIMB_DOWN_RATIO 2.0
#endif
#ifndef FALCON_CLIMB_PERIOD_MUL
#define FALCON_CLIMB_PERIOD_MUL 1
#endif
#ifndef FALCON_CLIMB_MIN_PERIOD
#define FALCON_CLIMB_MIN_PERIOD 8192
#endif
// Window adaptation (Climb); the macros exist so bench/cache_sim can be
// rebuilt with other values.
constexpr double kClimbStep = FALCON_CLIMB_STEP;  // share of the capacity, up
constexpr double kClimbDownRatio = FALCON_CLIMB_DOWN_RATIO;
constexpr uint64_t kClimbMinPeriod = FALCON_CLIMB_MIN_PERIOD;  // gets
// Window adaptation (GhostAdapt): each ghost remembers about 1/16 of the
// capacity in keys (at least 16); a rejected key's return votes for a larger
// window only while the sketch counts it below 8, half its maximum. The
// macros exist so bench/cache_sim can be rebuilt with other values (16 for
// the vote limit: every return votes, as before 2026-12-02).
#ifndef FALCON_GHOST_DIV
#define FALCON_GHOST_DIV 16
#endif
#ifndef FALCON_GHOST_MIN
#define FALCON_GHOST_MIN 16
#endif
#ifndef FALCON_GROW_VOTE_MAX_COUNT
#define FALCON_GROW_VOTE_MAX_COUNT 8
#endif
constexpr uint32_t kGrowVoteMaxCount = FALCON_GROW_VOTE_MAX_COUNT;

// How many of the hits of one pass through the window count as frequency
// (CountWindowPass): one. 15, the hit count's maximum, counts them all, as
// before 2026-12-02; the macro exists so bench/cache_sim can be rebuilt that
// way.
#ifndef FALCON_WINDOW_PASS_HITS
#define FALCON_WINDOW_PASS_HITS 1
#endif
constexpr uint32_t kWindowPassHits = FALCON_WINDOW_PASS_HITS;

// The ghosts' boost (GhostAdapt): per batch of 256 ghost hits, if one side
// won by more than 3 sigma (48 net hits) and the climber's last period
// moved the same way and improved the hit ratio, the window moves 16 more
// entries per net hit. The macros exist so bench/cache_sim can be rebuilt
// without it or with another gain.
#ifndef FALCON_GHOST_BOOST
#define FALCON_GHOST_BOOST 1
#endif
#ifndef FALCON_BOOST_GAIN
#define FALCON_BOOST_GAIN 16
#endif
constexpr uint32_t kBoostBatch = 256;             // ghost hits
constexpr double kBoostSigma = 16.0;              // sqrt(kBoostBatch)
constexpr double kBoostSigmas = 3.0;
constexpr double kBoostGain = FALCON_BOOST_GAIN;  // entries per net ghost hit
// Below this window fraction a batch won by the rejected-key side boosts the
// window without the climber's agreement (GhostAdapt). 0 restores the boost
// of before 2026-12-02 (the climber must always agree).
#ifndef FALCON_UNCONFIRMED_GROW_BELOW
#define FALCON_UNCONFIRMED_GROW_BELOW 0.5
#endif
constexpr double kUnconfirmedGrowBelow = FALCON_UNCONFIRMED_GROW_BELOW;

// Entry::vword: value length (23 bits), arena block, hits (4), hit epoch (2),
// referenced, absent. Hits: the W-TinyLFU accesses of a cached entry not yet
// added to the frequency sketch (BumpHits), as of sketch epoch `hit epoch`.
// Arena: the block came from the cache's BlockArena (its usable size is the
// rounded length, kept while the entry lives: an update moves the entry
// when its size class changes), not from malloc.
constexpr uint32_t kValueLenMask = (1u << 23) - 1;
constexpr uint32_t kArenaBit = 1u << 23;
constexpr uint32_t kHitsShift = 24;
constexpr uint32_t kHitsMask = 15u << kHitsShift;
constexpr uint32_t kEpochShift = 28;
constexpr uint32_t kEpochMask = 3u << kEpochShift;
constexpr uint32_t kRefBit = 1u << 30;
constexpr uint32_t kAbsentBit = 1u << 31;
// Entry::bits: state id (12), queue (2), dirty (1), not in RocksDB (1).
constexpr uint16_t kStateMask = 0x0FFF;
constexpr uint32_t kQueueShift = 12;
constexpr uint16_t kDirtyBit = 1u << 14;
// The key is known to be absent from RocksDB: the entry began as a
// FillAbsent (the caller read RocksDB and found nothing) and none of its
// versions has been written back since. Removing such a key needs no
// tombstone in RocksDB.
constexpr uint16_t kNotInDbBit = 1u << 15;

// Index slots: pointer (48 bits) | tag (8) | probe distance (8); 0 = empty.
constexpr uint64_t kPtrMask = (uint64_t{1} << 48) - 1;
constexpr uint64_t kTagMask = uint64_t{0xFF} << 48;
constexpr uint32_t kDistShift = 56;
constexpr uint64_t kDistOne = uint64_t{1} << kDistShift;
constexpr uint64_t kMaxDist = 255;
constexpr size_t kNoSlot = ~size_t{0};
constexpr size_t kMinSlots = 64;
// Grown by 1.4x when more than 80% full, so the table is at least 57% full
// after growing: <= 14 bytes per entry (part of kEntryOverheadBytes).
constexpr uint64_t kMaxLoadNum = 4, kMaxLoadDen = 5;
// The arena asks for transparent huge pages from this capacity on: each
// chunk is then resident in full (2 MiB), at most a few percent of the cache.
constexpr uint64_t kHugePageMinCapacity = uint64_t{64} << 20;

inline uint64_t HashKey(uint32_t state, const void* key, size_t len) {
  return XXH3_64bits_withSeed(key, len, state);
}

// Maps a hash onto [0, n) without a division (Lemire's multiply-shift); uses
// the high bits of the hash, the tag uses the low ones.
inline size_t HomeOf(uint64_t hash, size_t n) {
  return static_cast<size_t>(cache_internal::ScaleToRange(hash, n));
}

inline uint64_t TagOf(uint64_t hash) { return (hash & 0xFF) << 48; }

inline void CopyBytes(char* dst, const char* src, size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

using cache_internal::SameBytes;

}  // namespace

struct HotStateCache::Entry {
  Entry* prev;
  Entry* next;
  uint32_t vword;
  uint16_t klen;
  uint16_t bits;

  char* key() { return reinterpret_cast<char*>(this) + sizeof(Entry); }
  const char* key() const { return reinterpret_cast<const char*>(this) + sizeof(Entry); }
  const char* value() const { return key() + klen; }
  char* value() { return key() + klen; }
  uint32_t value_len() const { return vword & kValueLenMask; }
  bool in_arena() const { return (vword & kArenaBit) != 0; }
  // What the allocator handed out for this block.
  uint64_t usable() const {
    return in_arena() ? cache_internal::BlockArena::BlockBytes(
                            sizeof(Entry) + klen + value_len())
                      : malloc_usable_size(const_cast<Entry*>(this));
  }
  uint32_t state() const { return bits & kStateMask; }
  uint8_t queue() const { return static_cast<uint8_t>((bits >> kQueueShift) & 3); }
  bool dirty() const { return (bits & kDirtyBit) != 0; }
  bool not_in_db() const { return (bits & kNotInDbBit) != 0; }
  bool absent() const { return (vword & kAbsentBit) != 0; }
  bool referenced() const { return (vword & kRefBit) != 0; }
  // Pending hits, aged by the sketch halvings since they were counted (at
  // most three are told apart; an entry that went four or more halvings
  // without an access or an eviction look is rare, and keeps a count halved
  // fewer times than it should have been).
  uint32_t hits(uint32_t epoch) const {
    const uint32_t age = (epoch - (vword >> kEpochShift)) & 3;
    return ((vword & kHitsMask) >> kHitsShift) >> age;
  }
  void set_queue(uint8_t q) {
    bits = static_cast<uint16_t>((bits & ~(3u << kQueueShift)) | (uint32_t(q) << kQueueShift));
  }
  uint64_t Hash() const { return HashKey(state(), key(), klen); }
  bool Holds(uint32_t state_id, std::string_view k) const {
    return klen == k.size() && state() == state_id && SameBytes(key(), k.data(), k.size());
  }
};

namespace {
// The entry a slot points to (E = HotStateCache::Entry, private).
template <class E>
inline E* EntryAt(uint64_t slot) {
  return reinterpret_cast<E*>(static_cast<uintptr_t>(slot & kPtrMask));
}
}  // namespace

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
      slots_(cache_internal::IndexAllocator<uint64_t>(options.huge_pages)),
      sketch_(new cache_internal::FrequencySketch()),
      ghost_rejected_(new cache_internal::GhostFilter()),
      ghost_victims_(new cache_internal::GhostFilter()) {
  if (options.block_arena) arena_.reset(new cache_internal::BlockArena());
  for (Queue& q : queues_) q = Queue{nullptr, nullptr, 0, 0};
  slots_.assign(kMinSlots, 0);
  climb_period_ = kClimbMinPeriod;
  if (lease_ != nullptr) {
    RefreshQuota();
  } else {
    ApplyCapacity(options.max_bytes, options.max_entries);
  }
  uint64_t guess = cap_entries_ != 0 ? cap_entries_ : cap_bytes_ / 128;
  ResizeSketch(std::clamp<uint64_t>(guess, 64, 4096));  // <= 32 KiB up front
  victims_.reserve(64 + options_.write_back_batch);
  batch_.reserve(kMaxBatch);
}

HotStateCache::~HotStateCache() { Clear(); }

namespace {
// glibc's malloc_usable_size for a request n: max(24, round16(n + 8) - 8).
uint64_t MallocUsable(uint64_t n) {
  const uint64_t usable = ((n + 8 + 15) & ~uint64_t{15}) - 8;
  return usable < 24 ? 24 : usable;
}
}  // namespace

uint64_t HotStateCache::ChargeFor(size_t key_size, size_t value_size) {
  static_assert(sizeof(Entry) == kEntryHeaderBytes,
                "the header is part of the documented per-entry overhead");
  const uint64_t n = kEntryHeaderBytes + key_size + value_size;
  if (n <= cache_internal::BlockArena::kMaxBlockBytes) {
    return cache_internal::BlockArena::BlockBytes(n) + kEntryOverheadBytes;
  }
  return MallocUsable(n) + kEntryOverheadBytes;
}

uint64_t HotStateCache::ChargeOf(size_t bytes) const {
  if (arena_ != nullptr &&
      bytes <= cache_internal::BlockArena::kMaxBlockBytes) {
    return cache_internal::BlockArena::BlockBytes(bytes) + kEntryOverheadBytes;
  }
  return MallocUsable(bytes) + kEntryOverheadBytes;
}

uint64_t HotStateCache::AllocatedBytes() const {
  const uint64_t arena_used = arena_ != nullptr ? arena_->used_bytes() : 0;
  const uint64_t arena_resident =
      arena_ != nullptr ? arena_->ResidentBytes() : 0;
  return block_bytes_ - arena_used + arena_resident +
         slots_.size() * sizeof(uint64_t) + sketch_->bytes() +
         ghost_rejected_->bytes() + ghost_victims_->bytes();
}

// A block of `bytes` (>= kEntryHeaderBytes): from the arena when it is on and
// the block is small, else (or when the arena cannot map a chunk) from
// malloc. The caller sets the header, kArenaBit included (see FreeBlock).
HotStateCache::Entry* HotStateCache::AllocBlock(size_t bytes, uint64_t* usable,
                                                bool* in_arena) {
  *in_arena = false;
  if (arena_ != nullptr &&
      bytes <= cache_internal::BlockArena::kMaxBlockBytes) {
    void* p = arena_->Allocate(bytes);
    if (p != nullptr) {
      *usable = cache_internal::BlockArena::BlockBytes(bytes);
      *in_arena = true;
      return static_cast<Entry*>(p);
    }
  }
  void* p = std::malloc(bytes);
  if (p == nullptr) return nullptr;
  if ((reinterpret_cast<uintptr_t>(p) & ~kPtrMask) != 0) {
    std::free(p);
    return nullptr;
  }
  *usable = malloc_usable_size(p);
  return static_cast<Entry*>(p);
}

void HotStateCache::FreeBlock(Entry* e) {
  if (e->in_arena()) {
    arena_->Free(e);
  } else {
    std::free(e);
  }
}

inline HotStateCache::StateSlot& HotStateCache::Slot(uint32_t state_id) {
  if (__builtin_expect(state_id < states_.size(), 1)) return states_[state_id];
  return GrowSlots(state_id);
}

HotStateCache::StateSlot& HotStateCache::GrowSlots(uint32_t state_id) {
  states_.resize(state_id + 1);
  return states_[state_id];
}

// --- queues ----------------------------------------------------------------

void HotStateCache::Unlink(Entry* e) {
  Queue& q = queues_[e->queue()];
  if (e->prev != nullptr) e->prev->next = e->next; else q.head = e->next;
  if (e->next != nullptr) e->next->prev = e->prev; else q.tail = e->prev;
  q.bytes -= e->usable() + kEntryOverheadBytes;
  q.count -= 1;
  e->prev = e->next = nullptr;
}

void HotStateCache::PushTail(uint8_t qi, Entry* e) {
  Queue& q = queues_[qi];
  e->set_queue(qi);
  e->prev = q.tail;
  e->next = nullptr;
  if (q.tail != nullptr) q.tail->next = e; else q.head = e;
  q.tail = e;
  q.bytes += e->usable() + kEntryOverheadBytes;
  q.count += 1;
}

// Links e into queue qi just before `pos` (a member of qi), or at the tail
// when pos is null.
void HotStateCache::InsertBefore(uint8_t qi, Entry* pos, Entry* e) {
  if (pos == nullptr) {
    PushTail(qi, e);
    return;
  }
  Queue& q = queues_[qi];
  e->set_queue(qi);
  e->next = pos;
  e->prev = pos->prev;
  if (pos->prev != nullptr) pos->prev->next = e; else q.head = e;
  pos->prev = e;
  q.bytes += e->usable() + kEntryOverheadBytes;
  q.count += 1;
}

// Moves e to the MRU end of its own queue: links only, no accounting.
void HotStateCache::MoveToTail(Entry* e) {
  Queue& q = queues_[e->queue()];
  if (q.tail == e) return;
  if (e->prev != nullptr) e->prev->next = e->next; else q.head = e->next;
  e->next->prev = e->prev;  // e->next exists: e is not the tail
  e->prev = q.tail;
  e->next = nullptr;
  q.tail->next = e;
  q.tail = e;
}

// Protected overflow goes back to probation, just before `before` (the first
// admission candidate, so demoted entries are victims, not candidates) or at
// the tail. A referenced protected entry gets a second chance instead.
void HotStateCache::Demote(Entry* before) {
  Queue& p = queues_[kProtected];
  uint64_t budget = p.count;  // each entry is looked at once at most
  while (p.head != nullptr && budget-- > 0 &&
         (p.bytes > protected_max_ ||
          (cap_entries_ != 0 && p.count > protected_max_entries_))) {
    Entry* e = p.head;
    if (e->referenced()) {
      e->vword &= ~kRefBit;
      MoveToTail(e);
      continue;
    }
    Unlink(e);
    InsertBefore(kProbation, before, e);
  }
}

// A hit: LRU moves the entry to the MRU end; W-TinyLFU only marks it
// referenced (the reordering happens at eviction time), so the hit touches
// no other entry.
inline void HotStateCache::OnHit(Entry* e) {
  if (policy_ == CachePolicy::kLru) {
    MoveToTail(e);
  } else if (!e->referenced()) {
    e->vword |= kRefBit;
  }
}

// --- index -----------------------------------------------------------------

// The memo: the entry the last Get hit or the last update wrote, its slot
// and hash, valid until the index changes (every insert, erase, rehash or
// relocation resets it). Writes check it first, so Flink's read-modify-write
// -- value() then update() of the same key -- hashes and probes once, not
// twice. Gets do not check it (a get of the key just read is rare, and the
// hit path would pay the compare on every other get).
inline bool HotStateCache::MemoMatches(uint32_t state, std::string_view key) const {
  const Entry* m = memo_;
  return m != nullptr && m->Holds(state, key);
}

inline void HotStateCache::Remember(Entry* e, size_t pos, uint64_t hash) {
  memo_ = e;
  memo_pos_ = pos;
  memo_hash_ = hash;
}

inline size_t HotStateCache::Find(uint32_t state, std::string_view key, uint64_t hash) const {
  const size_t n = slots_.size();
  const uint64_t tag = TagOf(hash);
  size_t i = HomeOf(hash, n);
  // The first four slots from home, without a branch per slot: the slot
  // that holds the key is the first or second in most lookups and the third
  // or fourth in many (the table is 57-80% full), and a branch per slot
  // mispredicts on that. A 10k-entry hit: 36 -> 27 ns (docs/cache.md,
  // "Hit-path cost"). The first slot whose tag matches is compared; a miss,
  // a false tag match or a key further on falls through to the probe loop.
  if (__builtin_expect(i + 4 <= n, 1)) {
    const uint64_t* lanes = slots_.data() + i;
    uint32_t matches = 0;
    for (uint32_t j = 0; j < 4; ++j) {
      const uint64_t s = lanes[j];
      matches |= uint32_t((((s ^ tag) & kTagMask) == 0) & (s != 0)) << j;
    }
    if (__builtin_expect(matches != 0, 1)) {
      const size_t p = i + static_cast<size_t>(__builtin_ctz(matches));
      const Entry* e = EntryAt<Entry>(slots_[p]);
      // The block's second line holds (most of) the value of a typical
      // entry (24-byte header, ~10-byte key, ~68-byte value): asked for now,
      // it arrives together with the first line instead of after it, when
      // the copy reaches it. A 1M-entry hit with 64-byte values: 7 of 7
      // alternated pairs faster, chained (one at a time) 459 -> 423 ns
      // median. 256-byte values are likely a few percent slower, for a
      // reason not found (docs/benchmarks.md, "The second line of a
      // block").
      __builtin_prefetch(reinterpret_cast<const char*>(e) + 64);
      if (__builtin_expect(e->Holds(state, key), 1)) return p;
    }
  }
  for (uint64_t d = 0;; ++d) {
    const uint64_t s = slots_[i];
    // Robin Hood: a slot closer to its home than we are to ours means the
    // key is absent (it would have taken that slot).
    if (s == 0 || (s >> kDistShift) < d) return kNoSlot;
    if ((s & kTagMask) == tag) {
      const Entry* e = EntryAt<Entry>(s);
      if (e->Holds(state, key)) return i;
    }
    if (++i == n) i = 0;
  }
}

size_t HotStateCache::FindEntry(const Entry* e, uint64_t hash) const {
  const size_t n = slots_.size();
  size_t i = HomeOf(hash, n);
  while (EntryAt<Entry>(slots_[i]) != e) {
    if (++i == n) i = 0;
  }
  return i;
}

// Returns false (and inserts nothing) only if the block pointer does not fit
// the 48 bits of a slot.
bool HotStateCache::IndexInsert(Entry* e, uint64_t hash) {
  memo_ = nullptr;  // Robin Hood insertion moves other slots
  const uintptr_t p = reinterpret_cast<uintptr_t>(e);
  if ((p & ~kPtrMask) != 0) return false;
  const size_t n = slots_.size();
  size_t i = HomeOf(hash, n);
  uint64_t cur = p | TagOf(hash);
  while (true) {
    const uint64_t s = slots_[i];
    if (s == 0) {
      slots_[i] = cur;
      return true;
    }
    if ((s >> kDistShift) < (cur >> kDistShift)) {
      slots_[i] = cur;
      cur = s;
    }
    if ((cur >> kDistShift) == kMaxDist) {
      // A pathologically long run: grow and place the displaced entry again.
      Entry* pending = EntryAt<Entry>(cur);
      Rehash(n * 2);
      return IndexInsert(pending, pending->Hash());
    }
    cur += kDistOne;
    if (++i == n) i = 0;
  }
}

void HotStateCache::IndexErase(size_t pos) {
  memo_ = nullptr;  // the backward shift moves other slots
  const size_t n = slots_.size();
  size_t i = pos;
  while (true) {
    size_t j = i + 1 == n ? 0 : i + 1;
    const uint64_t s = slots_[j];
    if (s == 0 || (s >> kDistShift) == 0) {
      slots_[i] = 0;
      return;
    }
    slots_[i] = s - kDistOne;  // backward shift: one step closer to home
    i = j;
  }
}

void HotStateCache::Rehash(size_t n) {
  memo_ = nullptr;
  Slots old(n, 0, slots_.get_allocator());
  old.swap(slots_);
  for (uint64_t s : old) {
    if (s == 0) continue;
    Entry* e = EntryAt<Entry>(s);
    (void)IndexInsert(e, e->Hash());  // pointers were checked on first insert
  }
}

// --- accounting --------------------------------------------------------------

void HotStateCache::SetDirty(Entry* e, bool dirty) {
  if (e->dirty() == dirty) return;
  uint64_t charge = e->usable() + kEntryOverheadBytes;
  CacheStats& st = states_[e->state()].stats;
  if (dirty) {
    e->bits |= kDirtyBit;
    dirty_bytes_ += charge;
    dirty_count_ += 1;
    st.dirty_bytes += charge;
    st.dirty_entries += 1;
  } else {
    // Clean = what RocksDB holds (written back, or read from it); a caller
    // that knows the key is still not in RocksDB sets kNotInDbBit again.
    e->bits = static_cast<uint16_t>(e->bits & ~(kDirtyBit | kNotInDbBit));
    dirty_bytes_ -= charge;
    dirty_count_ -= 1;
    st.dirty_bytes -= charge;
    st.dirty_entries -= 1;
  }
}

// Unlinks an entry from its queue and the index and removes it from the
// accounting. The block stays allocated (freed by the caller).
void HotStateCache::Detach(Entry* e) {
  if (e == newest_) newest_ = nullptr;
  const uint64_t usable = e->usable();
  const uint64_t charge = usable + kEntryOverheadBytes;
  Unlink(e);
  IndexErase(FindEntry(e, e->Hash()));
  CacheStats& st = states_[e->state()].stats;
  if (e->dirty()) {
    dirty_bytes_ -= charge;
    dirty_count_ -= 1;
    st.dirty_bytes -= charge;
    st.dirty_entries -= 1;
  }
  bytes_ -= charge;
  block_bytes_ -= usable;
  count_ -= 1;
  st.bytes -= charge;
  st.entries -= 1;
}

// --- quota -------------------------------------------------------------------

void HotStateCache::ApplyCapacity(uint64_t bytes, uint64_t entries) {
  cap_bytes_ = bytes;
  cap_entries_ = entries;
  // Huge pages where a 2 MiB grain is fine: chunks mapped from now on.
  if (arena_ != nullptr) {
    arena_->set_huge_pages(options_.huge_pages &&
                           bytes >= kHugePageMinCapacity);
  }
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

// Both entries' pending hits go into the sketch first, so the comparison
// sees every access, as if each hit had incremented the sketch when it
// happened.
bool HotStateCache::Admit(Entry* candidate, Entry* victim) {
  const uint64_t candidate_hash = candidate->Hash();
  const uint64_t victim_hash = victim->Hash();
  FoldHits(candidate, candidate_hash);
  FoldHits(victim, victim_hash);
  const uint32_t candidate_count = sketch_->Frequency(candidate_hash);
  const uint32_t victim_count = sketch_->Frequency(victim_hash);
  if (victim_count == cache_internal::FrequencySketch::kMaxCount) sketch_->SaturatedVictim();
  return candidate_count > victim_count;
}

// A W-TinyLFU access of a cached entry: counted in the entry (4 bits, in the
// header line the lookup has just loaded) instead of in the sketch, whose
// four counters live in another line and cost 12 of a 10k-entry hit's 60 ns
// (docs/cache.md, "Hit-path cost"). The sketch still counts the access for
// its aging schedule; FoldHits adds the hits to it when the entry is
// compared for admission or evicted.
inline void HotStateCache::BumpHits(Entry* e) {
  const uint32_t epoch = sketch_->epoch();
  uint32_t h = e->hits(epoch);
  h += h < 15 ? 1 : 0;
  e->vword = (e->vword & ~(kHitsMask | kEpochMask)) | (h << kHitsShift) |
             ((epoch & 3) << kEpochShift);
  sketch_->CountAccess();
}

void HotStateCache::FoldHits(Entry* e, uint64_t hash) {
  const uint32_t epoch = sketch_->epoch();
  const uint32_t h = e->hits(epoch);
  if (h != 0) sketch_->Add(hash, h);
  e->vword = (e->vword & ~(kHitsMask | kEpochMask)) | ((epoch & 3) << kEpochShift);
}

// The window counts at most one access per pass as frequency (a pass: from
// the entry's insertion or last second chance to the window's head): whether
// the key was reused, not how often. Hits in the window are a burst -- a new
// key is hot right after it arrives -- and the window pays them out already,
// by keeping the entry for another pass. Counted in full, a burst let a key
// that had gone cold outrank keys with a steady rate: on the recency trace
// (new auctions hot for a while, a stationary popular set beside them) the
// main area filled with aged auctions, and the best the window could do was
// grow to the whole cache, a CLOCK, which trails LRU there. A key hit in
// many passes still builds up its count, one per pass, so a large window
// still hands hot keys' frequency to admission (WTinyLfuWindowFollowsThe-
// Workload). Hits in the main area count in full. Every counted hit also
// sets the referenced bit, so a window entry's pending hits all meet a second
// chance here, and an entry leaving the window has none. docs/cache.md, "One
// count per window pass".
void HotStateCache::CountWindowPass(Entry* e) {
  if (kWindowPassHits >= 15) return;  // every hit stays pending, as before
  const uint32_t epoch = sketch_->epoch();
  const uint32_t h = e->hits(epoch);
  if (h == 0) return;
  sketch_->Add(e->Hash(), std::min(h, kWindowPassHits));
  e->vword =
      (e->vword & ~(kHitsMask | kEpochMask)) | ((epoch & 3) << kEpochShift);
}

void HotStateCache::Evict(Entry* e) {
  states_[e->state()].stats.evictions += 1;
  // The key's history outlives the entry (an entry Admit just looked at has
  // nothing pending: no hash to compute).
  if (policy_ == CachePolicy::kWTinyLfu && e->hits(sketch_->epoch()) != 0) FoldHits(e, e->Hash());
  const bool dirty = e->dirty();
  Detach(e);
  if (dirty) {
    victims_.push_back(e);  // written back, then freed, by MakeRoom
  } else {
    FreeBlock(e);
  }
}

// The main area's victim: the probation head, never an admission candidate
// (`cand` up to the probation tail). A referenced probation entry was hit
// since it got there: it is promoted to protected instead (the deferred SLRU
// promotion), and protected overflow goes back to probation. With no
// non-candidate left in probation, the protected head (second chance for a
// referenced one). Null if the main area holds only candidates.
HotStateCache::Entry* HotStateCache::MainVictim(Entry* cand) {
  Queue& pr = queues_[kProbation];
  while (pr.head != nullptr && pr.head != cand) {
    Entry* v = pr.head;
    if (!v->referenced()) return v;
    v->vword &= ~kRefBit;
    Unlink(v);
    PushTail(kProtected, v);
    Demote(cand);
  }
  Queue& pt = queues_[kProtected];
  while (pt.head != nullptr) {
    Entry* v = pt.head;
    if (!v->referenced()) return v;
    v->vword &= ~kRefBit;
    MoveToTail(v);
  }
  return nullptr;
}

Status HotStateCache::MakeRoom() {
  victims_.clear();
  if (policy_ == CachePolicy::kLru) {
    while (OverCapacity()) Evict(queues_[kWindow].head);
  } else {
    // Window overflow moves to probation; those entries are the candidates.
    // A referenced window entry gets a second chance (CLOCK ~ LRU).
    Queue& w = queues_[kWindow];
    Entry* cand = nullptr;
    while (w.head != nullptr &&
           (w.bytes > window_max_ ||
            (cap_entries_ != 0 && w.count > window_max_entries_))) {
      Entry* e = w.head;
      if (e->referenced()) {
        // Second chance, but behind the newest entry: it was referenced
        // before that one was inserted (as in an LRU window), so a 1-entry
        // window keeps the entry just written rather than the older one.
        e->vword &= ~kRefBit;
        CountWindowPass(e);
        if (newest_ != nullptr && newest_ != e && newest_->queue() == kWindow) {
          Unlink(e);
          InsertBefore(kWindow, newest_, e);
        } else {
          MoveToTail(e);
        }
        continue;
      }
      Unlink(e);
      PushTail(kProbation, e);
      if (cand == nullptr) cand = e;
    }
    while (OverCapacity()) {
      Entry* victim = MainVictim(cand);
      if (victim == nullptr) {
        if (cand != nullptr) {
          Entry* next = cand->next;
          Evict(cand);
          cand = next;
        } else {
          Evict(w.head);  // everything is in the window
        }
      } else if (cand == nullptr || Admit(cand, victim)) {
        if (cand != nullptr) ghost_victims_->Insert(victim->Hash());
        Evict(victim);
      } else {
        ghost_rejected_->Insert(cand->Hash());
        Entry* next = cand->next;
        Evict(cand);
        cand = next;
      }
    }
  }
  if (victims_.empty()) return Status::OK();
  CollectWriteAhead();
  return EmitVictims();
}

// Batched write-back (CacheOptions::write_back_batch): adds the dirty entries
// among the next eviction candidates -- the window head (W-TinyLFU's next
// admission candidates, LRU's next victims) and the probation head (the next
// main victims) -- to this call's write-back. A bounded walk, so an eviction
// round costs at most 2 x write_back_batch entry visits, and rounds that find
// dirty entries make the next ~write_back_batch evictions free.
void HotStateCache::CollectWriteAhead() {
  evicted_victims_ = victims_.size();
  const size_t batch = options_.write_back_batch;
  if (batch <= 1 || victims_.size() >= batch) return;
  size_t want = batch - victims_.size();
  const uint8_t order[2] = {kWindow, kProbation};
  for (uint8_t q : order) {
    size_t visits = batch;
    for (Entry* e = queues_[q].head; e != nullptr && visits > 0 && want > 0; e = e->next) {
      --visits;
      if (e->dirty()) {
        victims_.push_back(e);
        --want;
      }
    }
  }
}

// Writes victims_ back: the evicted entries (victims_[0, evicted_victims_),
// detached, freed here whatever the sink says) and the written-ahead ones
// (still cached; clean once their batch is written, still dirty if the sink
// failed).
Status HotStateCache::EmitVictims() {
  Status status;
  size_t i = 0;
  while (i < victims_.size()) {
    batch_.clear();
    size_t end = std::min(victims_.size(), i + kMaxBatch);
    for (size_t j = i; j < end; ++j) {
      const Entry* e = victims_[j];
      batch_.push_back(DirtyEntry{
          e->state(), std::string_view(e->key(), e->klen),
          e->absent() ? std::string_view() : std::string_view(e->value(), e->value_len()),
          e->absent()});
    }
    const bool written = status.ok() && (status = sink_->Write(batch_.data(), batch_.size())).ok();
    for (size_t j = i; j < end; ++j) {
      Entry* e = victims_[j];
      if (written) {
        CacheStats& st = states_[e->state()].stats;
        st.dirty_writebacks += 1;
        if (e->absent()) st.tombstones += 1;
      }
      if (j < evicted_victims_) {
        FreeBlock(e);
      } else if (written) {
        SetDirty(e, false);
      }
    }
    i = end;
  }
  victims_.clear();
  evicted_victims_ = 0;
  batch_.clear();
  return status;
}

// --- get ---------------------------------------------------------------------

// Per-get bookkeeping inline; the end of a window (once per bypass_window
// gets) out of line.
inline void HotStateCache::CountGet(StateSlot& s, bool hit) {
  if (options_.bypass_threshold <= 0.0) return;
  if (!s.stats.bypassed_now) {
    s.window_gets += 1;
    s.window_hits += hit ? 1 : 0;
    if (__builtin_expect(s.window_gets < options_.bypass_window, 1)) return;
  }
  EndBypassWindow(s, hit);
}

void HotStateCache::EndBypassWindow(StateSlot& s, bool hit) {
  if (s.stats.bypassed_now) {
    if (--s.bypass_gets_left == 0) {
      s.stats.bypassed_now = false;
      s.probing = true;
      s.window_gets = s.window_hits = 0;
    }
    return;
  }
  (void)hit;  // already counted by CountGet
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
  const bool bypassed = s.stats.bypassed_now;
  const bool counted = policy_ == CachePolicy::kWTinyLfu && !bypassed;
  const size_t pos = Find(state_id, key, hash);
  if (counted) {
    if (pos != kNoSlot) {
      BumpHits(EntryAt<Entry>(slots_[pos]));
    } else {
      sketch_->Increment(hash);
    }
    if (options_.adaptive_window) {
      Climb(pos != kNoSlot);
      if (pos == kNoSlot) GhostAdapt(hash);
    }
  }
  if (pos != kNoSlot) {
    Entry* e = EntryAt<Entry>(slots_[pos]);
    Remember(e, pos, hash);
    OnHit(e);
    CountGet(s, true);
    if (e->absent()) {
      s.stats.absent_hits += 1;
      return GetResult{Lookup::kAbsent, nullptr, 0};
    }
    s.stats.hits += 1;
    return GetResult{Lookup::kHit, e->value(), e->value_len()};
  }
  CountGet(s, false);
  if (bypassed) {
    s.stats.bypassed += 1;
    return GetResult{Lookup::kBypass, nullptr, 0};
  }
  s.stats.misses += 1;
  return GetResult{Lookup::kMiss, nullptr, 0};
}

// Window adaptation (W-TinyLFU), part 1 of 2: hill climbing on the hit
// ratio after the idea in Caffeine's design notes -- every period (max(8192,
// capacity in entries) gets) the window moves one step of 1/128 of the
// capacity; it keeps its direction while the period's hit ratio improves on
// the previous one's and turns around otherwise -- with one change: a step
// down is kClimbDownRatio times a step up. Per-period noise (about a point of
// hit ratio) exceeds what one step changes, so on a workload where the window
// does not matter the climber random-walks; the asymmetry turns that walk
// into a slow drift towards the 1% minimum. On its own (with 1/16 steps) it
// was the whole adaptation; now the ghosts (GhostAdapt, part 2) supply the
// direction where it matters, and the climber, with small steps, is what
// brings a large window back down when the workload turns from recency to
// frequency (the ghosts see no difference between the two sides there: both
// hold equally hot keys).
inline void HotStateCache::Climb(bool hit) {
  climb_hits_ += hit ? 1 : 0;
  if (__builtin_expect(++climb_samples_ < climb_period_, 1)) return;
  ClimbStep();
}

void HotStateCache::ClimbStep() {
  const double rate = double(climb_hits_) / double(climb_samples_);
  climb_hits_ = climb_samples_ = 0;
  const uint64_t cap = cap_entries_ != 0 ? cap_entries_ : std::max<uint64_t>(count_, 64);
  climb_period_ = std::max<uint64_t>(kClimbMinPeriod, FALCON_CLIMB_PERIOD_MUL * cap);
  // Nothing to learn from two periods of only misses (a scan) or only hits:
  // hold, so a long scan cannot walk the window up to pure LRU.
  if (rate == climb_prev_rate_ && (rate == 0.0 || rate == 1.0)) return;
  climb_confirmed_ = climb_prev_rate_ >= 0 && rate > climb_prev_rate_;
  if (climb_prev_rate_ >= 0 && rate < climb_prev_rate_) climb_dir_ = -climb_dir_;
  climb_prev_rate_ = rate;
  const double step = climb_dir_ > 0 ? kClimbStep : -kClimbStep * kClimbDownRatio;
  const double frac = std::clamp(window_frac_ + step, kMinWindow, kMaxWindow);
  if (frac != window_frac_) {
    window_frac_ = frac;
    ApplyCapacity(cap_bytes_, cap_entries_);
  }
}

// Window adaptation, part 2 of 2: ghost hits, after ARC's adaptation
// (Megiddo and Modha, FAST 2003) applied to the admission window. A miss on a
// key that admission rejected recently means a larger window would have kept
// it: the window grows by one entry. A miss on a key recently evicted from
// the main area means a larger main area would have kept it: the window
// shrinks by one entry. Both ghosts remember the same number of keys (1/16 of
// the capacity), so they compare the marginal value of the same amount of
// space on either side. Every miss is evidence, which makes this far less
// noisy than comparing the hit ratios of consecutive periods, and hits pay
// nothing for it. Measured in docs/cache.md ("Eviction policy").
//
// A rejected key that the sketch counts often (kGrowVoteMaxCount, half the
// maximum, or more; the count includes this miss) does not vote: it lost
// admission to a main-area victim that was counted as often, so what would
// have kept it is a larger main area, not a larger window. Without that
// limit, once a window pass counted one access (CountWindowPass), a large
// window could not shrink back when the workload turned to frequency: the
// hot keys, counted once per pass, lost admission, came back, and voted the
// window up (WTinyLfuWindowFollowsTheWorkload: the window stayed at
// 0.93-0.99).
void HotStateCache::GhostAdapt(uint64_t hash) {
  double step;
  if (ghost_rejected_->Contains(hash) &&
      sketch_->Frequency(hash) < kGrowVoteMaxCount) {
    step = 1.0;
    ++ghost_grow_hits_;
  } else if (ghost_victims_->Contains(hash)) {
    step = -1.0;
    ++ghost_shrink_hits_;
  } else {
    return;
  }
#if FALCON_GHOST_BOOST
  // One entry per ghost hit is slow for a large cache that needs most of
  // its capacity as window (a recency-heavy workload): it took most of
  // bench/cache_sim's trace at 20k entries. A clearly one-sided batch moves
  // the window further, but only when the climber's own evidence (the hit
  // ratio over its last period) agrees: the ghosts measure the marginal
  // value of space locally, and with a large window and a tiny main area the
  // rejected-key ghost wins even when a smaller window would be better
  // overall (WTinyLfuWindowFollowsTheWorkload, before the grow-vote limit).
  // That trap needs a main area smaller than the window, so below half the
  // cache (kUnconfirmedGrowBelow) a batch won by the rejected-key side
  // boosts without the climber. It matters right after the cache first
  // fills: the hit ratio then falls for reasons that are not the window's
  // (the main area holds whatever arrived while nothing was contested), the
  // climber turns around every period, and its agreement never came while
  // new keys kept losing admission. docs/cache.md, "Growing the window
  // without the climber".
  if (ghost_grow_hits_ + ghost_shrink_hits_ >= kBoostBatch) {
    const double net = double(ghost_grow_hits_) - double(ghost_shrink_hits_);
    ghost_grow_hits_ = ghost_shrink_hits_ = 0;
    const bool grow = net > kBoostSigmas * kBoostSigma;
    const bool shrink = net < -kBoostSigmas * kBoostSigma;
    if ((grow && (window_frac_ < kUnconfirmedGrowBelow ||
                  (climb_confirmed_ && climb_dir_ > 0))) ||
        (shrink && climb_confirmed_ && climb_dir_ < 0)) {
      step += kBoostGain * net;
    }
  }
#endif
  const uint64_t cap = cap_entries_ != 0 ? cap_entries_ : std::max<uint64_t>(count_, 64);
  const double frac = std::clamp(window_frac_ + step / double(cap), kMinWindow, kMaxWindow);
  if (frac != window_frac_) {
    window_frac_ = frac;
    ApplyCapacity(cap_bytes_, cap_entries_);
  }
}

void HotStateCache::ResizeSketch(uint64_t entries) {
  sketch_->Resize(entries);
  const uint64_t ghost = std::max<uint64_t>(FALCON_GHOST_MIN, entries / FALCON_GHOST_DIV);
  ghost_rejected_->Resize(ghost);
  ghost_victims_->Resize(ghost);
}

bool HotStateCache::IsBypassed(uint32_t state_id) const {
  return state_id < states_.size() && states_[state_id].stats.bypassed_now;
}

// --- writes --------------------------------------------------------------------

void HotStateCache::Discard(Entry* e) {
  Detach(e);
  FreeBlock(e);
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
  uint64_t hash = 0;
  size_t pos = kNoSlot;
  bool counted = false;  // the sketch has seen this access already
  if (key_ok && MemoMatches(state_id, key)) {  // update() right after value()
    hash = memo_hash_;
    pos = memo_pos_;
    counted = true;
  } else if (key_ok) {
    hash = HashKey(state_id, key.data(), key.size());
    pos = Find(state_id, key, hash);
  }
  Entry* e = pos != kNoSlot ? EntryAt<Entry>(slots_[pos]) : nullptr;

  if (!dirty && e != nullptr) return WriteOutcome::kCached;  // cached version wins
  const bool fits =
      key_ok && value.size() <= kMaxValueBytes &&
      ChargeOf(kEntryHeaderBytes + key.size() + value.size()) <= cap_bytes_;
  const bool bypass_new = s.stats.bypassed_now && e == nullptr;
  if (!fits || bypass_new) {
    if (e != nullptr) Discard(e);  // the caller writes the newer version itself
    s.stats.not_cached += 1;
    Status st = MakeRoom();
    if (!st.ok()) return st;
    return WriteOutcome::kNotCached;
  }
  // A write of the key the last get or write touched is the same access
  // (Flink's value() then update() for one record): counted once.
  if (policy_ == CachePolicy::kWTinyLfu && dirty && !counted) {
    if (e != nullptr) {
      BumpHits(e);
    } else {
      sketch_->Increment(hash);
    }
  }

  const size_t need = kEntryHeaderBytes + key.size() + value.size();
  const uint32_t vlen = static_cast<uint32_t>(value.size());
  if (e != nullptr) {
    const bool not_in_db = e->not_in_db();
    // Update in place; reuse the block when it fits and is not too wasteful
    // (an arena block: when the new length has the same size class). A
    // value of the old length always does; malloc_usable_size was 4% of a
    // JMH get+update profile.
    const uint64_t usable = vlen == e->value_len() ? 0 : e->usable();
    const bool move =
        vlen != e->value_len() &&
        (e->in_arena() ? cache_internal::BlockArena::BlockBytes(need) != usable
                       : need > usable || need * 2 + 64 < usable);
    if (move) {
      uint64_t new_usable = 0;
      bool ne_in_arena = false;
      Entry* ne = AllocBlock(need, &new_usable, &ne_in_arena);
      if (ne == nullptr)
        return Status::ResourceExhausted("cannot allocate an entry block");
      const bool was_dirty = e->dirty();
      SetDirty(e, false);
      std::memcpy(static_cast<void*>(ne), e, kEntryHeaderBytes + key.size());
      // The new header's length and allocator now, so its charge is the new
      // block's from here on (SetDirty below).
      ne->vword = vlen | (absent ? kAbsentBit : 0) |
                  (ne_in_arena ? kArenaBit : 0) |
                  (e->vword & (kRefBit | kHitsMask | kEpochMask));
      // Same queue position: relink the neighbours, adjust the charges.
      Queue& q = queues_[ne->queue()];
      if (ne->prev != nullptr) ne->prev->next = ne; else q.head = ne;
      if (ne->next != nullptr) ne->next->prev = ne; else q.tail = ne;
      slots_[pos] = (slots_[pos] & ~kPtrMask) | reinterpret_cast<uintptr_t>(ne);
      q.bytes = q.bytes - usable + new_usable;
      bytes_ = bytes_ - usable + new_usable;
      block_bytes_ = block_bytes_ - usable + new_usable;
      CacheStats& st = states_[state_id].stats;
      st.bytes = st.bytes - usable + new_usable;
      if (newest_ == e) newest_ = ne;
      FreeBlock(e);
      e = ne;
      if (was_dirty) SetDirty(e, true);
    }
    Remember(e, pos, hash);
    e->vword = vlen | (absent ? kAbsentBit : 0) |
               (e->vword & (kArenaBit | kRefBit | kHitsMask | kEpochMask));
    CopyBytes(e->value(), value.data(), value.size());
    // (Only dirty writes get here.) Removing a key RocksDB never got needs
    // no tombstone: the entry becomes a clean "known absent". State that
    // lives and dies between two write-backs (a window's accumulator, a
    // retracted join row) then never reaches RocksDB at all.
    SetDirty(e, !(absent && not_in_db));
    if (not_in_db) e->bits |= kNotInDbBit;
    OnHit(e);
  } else {
    if ((count_ + 1) * kMaxLoadDen > slots_.size() * kMaxLoadNum) {
      Rehash(slots_.size() + slots_.size() * 2 / 5);
    }
    uint64_t usable = 0;
    bool in_arena = false;
    e = AllocBlock(need, &usable, &in_arena);
    if (e == nullptr)
      return Status::ResourceExhausted("cannot allocate an entry block");
    e->prev = e->next = nullptr;
    e->vword = vlen | (absent ? kAbsentBit : 0) | ((sketch_->epoch() & 3) << kEpochShift);
    if (in_arena) e->vword |= kArenaBit;
    e->klen = static_cast<uint16_t>(key.size());
    e->bits = static_cast<uint16_t>(state_id | (absent && !dirty ? kNotInDbBit : 0));
    CopyBytes(e->key(), key.data(), key.size());
    CopyBytes(e->value(), value.data(), value.size());
    if (!IndexInsert(e, hash)) {
      FreeBlock(e);
      return Status::ResourceExhausted("a block address beyond 48 bits");
    }
    PushTail(kWindow, e);
    newest_ = e;
    const uint64_t charge = usable + kEntryOverheadBytes;
    bytes_ += charge;
    block_bytes_ += usable;
    count_ += 1;
    s.stats.bytes += charge;
    s.stats.entries += 1;
    if (dirty) SetDirty(e, true);
    if (policy_ == CachePolicy::kWTinyLfu && count_ > sketch_->sized_for()) {
      ResizeSketch(sketch_->sized_for() + sketch_->sized_for() / 4 + 1);
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
    Entry* e = queues_[q].head;
    while (e != nullptr) {
      Entry* next = e->next;
      if (!f(e)) return;
      e = next;
    }
  }
}

Status HotStateCache::WriteBackSorted(std::vector<Entry*>* entries) {
  std::sort(entries->begin(), entries->end(), [](const Entry* a, const Entry* b) {
    if (a->state() != b->state()) return a->state() < b->state();
    std::string_view ka(a->key(), a->klen), kb(b->key(), b->klen);
    return ka < kb;  // bytewise (char_traits<char>::compare uses memcmp order)
  });
  size_t i = 0;
  while (i < entries->size()) {
    batch_.clear();
    size_t end = std::min(entries->size(), i + kMaxBatch);
    for (size_t j = i; j < end; ++j) {
      const Entry* e = (*entries)[j];
      batch_.push_back(DirtyEntry{
          e->state(), std::string_view(e->key(), e->klen),
          e->absent() ? std::string_view() : std::string_view(e->value(), e->value_len()),
          e->absent()});
    }
    Status st = sink_->Write(batch_.data(), batch_.size());
    batch_.clear();
    if (!st.ok()) return st;
    for (size_t j = i; j < end; ++j) {
      Entry* e = (*entries)[j];
      CacheStats& cs = states_[e->state()].stats;
      cs.dirty_writebacks += 1;
      if (e->absent()) cs.tombstones += 1;
      SetDirty(e, false);
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
  std::vector<Entry*> entries;
  entries.reserve(states_[state_id].stats.dirty_entries);
  ForEachColdFirst([&](Entry* e) {
    if (e->dirty() && e->state() == state_id) entries.push_back(e);
    return true;
  });
  return WriteBackSorted(&entries);
}

Status HotStateCache::FlushAll() {
  if (dirty_count_ == 0) return Status::OK();
  std::vector<Entry*> entries;
  entries.reserve(dirty_count_);
  ForEachColdFirst([&](Entry* e) {
    if (e->dirty()) entries.push_back(e);
    return true;
  });
  return WriteBackSorted(&entries);
}

Status HotStateCache::WriteBackDirty(uint64_t max_dirty_bytes) {
  if (dirty_bytes_ <= max_dirty_bytes) return Status::OK();
  std::vector<Entry*> entries;
  uint64_t remaining = dirty_bytes_;
  ForEachColdFirst([&](Entry* e) {
    if (e->dirty()) {
      entries.push_back(e);
      remaining -= e->usable() + kEntryOverheadBytes;
    }
    return remaining > max_dirty_bytes;
  });
  return WriteBackSorted(&entries);
}

void HotStateCache::DropState(uint32_t state_id) {
  if (state_id >= states_.size() || states_[state_id].stats.entries == 0) return;
  ForEachColdFirst([&](Entry* e) {
    if (e->state() == state_id) Discard(e);
    return true;
  });
}

void HotStateCache::Clear() {
  for (Queue& q : queues_) {
    Entry* e = q.head;
    while (e != nullptr) {
      Entry* next = e->next;
      FreeBlock(e);
      e = next;
    }
    q = Queue{nullptr, nullptr, 0, 0};
  }
  Slots(kMinSlots, 0, slots_.get_allocator())
      .swap(slots_);  // releases a grown index
  newest_ = nullptr;
  memo_ = nullptr;
  count_ = bytes_ = block_bytes_ = dirty_bytes_ = dirty_count_ = 0;
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
