// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/entry_queues.h"

namespace falcon {
namespace cache_internal {

void EntryQueues::Unlink(Entry* e) {
  Queue& q = queues_[e->queue()];
  if (e->prev != nullptr) {
    e->prev->next = e->next;
  } else {
    q.head = e->next;
  }
  if (e->next != nullptr) {
    e->next->prev = e->prev;
  } else {
    q.tail = e->prev;
  }
  q.bytes -= e->charge();
  q.count -= 1;
  e->prev = e->next = nullptr;
}

void EntryQueues::PushTail(uint8_t qi, Entry* e) {
  Queue& q = queues_[qi];
  e->set_queue(qi);
  e->prev = q.tail;
  e->next = nullptr;
  if (q.tail != nullptr) {
    q.tail->next = e;
  } else {
    q.head = e;
  }
  q.tail = e;
  q.bytes += e->charge();
  q.count += 1;
}

void EntryQueues::InsertBefore(uint8_t qi, Entry* pos, Entry* e) {
  if (pos == nullptr) {
    PushTail(qi, e);
    return;
  }
  Queue& q = queues_[qi];
  e->set_queue(qi);
  e->next = pos;
  e->prev = pos->prev;
  if (pos->prev != nullptr) {
    pos->prev->next = e;
  } else {
    q.head = e;
  }
  pos->prev = e;
  q.bytes += e->charge();
  q.count += 1;
}

void EntryQueues::Relinked(Entry* e, uint64_t old_usable, uint64_t new_usable) {
  Queue& q = queues_[e->queue()];
  if (e->prev != nullptr) {
    e->prev->next = e;
  } else {
    q.head = e;
  }
  if (e->next != nullptr) {
    e->next->prev = e;
  } else {
    q.tail = e;
  }
  q.bytes = q.bytes - old_usable + new_usable;
}

void EntryQueues::Demote(const SegmentLimits& limits, Entry* before) {
  Queue& p = queues_[kProtected];
  uint64_t budget = p.count;  // each entry is looked at once at most
  while (p.head != nullptr && budget-- > 0 &&
         (p.bytes > limits.protected_bytes ||
          (limits.entries != 0 && p.count > limits.protected_entries))) {
    Entry* e = p.head;
    if (e->referenced()) {
      e->clear_referenced();
      MoveToTail(e);
      continue;
    }
    Unlink(e);
    InsertBefore(kProbation, before, e);
  }
}

Entry* EntryQueues::MainVictim(const SegmentLimits& limits, Entry* cand) {
  Queue& pr = queues_[kProbation];
  while (pr.head != nullptr && pr.head != cand) {
    Entry* v = pr.head;
    if (!v->referenced()) return v;
    v->clear_referenced();
    Unlink(v);
    PushTail(kProtected, v);
    Demote(limits, cand);
  }
  Queue& pt = queues_[kProtected];
  while (pt.head != nullptr) {
    Entry* v = pt.head;
    if (!v->referenced()) return v;
    v->clear_referenced();
    MoveToTail(v);
  }
  return nullptr;
}

}  // namespace cache_internal
}  // namespace falcon
