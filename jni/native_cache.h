// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// What a NativeHotStateCache handle owns, and the checks every native of the
// cache (hot_state_cache_jni.cc, map_cache_jni.cc) makes on its arguments.
// The io buffer contract is at the top of hot_state_cache_jni.cc.

#ifndef FALCON_JNI_NATIVE_CACHE_H_
#define FALCON_JNI_NATIVE_CACHE_H_

#include <jni.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "falcon/hot_state_cache.h"
#include "falcon/map_cache.h"
#include "falcon/memory_budget.h"
#include "jni_util.h"
#include "native_layout.h"

namespace falcon::jni {

class BufferSink final : public WriteBackSink {
 public:
  Status Write(const DirtyEntry* entries, size_t count) override {
    for (size_t i = 0; i < count; ++i) {
      const DirtyEntry& e = entries[i];
      const layout::RecordHeader header{
          static_cast<int32_t>(e.state_id), static_cast<int32_t>(e.key.size()),
          e.is_delete ? layout::kDeleteValueLength
                      : static_cast<int32_t>(e.value.size()),
          static_cast<int32_t>(e.prefix_length)};
      size_t at = pending_.size();
      pending_.resize(at + layout::kRecordHeaderBytes + e.key.size() +
                      (e.is_delete ? 0 : e.value.size()));
      char* out = pending_.data() + at;
      std::memcpy(out, &header, layout::kRecordHeaderBytes);
      out += layout::kRecordHeaderBytes;
      if (!e.key.empty()) std::memcpy(out, e.key.data(), e.key.size());
      out += e.key.size();
      if (!e.is_delete && !e.value.empty()) {
        std::memcpy(out, e.value.data(), e.value.size());
      }
    }
    return Status::OK();
  }

  bool has_pending() const { return read_pos_ < pending_.size(); }

  // Copies whole records into [dst, dst + capacity). Returns the bytes
  // copied, 0 when nothing is pending, or -(size of the next record) when even
  // that one does not fit.
  int64_t Drain(char* dst, size_t capacity) {
    size_t copied = 0;
    while (read_pos_ < pending_.size()) {
      const char* rec = pending_.data() + read_pos_;
      layout::RecordHeader header;
      std::memcpy(&header, rec, layout::kRecordHeaderBytes);
      size_t size =
          layout::kRecordHeaderBytes + static_cast<size_t>(header.key_length) +
          (header.value_length < 0 ? 0
                                   : static_cast<size_t>(header.value_length));
      if (copied + size > capacity) {
        if (copied == 0) return -static_cast<int64_t>(size);
        break;
      }
      std::memcpy(dst + copied, rec, size);
      copied += size;
      read_pos_ += size;
    }
    if (read_pos_ == pending_.size()) {
      pending_.clear();  // keeps its capacity for the next batch
      read_pos_ = 0;
    }
    return static_cast<int64_t>(copied);
  }

  void Discard() {
    pending_.clear();
    read_pos_ = 0;
  }

 private:
  std::vector<char> pending_;
  size_t read_pos_ = 0;
};

// What a Java handle owns. Members are destroyed in reverse order: the cache
// before the lease it reads its quota from, both before the sink.
struct NativeCache {
  BufferSink sink;
  std::unique_ptr<BudgetLease> lease;  // null: fixed bounds from the options
  std::unique_ptr<HotStateCache> cache;
  std::unique_ptr<MapCache> maps;  // the MapState operations of `cache`
  // Dirty-byte cap (0 = none): after a Put/Remove that leaves more dirty bytes
  // than this, the coldest dirty entries are written back down to
  // dirty_low_water (their records join the pending write-backs the caller
  // drains anyway), so the synchronous checkpoint phase flushes a bounded
  // amount. One comparison per write; no extra JNI crossing.
  uint64_t dirty_cap = 0;
  uint64_t dirty_low_water = 0;
  // The attached io buffer (see the top of this file). Java keeps the
  // ByteBuffer reachable for as long as it is attached, so no global ref.
  char* io = nullptr;
  size_t io_capacity = 0;
  // A map scan's prefix and resume key, copied out of io before the scan
  // overwrites it.
  std::string scan_scratch;
};

inline NativeCache* Checked(JNIEnv* env, jlong handle) {
  if (handle == 0) {
    ThrowIllegalState(env, "falcon: the hot-state cache is closed");
    return nullptr;
  }
  return FromHandle<NativeCache>(handle);
}

inline bool CheckStateId(JNIEnv* env, jint state_id) {
  if (state_id < 0 ||
      static_cast<uint32_t>(state_id) >= HotStateCache::kMaxStates) {
    ThrowIllegalArgument(env, "falcon: state id out of range");
    return false;
  }
  return true;
}

// Checks that [0, key_length + value_length) lies in the attached io buffer
// (value_length 0 when there is no value).
inline bool CheckIo(JNIEnv* env, const NativeCache* nc, jint key_length,
                    jint value_length) {
  if (nc->io == nullptr) {
    ThrowIllegalState(env, "falcon: no io buffer attached");
    return false;
  }
  if (key_length < 0 || value_length < 0 ||
      static_cast<uint64_t>(key_length) + static_cast<uint64_t>(value_length) >
          nc->io_capacity) {
    ThrowIndexOutOfBounds(env,
                          "falcon: key/value length outside the io buffer");
    return false;
  }
  return true;
}

inline std::string_view IoKey(const NativeCache* nc, jint key_length) {
  return std::string_view(nc->io, static_cast<size_t>(key_length));
}

inline std::string_view IoValue(const NativeCache* nc, jint key_length,
                                jint value_length) {
  return std::string_view(nc->io + key_length,
                          static_cast<size_t>(value_length));
}

inline jint WriteCode(JNIEnv* env, NativeCache* nc, WriteOutcome outcome) {
  jint code = outcome == WriteOutcome::kNotCached ? layout::kWriteNotCached : 0;
  if (nc->dirty_cap != 0 && nc->cache->dirty_bytes() > nc->dirty_cap) {
    Status s = nc->cache->WriteBackDirty(nc->dirty_low_water);
    if (!s.ok()) {
      ThrowStatus(env, s);
      return layout::kErrorReturn;
    }
  }
  if (nc->sink.has_pending()) code |= layout::kWritePending;
  return code;
}

inline jint PendingCode(NativeCache* nc) {
  return nc->sink.has_pending() ? layout::kWritePending : 0;
}

}  // namespace falcon::jni

#endif  // FALCON_JNI_NATIVE_CACHE_H_
