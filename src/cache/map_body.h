// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The value of a cached map: every entry of one user map (one key group, key
// and namespace), sorted by the unsigned bytes of the serialized user key, as
// RocksDB orders them. One contiguous body, stored as the cache entry's value:
//
//   u32 count | u32 live | u32 slots | u32 used | u32 garbage
//   u32 offset[slots]   (the first `count` in use, in key order)
//   records area        (`used` bytes in use, then free space to the end)
//   record:  u16 key length | u8 flags | u8 0 | u32 value length | key | value
//
// Offsets are from the start of the body. Records are appended to the
// records area in the order they are written: a write of a new key appends
// its record and moves the offsets after it by one slot (4 bytes each), so it
// costs O(count) small moves, not a copy of the map. A record replaced or
// erased becomes garbage; a rebuild (when slots or space run out, or garbage
// outgrows the live records) compacts the body and leaves a quarter of slack.
// Flags:
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

inline constexpr size_t kBodyHeaderBytes = 20;
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
  uint32_t slots() const { return size_ < kBodyHeaderBytes ? 0 : Load32(8); }
  uint32_t used() const { return size_ < kBodyHeaderBytes ? 0 : Load32(12); }
  uint32_t garbage() const { return size_ < kBodyHeaderBytes ? 0 : Load32(16); }
  // Where the records area starts, and its capacity.
  size_t records_start() const {
    return kBodyHeaderBytes + 4 * size_t{slots()};
  }
  size_t records_capacity() const {
    return size_ < kBodyHeaderBytes ? 0 : size_ - records_start();
  }
  // The map's size as the cap counts it: header, offsets and live records,
  // without slack or garbage.
  size_t data_bytes() const {
    return kBodyHeaderBytes + 4 * size_t{count()} + used() - garbage();
  }
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

inline size_t RecordBytes(size_t key, size_t value) {
  return kRecordHeaderBytes + key + value;
}

// In-place edits of a body the caller owns. Each returns false, changing
// nothing, when the body has no room for it (then rebuild).
//
// Inserts a new record at key-order position `at`.
bool InsertRecord(char* body, size_t size, uint32_t at, std::string_view key,
                  std::string_view value, uint8_t flags);
// Replaces record `at` with a record of a new value (and flags); the old one
// becomes garbage.
bool ReplaceRecord(char* body, size_t size, uint32_t at, std::string_view value,
                   uint8_t flags);
// Erases record `at` (a key RocksDB does not hold); it becomes garbage.
void EraseRecord(char* body, size_t size, uint32_t at);

// After a write-back of every dirty record: they are clean; the live ones are
// in RocksDB, the tombstones are not (clean tombstones).
void MarkWrittenBack(char* body, size_t size);

// The size a map's entry block (entry header, prefix and body) is padded to:
// 8-byte steps up to 256 bytes, 32-byte steps up to 512, 64-byte steps up to
// 1 KiB (the block arena's limit), unchanged above. A cache's maps then use
// 46 of the arena's 126 size classes: each class a map passes through as it
// grows keeps a partly used 64 KiB slab, and with every class in use a 3 MiB
// cache of small maps held 1.43 times its charge (1.17 on this grid;
// `RESULT map_cache_memory`). The padding is body space for the map's next
// puts.
constexpr size_t MapBlockBytes(size_t n) {
  if (n <= 256) return (n + 7) & ~size_t{7};
  if (n <= 512) return (n + 31) & ~size_t{31};
  if (n <= 1024) return (n + 63) & ~size_t{63};
  return n;
}

// Builds a body from records added in key order, with a quarter of slack
// (slots and space) for the writes that follow. Reused: Reset, Add..., then
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
  // `bytes_before_body`: what precedes the body in its entry block (entry
  // header and prefix); the body's space is padded to MapBlockBytes.
  std::string_view Finish(size_t bytes_before_body);

  uint32_t count() const { return static_cast<uint32_t>(offsets_.size()); }
  uint32_t dirty() const { return dirty_; }
  // The map's data bytes once finished (MapBodyView::data_bytes).
  size_t data_bytes() const {
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
