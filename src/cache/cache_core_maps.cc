// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// CacheCore's MapState operations (cache_core.h, include/falcon/map_cache.h).
// A map is one entry whose value is a MapBody (map_body.h). Reads use Get()
// (one counted access per record's first look at a map) or MapPeek(); writes
// change the body in place when they can (a value of the same length, a
// tombstone) and rebuild it otherwise, which is linear in the map's bytes --
// maps are capped (max_map_bytes) for that reason too.

#include <cstring>

#include "cache/cache_core.h"

namespace falcon {
namespace cache_internal {

namespace {

inline uint32_t ValueWord(uint32_t vlen, bool absent) {
  return vlen | (absent ? kAbsentBit : 0);
}

// Parses `count` packed records into `builder` (clean, in RocksDB). False if
// the bytes do not hold exactly that many well-formed records.
bool BuildFromPacked(std::string_view packed, uint32_t count,
                     MapBodyBuilder* builder) {
  builder->Reset();
  size_t at = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (packed.size() - at < kPackedHeaderBytes) return false;
    uint16_t klen;
    uint32_t vlen;
    std::memcpy(&klen, packed.data() + at, 2);
    std::memcpy(&vlen, packed.data() + at + 2, 4);
    at += kPackedHeaderBytes;
    if (packed.size() - at < size_t{klen} + vlen) return false;
    const std::string_view key = packed.substr(at, klen);
    at += klen;
    builder->Add(key, packed.substr(at, vlen), kRecordInDb);
    at += vlen;
  }
  return at == packed.size();
}

}  // namespace

GetResult CacheCore::MapPeek(uint32_t state_id, std::string_view prefix) const {
  if (state_id >= CacheLimits::kMaxStates ||
      prefix.size() > CacheLimits::kMaxKeyBytes) {
    return GetResult{Lookup::kBypass, nullptr, 0};
  }
  const size_t pos = index_.Find(
      state_id, prefix, HashKey(state_id, prefix.data(), prefix.size()));
  if (pos == EntryIndex::kNoSlot) return GetResult{Lookup::kMiss, nullptr, 0};
  const Entry* e = index_.At(pos);
  if (e->absent()) return GetResult{Lookup::kAbsent, nullptr, 0};
  return GetResult{Lookup::kHit, e->value(), e->value_len()};
}

Result<WriteOutcome> CacheCore::MapLoad(uint32_t state_id,
                                        std::string_view prefix,
                                        std::string_view packed, uint32_t count,
                                        uint64_t max_map_bytes) {
  if (state_id >= CacheLimits::kMaxStates) {
    return Status::InvalidArgument("state id >= CacheLimits::kMaxStates");
  }
  StateSlot& s = accounting_.Slot(state_id);
  s.is_map = true;
  if (prefix.size() > CacheLimits::kMaxKeyBytes) {
    s.stats.not_cached += 1;
    return WriteOutcome::kNotCached;
  }
  if (!BuildFromPacked(packed, count, &map_builder_)) {
    return Status::InvalidArgument("malformed packed map records");
  }
  if (index_.Find(state_id, prefix,
                  HashKey(state_id, prefix.data(), prefix.size())) !=
      EntryIndex::kNoSlot) {
    return WriteOutcome::kCached;  // a cached version wins
  }
  const size_t data_bytes = map_builder_.data_bytes();
  const std::string_view body =
      map_builder_.Finish(CacheLimits::kEntryHeaderBytes + prefix.size());
  const size_t need =
      CacheLimits::kEntryHeaderBytes + prefix.size() + body.size();
  if (data_bytes > max_map_bytes || body.size() > CacheLimits::kMaxValueBytes ||
      blocks_.ChargeOf(need) > limits_.bytes) {
    s.map.oversized += 1;
    // The marker: later operations on this map skip the scan.
    Result<WriteOutcome> marker =
        Write(state_id, prefix, std::string_view(), /*absent=*/true,
              /*dirty=*/false);
    if (!marker.ok()) return marker.status();
    return WriteOutcome::kNotCached;
  }
  Result<WriteOutcome> loaded =
      Write(state_id, prefix, body, /*absent=*/false, /*dirty=*/false);
  if (loaded.ok() && *loaded == WriteOutcome::kCached) {
    s.map.loads += 1;
    s.map.loaded_entries += count;
  }
  return loaded;
}

Result<WriteOutcome> CacheCore::MapWrite(uint32_t state_id,
                                         std::string_view prefix, MapOp op,
                                         std::string_view user_key,
                                         std::string_view value,
                                         uint64_t max_map_bytes) {
  if (state_id >= CacheLimits::kMaxStates) {
    return Status::InvalidArgument("state id >= CacheLimits::kMaxStates");
  }
  StateSlot& s = accounting_.Slot(state_id);
  if (op == MapOp::kPut) {
    s.stats.puts += 1;
  } else {
    s.stats.removes += 1;
  }
  RefreshQuota();
  if (prefix.size() > CacheLimits::kMaxKeyBytes ||
      user_key.size() > CacheLimits::kMaxKeyBytes) {
    s.stats.not_cached += 1;
    s.map.not_cached_ops += 1;
    return WriteOutcome::kNotCached;
  }
  uint64_t hash;
  size_t pos;
  bool counted = false;
  if (index_.MemoMatches(state_id, prefix)) {  // the record's get came first
    hash = index_.memo_hash();
    pos = index_.memo_pos();
    counted = true;
  } else {
    hash = HashKey(state_id, prefix.data(), prefix.size());
    pos = index_.Find(state_id, prefix, hash);
  }
  Entry* e = pos != EntryIndex::kNoSlot ? index_.At(pos) : nullptr;
  if (e == nullptr && tiny_lfu() && !counted) {
    admission_.RecordMiss(hash);  // a write of a map not cached is an access
  }
  if (e != nullptr && e->absent() && op != MapOp::kClear) {
    if (tiny_lfu() && !counted) admission_.RecordHit(e);
    return PartialWrite(e, pos, hash, op, user_key, value, max_map_bytes);
  }
  if (e == nullptr || e->absent()) {
    // Not cached, or a cleared map over the cap: the caller uses RocksDB. A
    // cleared map may be small again: drop its partial body (its dirty
    // records are the cleared map's, which RocksDB is about to lose too).
    if (e != nullptr) Discard(e);
    s.stats.not_cached += 1;
    s.map.not_cached_ops += 1;
    return WriteOutcome::kNotCached;
  }
  if (tiny_lfu() && !counted) admission_.RecordHit(e);

  char* raw = e->value();
  const MapBodyView body(raw, e->value_len());
  bool found = false;
  const uint32_t at =
      op == MapOp::kClear ? 0 : body.LowerBound(user_key, &found);
  const MapRecord old = found ? body.At(at) : MapRecord{};

  // In place: a put of a value of the same length, or a delete of a key
  // RocksDB holds (a tombstone).
  auto done_in_place = [&]() -> Result<WriteOutcome> {
    accounting_.SetDirty(e, true);
    index_.Remember(e, pos, hash);
    OnHit(e);
    return WriteOutcome::kCached;
  };
  if (op == MapOp::kPut && found && old.value.size() == value.size()) {
    std::memcpy(raw + old.offset + kRecordHeaderBytes + old.key.size(),
                value.data(), value.size());
    SetRecordFlags(raw, old, kRecordDirty | (old.flags & kRecordInDb));
    if (!old.live()) SetLiveCount(raw, body.live() + 1);
    return done_in_place();
  }
  if (op == MapOp::kRemove && (!found || !old.live())) {
    index_.Remember(e, pos, hash);
    OnHit(e);
    return WriteOutcome::kCached;  // nothing to delete
  }
  if (op == MapOp::kRemove && old.in_db()) {
    SetRecordFlags(raw, old, kRecordDirty | kRecordTombstone | kRecordInDb);
    SetLiveCount(raw, body.live() - 1);
    return done_in_place();
  }
  // Within the body's slack: append the record, move the offsets.
  const size_t body_size = e->value_len();
  if (op == MapOp::kPut) {
    const size_t grown =
        body.data_bytes() + RecordBytes(user_key.size(), value.size()) +
        (found ? 0 : 4) -
        (found ? RecordBytes(old.key.size(), old.value.size()) : 0);
    if (grown <= max_map_bytes) {
      const uint8_t flags =
          kRecordDirty | (found ? (old.flags & kRecordInDb) : 0);
      if (found ? ReplaceRecord(raw, body_size, at, value, flags)
                : InsertRecord(raw, body_size, at, user_key, value, flags)) {
        return done_in_place();
      }
    }
  } else if (op == MapOp::kRemove &&
             2 * (size_t{body.garbage()} +
                  RecordBytes(old.key.size(), old.value.size())) <=
                 body.used()) {
    EraseRecord(raw, body_size, at);  // a key RocksDB does not hold
    return done_in_place();
  }

  // Rebuild; clean tombstones (keys RocksDB does not hold) are dropped.
  map_builder_.Reset();
  for (uint32_t i = 0; i < body.count(); ++i) {
    const MapRecord r = body.At(i);
    if (op == MapOp::kClear) {
      if (r.in_db()) {
        map_builder_.Add(r.key, std::string_view(),
                         kRecordDirty | kRecordTombstone | kRecordInDb);
      }
      continue;
    }
    if (i == at) {
      if (op == MapOp::kPut) {
        map_builder_.Add(
            user_key, value,
            kRecordDirty | (found ? (old.flags & kRecordInDb) : 0));
      }
      if (found) continue;  // replaced, or removed (not in RocksDB)
    }
    if (!r.live() && !r.dirty()) continue;
    map_builder_.Add(r);
  }
  if (op == MapOp::kPut && at == body.count()) {
    map_builder_.Add(user_key, value, kRecordDirty);  // after the last key
  }
  const size_t rebuilt_data = map_builder_.data_bytes();
  const std::string_view rebuilt =
      map_builder_.Finish(CacheLimits::kEntryHeaderBytes + prefix.size());
  const bool dirty = map_builder_.dirty() > 0;
  const size_t need =
      CacheLimits::kEntryHeaderBytes + prefix.size() + rebuilt.size();
  Status st;
  if (rebuilt_data > max_map_bytes ||
      rebuilt.size() > CacheLimits::kMaxValueBytes ||
      blocks_.ChargeOf(need) > limits_.bytes) {
    s.map.oversized += 1;
    st = Oversize(e, pos, rebuilt);
  } else {
    st = ReplaceValue(e, pos, rebuilt, /*absent=*/false, dirty);
    if (st.ok()) {
      Entry* now = index_.At(pos);
      index_.Remember(now, pos, hash);
      OnHit(now);
    }
  }
  if (st.ok()) st = MakeRoom();
  if (!st.ok()) return st;
  return WriteOutcome::kCached;
}

// A map over the cap keeps a partial body: a subset of its records, each as
// authoritative as a whole map's (dirty, tombstone and in-RocksDB flags);
// user keys it does not hold are in RocksDB as they are. It stays under
// max_map_bytes by starting over: its dirty records go to the sink, and the
// body holds the new record alone.
Result<WriteOutcome> CacheCore::PartialWrite(Entry* e, size_t pos,
                                             uint64_t hash, MapOp op,
                                             std::string_view user_key,
                                             std::string_view value,
                                             uint64_t max_map_bytes) {
  StateSlot& s = accounting_.Slot(e->state());
  char* raw = e->value();
  const MapBodyView body(raw, e->value_len());
  bool found = false;
  const uint32_t at = body.LowerBound(user_key, &found);
  const MapRecord old = found ? body.At(at) : MapRecord{};
  auto done_in_place = [&](bool dirty) -> Result<WriteOutcome> {
    if (dirty) accounting_.SetDirty(e, true);
    index_.Remember(e, pos, hash);
    OnHit(e);
    return WriteOutcome::kCached;
  };
  if (op == MapOp::kRemove) {
    if (!found) {
      // Unknown here, maybe in RocksDB: the caller deletes it there.
      s.stats.not_cached += 1;
      s.map.not_cached_ops += 1;
      return WriteOutcome::kNotCached;
    }
    if (!old.live()) return done_in_place(false);  // deleted already
    // A key RocksDB holds gets a tombstone; one it never got is known absent.
    const uint8_t flags = old.in_db()
                              ? kRecordDirty | kRecordTombstone | kRecordInDb
                              : kRecordTombstone;
    SetRecordFlags(raw, old, flags);
    SetLiveCount(raw, body.live() - 1);
    return done_in_place(old.in_db());
  }
  // A put: a user key this body does not know may be in RocksDB.
  const uint8_t flags =
      kRecordDirty | (found ? (old.flags & kRecordInDb) : kRecordInDb);
  if (found && old.value.size() == value.size()) {
    std::memcpy(raw + old.offset + kRecordHeaderBytes + old.key.size(),
                value.data(), value.size());
    SetRecordFlags(raw, old, flags);
    if (!old.live()) SetLiveCount(raw, body.live() + 1);
    return done_in_place(true);
  }
  return PartialPut(e, pos, hash, at, found, user_key, value, flags,
                    max_map_bytes);
}

Result<WriteOutcome> CacheCore::MapFill(uint32_t state_id,
                                        std::string_view prefix,
                                        std::string_view user_key,
                                        std::string_view value, bool absent,
                                        uint64_t max_map_bytes) {
  if (state_id >= CacheLimits::kMaxStates) {
    return Status::InvalidArgument("state id >= CacheLimits::kMaxStates");
  }
  if (prefix.size() > CacheLimits::kMaxKeyBytes ||
      user_key.size() > CacheLimits::kMaxKeyBytes) {
    return WriteOutcome::kNotCached;
  }
  uint64_t hash;
  size_t pos;
  if (index_.MemoMatches(state_id, prefix)) {  // the lookup that missed
    hash = index_.memo_hash();
    pos = index_.memo_pos();
  } else {
    hash = HashKey(state_id, prefix.data(), prefix.size());
    pos = index_.Find(state_id, prefix, hash);
  }
  if (pos == EntryIndex::kNoSlot || !index_.At(pos)->absent()) {
    return WriteOutcome::kNotCached;
  }
  Entry* e = index_.At(pos);
  const MapBodyView body(e->value(), e->value_len());
  bool found = false;
  const uint32_t at = body.LowerBound(user_key, &found);
  if (found) return WriteOutcome::kCached;  // the body knows better
  RefreshQuota();
  // What RocksDB holds, clean: a value, or a known-absent key.
  return PartialPut(e, pos, hash, at, false, user_key,
                    absent ? std::string_view() : value,
                    absent ? kRecordTombstone : kRecordInDb, max_map_bytes);
}

// Puts a record into a partial body: in its slack, else rebuilt, else (over
// the cap) alone after the old body's dirty records went to the sink.
Result<WriteOutcome> CacheCore::PartialPut(Entry* e, size_t pos, uint64_t hash,
                                           uint32_t at, bool found,
                                           std::string_view user_key,
                                           std::string_view value,
                                           uint8_t flags,
                                           uint64_t max_map_bytes) {
  const bool dirty = (flags & kRecordDirty) != 0;
  char* raw = e->value();
  const size_t body_size = e->value_len();
  const MapBodyView body(raw, body_size);
  const MapRecord old = found ? body.At(at) : MapRecord{};
  const size_t grown =
      (body_size == 0 ? kBodyHeaderBytes : body.data_bytes()) +
      RecordBytes(user_key.size(), value.size()) + (found ? 0 : 4) -
      (found ? RecordBytes(old.key.size(), old.value.size()) : 0);
  if (body_size != 0 && grown <= max_map_bytes &&
      (found ? ReplaceRecord(raw, body_size, at, value, flags)
             : InsertRecord(raw, body_size, at, user_key, value, flags))) {
    if (dirty) accounting_.SetDirty(e, true);
    index_.Remember(e, pos, hash);
    OnHit(e);
    return WriteOutcome::kCached;
  }
  map_builder_.Reset();
  bool keep_dirty = e->dirty();
  const std::string_view prefix = e->key_view();
  // Hands the body's dirty records to the sink (they stay authoritative
  // until the body is replaced or dropped).
  auto write_back_body = [&]() -> Status {
    if (!keep_dirty) return Status::OK();
    Status st = write_back_.WriteMap(e->state(), prefix, body);
    if (st.ok()) accounting_.WrittenBack(e);
    keep_dirty = false;
    return st;
  };
  const size_t alone =
      kBodyHeaderBytes + 4 + RecordBytes(user_key.size(), value.size());
  bool fits = true;
  if (grown <= max_map_bytes) {
    for (uint32_t i = 0; i < body.count(); ++i) {
      if (i == at) map_builder_.Add(user_key, value, flags);
      if (i == at && found) continue;
      map_builder_.Add(body.At(i));
    }
    if (at == body.count()) map_builder_.Add(user_key, value, flags);
  } else {
    // Over the cap: start over with the new record alone.
    Status st = write_back_body();
    if (!st.ok()) return st;
    fits = alone <= max_map_bytes;
    if (fits) map_builder_.Add(user_key, value, flags);
  }
  const std::string_view rebuilt =
      map_builder_.Finish(CacheLimits::kEntryHeaderBytes + prefix.size());
  fits = fits && rebuilt.size() <= CacheLimits::kMaxValueBytes &&
         blocks_.ChargeOf(CacheLimits::kEntryHeaderBytes + prefix.size() +
                          rebuilt.size()) <= limits_.bytes;
  if (!fits) {
    // The record does not fit: RocksDB is the truth for this key, so no
    // older version of it may stay cached. The body goes, written back.
    Status st = write_back_body();
    if (!st.ok()) return st;
    Discard(e);
    return WriteOutcome::kNotCached;
  }
  Status st =
      ReplaceValue(e, pos, rebuilt, /*absent=*/true, keep_dirty || dirty);
  if (!st.ok()) return st;
  Entry* now = index_.At(pos);
  index_.Remember(now, pos, hash);
  OnHit(now);
  st = MakeRoom();
  if (!st.ok()) return st;
  return WriteOutcome::kCached;
}

Result<WriteOutcome> CacheCore::MapWriteBackPartial(uint32_t state_id,
                                                    std::string_view prefix) {
  if (state_id >= CacheLimits::kMaxStates ||
      prefix.size() > CacheLimits::kMaxKeyBytes) {
    return WriteOutcome::kNotCached;
  }
  const size_t pos = index_.Find(
      state_id, prefix, HashKey(state_id, prefix.data(), prefix.size()));
  if (pos == EntryIndex::kNoSlot) return WriteOutcome::kNotCached;
  Entry* e = index_.At(pos);
  if (!e->absent()) return WriteOutcome::kNotCached;
  if (e->dirty()) {
    Status st = write_back_.WriteMap(e->state(), e->key_view(),
                                     MapBodyView(e->value(), e->value_len()));
    if (!st.ok()) return st;
    accounting_.WrittenBack(e);
    write_back_.Cleaned(e);
  }
  return WriteOutcome::kCached;
}

Status CacheCore::ReplaceValue(Entry* e, size_t pos, std::string_view value,
                               bool absent, bool dirty) {
  const uint32_t vlen = static_cast<uint32_t>(value.size());
  if (vlen != e->value_len()) {
    const size_t need = CacheLimits::kEntryHeaderBytes + e->klen + vlen;
    const uint64_t usable = e->usable();
    const bool move = e->in_arena() ? BlockArena::BlockBytes(need) != usable
                                    : need > usable || need * 2 + 64 < usable;
    if (move) {
      e = Relocate(e, pos, need, vlen, absent);
      if (e == nullptr) {
        return Status::ResourceExhausted("cannot allocate an entry block");
      }
    }
  }
  e->vword = ValueWord(vlen, absent) |
             (e->vword & (kArenaBit | kRefBit | kHitsMask | kEpochMask));
  if (vlen != 0) std::memcpy(e->value(), value.data(), vlen);
  accounting_.SetDirty(e, dirty);
  return Status::OK();
}

Status CacheCore::Oversize(Entry* e, size_t pos, std::string_view body) {
  const MapBodyView view(body.data(), body.size());
  Status st = write_back_.WriteMap(e->state(), e->key_view(), view);
  if (!st.ok()) return st;
  CacheStats& stats = accounting_.stats(e->state());
  for (uint32_t i = 0; i < view.count(); ++i) {
    const MapRecord r = view.At(i);
    if (!r.dirty()) continue;
    stats.dirty_writebacks += 1;
    if (!r.live()) stats.tombstones += 1;
  }
  return ReplaceValue(e, pos, std::string_view(), /*absent=*/true,
                      /*dirty=*/false);
}

}  // namespace cache_internal
}  // namespace falcon
