// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/map_body.h"

namespace falcon {
namespace cache_internal {

namespace {

// One record: u16 key length, flags, a zero byte, u32 value length, key, value.
void WriteRecord(char* out, std::string_view key, std::string_view value,
                 uint8_t flags) {
  const uint16_t klen = static_cast<uint16_t>(key.size());
  const uint32_t vlen = static_cast<uint32_t>(value.size());
  std::memcpy(out, &klen, 2);
  out[2] = static_cast<char>(flags);
  out[3] = 0;
  std::memcpy(out + 4, &vlen, 4);
  if (!key.empty())
    std::memcpy(out + kRecordHeaderBytes, key.data(), key.size());
  if (!value.empty()) {
    std::memcpy(out + kRecordHeaderBytes + key.size(), value.data(),
                value.size());
  }
}

}  // namespace

uint32_t MapBodyView::LowerBound(std::string_view key, bool* found) const {
  uint32_t lo = 0;
  uint32_t hi = count();
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (CompareKeys(At(mid).key, key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *found = lo < count() && CompareKeys(At(lo).key, key) == 0;
  return lo;
}

uint32_t MapBodyView::DirtyCount() const {
  uint32_t n = 0;
  for (uint32_t i = 0; i < count(); ++i) {
    if (At(i).dirty()) ++n;
  }
  return n;
}

void MarkWrittenBack(char* body, size_t size) {
  const MapBodyView view(body, size);
  for (uint32_t i = 0; i < view.count(); ++i) {
    const MapRecord r = view.At(i);
    if (!r.dirty()) continue;
    SetRecordFlags(body, r, r.live() ? kRecordInDb : kRecordTombstone);
  }
}

void MapBodyBuilder::Add(std::string_view key, std::string_view value,
                         uint8_t flags) {
  offsets_.push_back(static_cast<uint32_t>(records_.size()));
  const size_t at = records_.size();
  records_.resize(at + kRecordHeaderBytes + key.size() + value.size());
  WriteRecord(records_.data() + at, key, value, flags);
  if ((flags & kRecordTombstone) == 0) ++live_;
  if ((flags & kRecordDirty) != 0) ++dirty_;
}

std::string_view MapBodyBuilder::Finish(size_t bytes_before_body) {
  const uint32_t n = count();
  const uint32_t slots = n + n / 4 + 1;
  const size_t used = records_.size();
  const size_t base = kBodyHeaderBytes + 4 * size_t{slots};
  const size_t block = bytes_before_body + base + used + used / 4 + 32;
  const size_t space = MapBlockBytes(block) - bytes_before_body - base;
  out_.assign(base + space, 0);
  char* out = out_.data();
  const uint32_t used32 = static_cast<uint32_t>(used);
  const uint32_t garbage = 0;
  std::memcpy(out, &n, 4);
  std::memcpy(out + 4, &live_, 4);
  std::memcpy(out + 8, &slots, 4);
  std::memcpy(out + 12, &used32, 4);
  std::memcpy(out + 16, &garbage, 4);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t off = static_cast<uint32_t>(base + offsets_[i]);
    std::memcpy(out + kBodyHeaderBytes + 4 * size_t{i}, &off, 4);
  }
  if (!records_.empty()) std::memcpy(out + base, records_.data(), used);
  return std::string_view(out_.data(), out_.size());
}

namespace {

void Store32(char* body, size_t at, uint32_t v) {
  std::memcpy(body + at, &v, 4);
}

// Writes a record at the end of the used records area; returns its offset.
uint32_t AppendRecord(char* body, const MapBodyView& view, std::string_view key,
                      std::string_view value, uint8_t flags) {
  const uint32_t off =
      static_cast<uint32_t>(view.records_start() + view.used());
  WriteRecord(body + off, key, value, flags);
  Store32(body, 12,
          static_cast<uint32_t>(view.used() +
                                RecordBytes(key.size(), value.size())));
  return off;
}

}  // namespace

bool InsertRecord(char* body, size_t size, uint32_t at, std::string_view key,
                  std::string_view value, uint8_t flags) {
  const MapBodyView view(body, size);
  const uint32_t n = view.count();
  if (n >= view.slots() || view.used() + RecordBytes(key.size(), value.size()) >
                               view.records_capacity()) {
    return false;
  }
  const uint32_t off = AppendRecord(body, view, key, value, flags);
  char* slot = body + kBodyHeaderBytes + 4 * size_t{at};
  std::memmove(slot + 4, slot, 4 * size_t{n - at});
  std::memcpy(slot, &off, 4);
  Store32(body, 0, n + 1);
  if ((flags & kRecordTombstone) == 0) Store32(body, 4, view.live() + 1);
  return true;
}

bool ReplaceRecord(char* body, size_t size, uint32_t at, std::string_view value,
                   uint8_t flags) {
  const MapBodyView view(body, size);
  const MapRecord old = view.At(at);
  if (view.used() + RecordBytes(old.key.size(), value.size()) >
      view.records_capacity()) {
    return false;
  }
  // The key is copied before the header fields it sits next to change.
  const uint32_t live = view.live();
  const uint32_t garbage = view.garbage();
  const uint32_t off = AppendRecord(body, view, old.key, value, flags);
  Store32(body, kBodyHeaderBytes + 4 * size_t{at}, off);
  Store32(body, 16,
          garbage + static_cast<uint32_t>(
                        RecordBytes(old.key.size(), old.value.size())));
  const bool was_live = old.live();
  const bool is_live = (flags & kRecordTombstone) == 0;
  if (was_live != is_live) Store32(body, 4, is_live ? live + 1 : live - 1);
  return true;
}

void EraseRecord(char* body, size_t size, uint32_t at) {
  const MapBodyView view(body, size);
  const MapRecord old = view.At(at);
  const uint32_t n = view.count();
  char* slot = body + kBodyHeaderBytes + 4 * size_t{at};
  std::memmove(slot, slot + 4, 4 * size_t{n - at - 1});
  Store32(body, 0, n - 1);
  if (old.live()) Store32(body, 4, view.live() - 1);
  Store32(body, 16,
          view.garbage() + static_cast<uint32_t>(
                               RecordBytes(old.key.size(), old.value.size())));
}

}  // namespace cache_internal
}  // namespace falcon
