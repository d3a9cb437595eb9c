// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The value of a cached map: every entry of one user map (one key group, key
// and namespace), sorted by the unsigned bytes of the serialized user key, as
// RocksDB orders them. One contiguous body, stored as the cache entry's value:
//
//   u32 count | u32 live | u32 offset[count] | records
//   record:  u16 key length | u8 flags | u8 0 | u32 value length | key | value
//
// Offsets are from the start of the body, in key order; records follow in the
// order they were added. Flags:
//   kDirty      the record differs from RocksDB (a put, or a delete when
//               kTombstone is set too) and must be written back;
//   kTombstone  the user key is deleted; invisible to reads;
//   kInDb       RocksDB holds this user key (loaded, or written back since):
//               deleting it needs a tombstone, otherwise nothing.
// A clean tombstone is a key RocksDB does not hold: kept until the next
// rebuild drops it, so a write-back never has to move the body.
//
// Values are opaque bytes: for Flink, the null flag and the serialized value
// (TTL timestamp included), exactly what RocksDBMapState stores.
//
// Thread-safety: plain data and functions.

#ifndef FALCON_SRC_CACHE_MAP_BODY_H_
#define FALCON_SRC_CACHE_MAP_BODY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace falcon {
namespace cache_internal {

inline constexpr uint8_t kRecordDirty = 1;
inline constexpr uint8_t kRecordTombstone = 2;
inline constexpr uint8_t kRecordInDb = 4;

inline constexpr size_t kBodyHeaderBytes = 8;
inline constexpr size_t kRecordHeaderBytes = 8;
// What one record costs beyond its key and value: its offset and header.
inline constexpr size_t kRecordOverheadBytes = 4 + kRecordHeaderBytes;

struct MapRecord {
  std::string_view key;
  std::string_view value;
  uint8_t flags;
  uint32_t offset;  // of the record's header, from the start of the body

  bool live() const { return (flags & kRecordTombstone) == 0; }
  bool dirty() const { return (flags & kRecordDirty) != 0; }
  bool in_db() const { return (flags & kRecordInDb) != 0; }
};

// Reads a body. An empty view is an empty map.
class MapBodyView {
 public:
  MapBodyView() = default;
  MapBodyView(const char* data, size_t size) : data_(data), size_(size) {}

  uint32_t count() const { return size_ < kBodyHeaderBytes ? 0 : Load32(0); }
  uint32_t live() const { return size_ < kBodyHeaderBytes ? 0 : Load32(4); }
  size_t size() const { return size_; }
  const char* data() const { return data_; }

  MapRecord At(uint32_t i) const {
    const uint32_t off = Load32(kBodyHeaderBytes + 4 * size_t{i});
    uint16_t klen;
    uint32_t vlen;
    std::memcpy(&klen, data_ + off, 2);
    std::memcpy(&vlen, data_ + off + 4, 4);
    const char* key = data_ + off + kRecordHeaderBytes;
    return MapRecord{std::string_view(key, klen),
                     std::string_view(key + klen, vlen),
                     static_cast<uint8_t>(data_[off + 2]), off};
  }
  // The first index whose key is not below `key` (unsigned bytes); *found
  // tells whether that record holds exactly `key`.
  uint32_t LowerBound(std::string_view key, bool* found) const;

  // Number of records with the dirty flag.
  uint32_t DirtyCount() const;

 private:
  uint32_t Load32(size_t at) const {
    uint32_t v;
    std::memcpy(&v, data_ + at, 4);
    return v;
  }

  const char* data_ = nullptr;
  size_t size_ = 0;
};

// Unsigned-bytes order of serialized keys: RocksDB's bytewise comparator.
inline int CompareKeys(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// Sets the flags of record i in a body the caller owns (in place).
inline void SetRecordFlags(char* body, const MapRecord& r, uint8_t flags) {
  body[r.offset + 2] = static_cast<char>(flags);
}
// Overwrites the live count in a body the caller owns.
inline void SetLiveCount(char* body, uint32_t live) {
  std::memcpy(body + 4, &live, 4);
}

// After a write-back of every dirty record: they are clean; the live ones are
// in RocksDB, the tombstones are not (clean tombstones).
void MarkWrittenBack(char* body, size_t size);

// Builds a body from records added in key order. Reused: Reset, Add..., then
// Finish, whose view is valid until the next Reset.
class MapBodyBuilder {
 public:
  void Reset() {
    records_.clear();
    offsets_.clear();
    live_ = 0;
    dirty_ = 0;
  }
  void Add(std::string_view key, std::string_view value, uint8_t flags);
  void Add(const MapRecord& r) { Add(r.key, r.value, r.flags); }
  std::string_view Finish();

  uint32_t count() const { return static_cast<uint32_t>(offsets_.size()); }
  uint32_t dirty() const { return dirty_; }
  // The body's size once finished.
  size_t size() const {
    return kBodyHeaderBytes + 4 * offsets_.size() + records_.size();
  }

 private:
  std::vector<char> records_;
  std::vector<uint32_t> offsets_;  // into records_
  std::vector<char> out_;
  uint32_t live_ = 0;
  uint32_t dirty_ = 0;
};

// The exchange format of Load() input and Scan() output
// (include/falcon/map_cache.h): u16 key length | u32 value length | key |
// value, one after the other.
inline constexpr size_t kPackedHeaderBytes = 6;

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_MAP_BODY_H_
