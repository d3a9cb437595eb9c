// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/map_body.h"

namespace falcon {
namespace cache_internal {

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
  char* out = records_.data() + at;
  const uint16_t klen = static_cast<uint16_t>(key.size());
  const uint32_t vlen = static_cast<uint32_t>(value.size());
  std::memcpy(out, &klen, 2);
  out[2] = static_cast<char>(flags);
  out[3] = 0;
  std::memcpy(out + 4, &vlen, 4);
  if (!key.empty()) std::memcpy(out + kRecordHeaderBytes, key.data(), key.size());
  if (!value.empty()) {
    std::memcpy(out + kRecordHeaderBytes + key.size(), value.data(),
                value.size());
  }
  if ((flags & kRecordTombstone) == 0) ++live_;
  if ((flags & kRecordDirty) != 0) ++dirty_;
}

std::string_view MapBodyBuilder::Finish() {
  const uint32_t n = count();
  const size_t base = kBodyHeaderBytes + 4 * size_t{n};
  out_.resize(base + records_.size());
  char* out = out_.data();
  std::memcpy(out, &n, 4);
  std::memcpy(out + 4, &live_, 4);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t off = static_cast<uint32_t>(base + offsets_[i]);
    std::memcpy(out + kBodyHeaderBytes + 4 * size_t{i}, &off, 4);
  }
  if (!records_.empty()) {
    std::memcpy(out + base, records_.data(), records_.size());
  }
  return std::string_view(out_.data(), out_.size());
}

}  // namespace cache_internal
}  // namespace falcon
