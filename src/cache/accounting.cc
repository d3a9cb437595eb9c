// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/accounting.h"

#include "cache/map_body.h"

namespace falcon {
namespace cache_internal {

StateSlot& Accounting::Grow(uint32_t state) {
  states_.resize(state + 1);
  return states_[state];
}

CacheStats Accounting::Stats(uint32_t state) const {
  if (state >= states_.size()) return CacheStats();
  return states_[state].stats;
}

CacheStats Accounting::Total() const {
  CacheStats t;
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
  }
  return t;
}

void Accounting::AddEntry(uint32_t state, uint64_t usable) {
  const uint64_t charge = usable + kOverheadBytes;
  CacheStats& st = states_[state].stats;
  bytes_ += charge;
  block_bytes_ += usable;
  count_ += 1;
  st.bytes += charge;
  st.entries += 1;
}

void Accounting::RemoveEntry(const Entry* e, uint64_t usable) {
  const uint64_t charge = usable + kOverheadBytes;
  CacheStats& st = states_[e->state()].stats;
  if (e->dirty()) {
    RemoveDirty(st, charge);
    dirty_set_.Erase(e);
  }
  bytes_ -= charge;
  block_bytes_ -= usable;
  count_ -= 1;
  st.bytes -= charge;
  st.entries -= 1;
}

void Accounting::SetDirty(Entry* e, bool dirty) {
  if (e->dirty() == dirty) return;
  CacheStats& st = states_[e->state()].stats;
  if (dirty) {
    e->bits |= kDirtyBit;
    AddDirty(st, e->charge());
    dirty_set_.Insert(e);
  } else {
    e->bits = static_cast<uint16_t>(e->bits & ~(kDirtyBit | kNotInDbBit));
    RemoveDirty(st, e->charge());
    dirty_set_.Erase(e);
  }
}

void Accounting::ChangeBlock(uint32_t state, uint64_t old_usable,
                             uint64_t new_usable) {
  bytes_ = bytes_ - old_usable + new_usable;
  block_bytes_ = block_bytes_ - old_usable + new_usable;
  CacheStats& st = states_[state].stats;
  st.bytes = st.bytes - old_usable + new_usable;
}

void Accounting::WrittenBack(const Entry* e) {
  StateSlot& s = states_[e->state()];
  if (!s.is_map) {
    s.stats.dirty_writebacks += 1;
    if (e->absent()) s.stats.tombstones += 1;
    return;
  }
  const MapBodyView body(e->value(), e->value_len());
  for (uint32_t i = 0; i < body.count(); ++i) {
    const MapRecord r = body.At(i);
    if (!r.dirty()) continue;
    s.stats.dirty_writebacks += 1;
    if (!r.live()) s.stats.tombstones += 1;
  }
}

void Accounting::ClearEntries() {
  count_ = bytes_ = block_bytes_ = dirty_bytes_ = dirty_count_ = 0;
  dirty_set_.Clear();
  for (StateSlot& s : states_) {
    s.stats.entries = s.stats.bytes = s.stats.dirty_entries =
        s.stats.dirty_bytes = 0;
  }
}

void Accounting::AddDirty(CacheStats& st, uint64_t charge) {
  dirty_bytes_ += charge;
  dirty_count_ += 1;
  st.dirty_bytes += charge;
  st.dirty_entries += 1;
}

void Accounting::RemoveDirty(CacheStats& st, uint64_t charge) {
  dirty_bytes_ -= charge;
  dirty_count_ -= 1;
  st.dirty_bytes -= charge;
  st.dirty_entries -= 1;
}

}  // namespace cache_internal
}  // namespace falcon
