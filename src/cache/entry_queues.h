// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The cache's three intrusive doubly linked queues, threaded through the
// entries' headers, and the segment moves of W-TinyLFU between them:
//
//   window     new entries; LRU uses this queue only
//   probation  the main area's cold segment: admission candidates at its
//              tail, the main victim at its head
//   protected  the main area's hot segment (80% of it)
//
// Each queue runs from its head (LRU end, the eviction side) to its tail
// (MRU end) and keeps the charged bytes and count of its entries. Hits do not
// move entries (W-TinyLFU); they set the entry's referenced bit, and the
// moves happen here, at eviction time, CLOCK-style: a referenced window head
// gets a second chance behind the newest entry, a referenced probation head
// is promoted to protected, a referenced protected head goes back to the MRU
// end.
//
// Thread-safety: none (owned by one cache).

#ifndef FALCON_SRC_CACHE_ENTRY_QUEUES_H_
#define FALCON_SRC_CACHE_ENTRY_QUEUES_H_

#include <algorithm>
#include <cstdint>

#include "cache/entry.h"

namespace falcon {
namespace cache_internal {

constexpr uint8_t kWindow = 0;  // LRU: the only queue
constexpr uint8_t kProbation = 1;
constexpr uint8_t kProtected = 2;

// The capacity and its split into segments (bytes always; entries when an
// entry cap is set, 0 = none).
struct SegmentLimits {
  uint64_t bytes = 0;
  uint64_t entries = 0;
  uint64_t window_bytes = 0;
  uint64_t protected_bytes = 0;
  uint64_t window_entries = 0;
  uint64_t protected_entries = 0;

  void Set(uint64_t cap_bytes, uint64_t cap_entries, double window_fraction) {
    bytes = cap_bytes;
    entries = cap_entries;
    window_bytes = static_cast<uint64_t>(double(cap_bytes) * window_fraction);
    protected_bytes = (cap_bytes - window_bytes) / 5 * 4;
    window_entries = std::max<uint64_t>(
        1, static_cast<uint64_t>(double(cap_entries) * window_fraction));
    protected_entries =
        (cap_entries - std::min(cap_entries, window_entries)) / 5 * 4;
  }
};

class EntryQueues {
 public:
  struct Queue {
    Entry* head = nullptr;  // LRU end (eviction side)
    Entry* tail = nullptr;  // MRU end
    uint64_t bytes = 0;     // charged bytes of its entries
    uint64_t count = 0;
  };

  const Queue& queue(uint8_t q) const { return queues_[q]; }
  Entry* head(uint8_t q) const { return queues_[q].head; }

  void Unlink(Entry* e);
  void PushTail(uint8_t q, Entry* e);
  // Links e into queue q just before `pos` (a member of q), or at the tail
  // when pos is null.
  void InsertBefore(uint8_t q, Entry* pos, Entry* e);
  // Moves e to the MRU end of its own queue (links only).
  inline void MoveToTail(Entry* e);
  // `e` is a copy of a queued entry's header in a new block: the neighbours
  // now point to it, and its queue's bytes follow the new block's size.
  void Relinked(Entry* e, uint64_t old_usable, uint64_t new_usable);

  // W-TinyLFU: window overflow moves to the probation tail, where it becomes
  // the admission candidates; returns the first of them (null: none). A
  // referenced window head gets a second chance instead, behind `newest`
  // (the entry inserted last, if still in the window): it was referenced
  // before that one was inserted, so a 1-entry window keeps the entry just
  // written. `on_second_chance(e)` runs for each.
  template <class F>
  Entry* SpillWindow(const SegmentLimits& limits, Entry* newest,
                     F&& on_second_chance);
  // The main area's victim: the probation head, never a candidate (`cand`
  // up to the probation tail). A referenced probation head is promoted to
  // protected instead (protected overflow goes back to probation, before
  // the candidates). With no non-candidate left in probation, the protected
  // head (second chance for a referenced one). Null if the main area holds
  // only candidates.
  Entry* MainVictim(const SegmentLimits& limits, Entry* cand);

  // Calls f(e) for every entry, coldest first (probation, window,
  // protected, each from its head), until f returns false. f may unlink e.
  template <class F>
  void ForEachColdFirst(F&& f);
  // Empties every queue, calling free_block(e) for each entry.
  template <class F>
  void Clear(F&& free_block);

 private:
  // Protected overflow back to probation, before `before`.
  void Demote(const SegmentLimits& limits, Entry* before);

  Queue queues_[3];
};

inline void EntryQueues::MoveToTail(Entry* e) {
  Queue& q = queues_[e->queue()];
  if (q.tail == e) return;
  if (e->prev != nullptr) {
    e->prev->next = e->next;
  } else {
    q.head = e->next;
  }
  e->next->prev = e->prev;  // e->next exists: e is not the tail
  e->prev = q.tail;
  e->next = nullptr;
  q.tail->next = e;
  q.tail = e;
}

template <class F>
Entry* EntryQueues::SpillWindow(const SegmentLimits& limits, Entry* newest,
                                F&& on_second_chance) {
  Queue& w = queues_[kWindow];
  Entry* cand = nullptr;
  while (w.head != nullptr &&
         (w.bytes > limits.window_bytes ||
          (limits.entries != 0 && w.count > limits.window_entries))) {
    Entry* e = w.head;
    if (e->referenced()) {
      e->clear_referenced();
      on_second_chance(e);
      if (newest != nullptr && newest != e && newest->queue() == kWindow) {
        Unlink(e);
        InsertBefore(kWindow, newest, e);
      } else {
        MoveToTail(e);
      }
      continue;
    }
    Unlink(e);
    PushTail(kProbation, e);
    if (cand == nullptr) cand = e;
  }
  return cand;
}

template <class F>
void EntryQueues::ForEachColdFirst(F&& f) {
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

template <class F>
void EntryQueues::Clear(F&& free_block) {
  for (Queue& q : queues_) {
    Entry* e = q.head;
    while (e != nullptr) {
      Entry* next = e->next;
      free_block(e);
      e = next;
    }
    q = Queue();
  }
}

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_ENTRY_QUEUES_H_
