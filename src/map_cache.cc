// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/map_cache.h"

#include <cstring>

#include "cache/cache_core.h"
#include "cache/map_body.h"

namespace falcon {

using cache_internal::CacheCore;
using cache_internal::kPackedHeaderBytes;
using cache_internal::MapBodyView;
using cache_internal::MapRecord;

static_assert(kPackedRecordHeaderBytes == kPackedHeaderBytes,
              "one packed record format");

namespace {

// The map behind a lookup, or the lookup's answer when there is none.
MapLookup Kind(const GetResult& g) {
  switch (g.kind) {
    case Lookup::kHit:
      return MapLookup::kHit;
    case Lookup::kAbsent:
      return MapLookup::kOversized;  // a map over the cap: its partial body
    case Lookup::kBypass:
      return MapLookup::kBypass;
    case Lookup::kMiss:
    default:
      return MapLookup::kMiss;
  }
}

}  // namespace

MapCache::MapCache(HotStateCache* cache) : cache_(cache) {}

MapGetResult MapCache::Get(uint32_t state_id, std::string_view prefix,
                           std::string_view user_key) {
  CacheCore& core = *cache_->core_;
  const GetResult g = core.Get(state_id, prefix);
  const MapLookup kind = Kind(g);
  if (kind != MapLookup::kHit && kind != MapLookup::kOversized) {
    if (kind != MapLookup::kMiss) core.CountMapNotCached(state_id);
    return MapGetResult{kind, std::string_view()};
  }
  const MapBodyView body(g.data, g.size);
  bool found = false;
  const uint32_t at = body.LowerBound(user_key, &found);
  if (!found && kind == MapLookup::kOversized) {
    // Over the cap, and not in its partial body: in RocksDB as it is.
    core.CountMapNotCached(state_id);
    return MapGetResult{kind, std::string_view()};
  }
  if (!found) return MapGetResult{MapLookup::kAbsent, std::string_view()};
  const MapRecord r = body.At(at);
  if (!r.live()) return MapGetResult{MapLookup::kAbsent, std::string_view()};
  return MapGetResult{MapLookup::kHit, r.value};
}

MapLookup MapCache::IsEmpty(uint32_t state_id, std::string_view prefix) {
  CacheCore& core = *cache_->core_;
  const GetResult g = core.Get(state_id, prefix);
  const MapLookup kind = Kind(g);
  if (kind != MapLookup::kHit) {
    if (kind != MapLookup::kMiss) core.CountMapNotCached(state_id);
    return kind;
  }
  return MapBodyView(g.data, g.size).live() == 0 ? MapLookup::kAbsent
                                                 : MapLookup::kHit;
}

MapLookup MapCache::Peek(uint32_t state_id, std::string_view prefix) const {
  return Kind(cache_->core_->MapPeek(state_id, prefix));
}

MapScanResult MapCache::Scan(uint32_t state_id, std::string_view prefix,
                             const std::string_view* after, char* out,
                             size_t capacity, bool first) {
  CacheCore& core = *cache_->core_;
  const GetResult g =
      first ? core.Get(state_id, prefix) : core.MapPeek(state_id, prefix);
  MapScanResult result;
  result.kind = Kind(g);
  if (result.kind != MapLookup::kHit) {
    if (result.kind != MapLookup::kMiss) core.CountMapNotCached(state_id);
    return result;
  }
  const MapBodyView body(g.data, g.size);
  uint32_t i = 0;
  if (after != nullptr) {
    bool found = false;
    i = body.LowerBound(*after, &found);
    if (found) ++i;
  }
  for (; i < body.count(); ++i) {
    const MapRecord r = body.At(i);
    if (!r.live()) continue;
    const size_t size = kPackedHeaderBytes + r.key.size() + r.value.size();
    if (result.bytes + size > capacity) {
      result.more = true;
      if (result.records == 0) result.needed = size;
      break;
    }
    char* o = out + result.bytes;
    const uint16_t klen = static_cast<uint16_t>(r.key.size());
    const uint32_t vlen = static_cast<uint32_t>(r.value.size());
    std::memcpy(o, &klen, 2);
    std::memcpy(o + 2, &vlen, 4);
    if (klen != 0) std::memcpy(o + kPackedHeaderBytes, r.key.data(), klen);
    if (vlen != 0) {
      std::memcpy(o + kPackedHeaderBytes + klen, r.value.data(), vlen);
    }
    result.bytes += size;
    result.records += 1;
  }
  return result;
}

Result<WriteOutcome> MapCache::Load(uint32_t state_id, std::string_view prefix,
                                    std::string_view packed, uint32_t count,
                                    uint64_t max_map_bytes) {
  return cache_->core_->MapLoad(state_id, prefix, packed, count, max_map_bytes);
}

Result<WriteOutcome> MapCache::Put(uint32_t state_id, std::string_view prefix,
                                   std::string_view user_key,
                                   std::string_view value,
                                   uint64_t max_map_bytes) {
  return cache_->core_->MapWrite(state_id, prefix, CacheCore::MapOp::kPut,
                                 user_key, value, max_map_bytes);
}

Result<WriteOutcome> MapCache::Remove(uint32_t state_id,
                                      std::string_view prefix,
                                      std::string_view user_key) {
  return cache_->core_->MapWrite(state_id, prefix, CacheCore::MapOp::kRemove,
                                 user_key, std::string_view(), ~uint64_t{0});
}

Result<WriteOutcome> MapCache::Clear(uint32_t state_id,
                                     std::string_view prefix) {
  return cache_->core_->MapWrite(state_id, prefix, CacheCore::MapOp::kClear,
                                 std::string_view(), std::string_view(),
                                 ~uint64_t{0});
}

Result<WriteOutcome> MapCache::Fill(uint32_t state_id, std::string_view prefix,
                                    std::string_view user_key,
                                    std::string_view value, bool absent,
                                    uint64_t max_map_bytes) {
  return cache_->core_->MapFill(state_id, prefix, user_key, value, absent,
                                max_map_bytes);
}

Result<WriteOutcome> MapCache::WriteBackPartial(uint32_t state_id,
                                                std::string_view prefix) {
  return cache_->core_->MapWriteBackPartial(state_id, prefix);
}

MapStats MapCache::Stats(uint32_t state_id) const {
  return cache_->core_->MapStatsOf(state_id);
}

uint64_t MapCache::ChargeFor(size_t prefix_size, size_t records,
                             size_t key_and_value_bytes) {
  return HotStateCache::ChargeFor(
      prefix_size, cache_internal::kBodyHeaderBytes +
                       records * cache_internal::kRecordOverheadBytes +
                       key_and_value_bytes);
}

}  // namespace falcon
