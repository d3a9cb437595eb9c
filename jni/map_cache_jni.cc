// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Natives of io.falconstate.flink.nativeaccess.NativeMapCache: the MapState
// operations (include/falcon/map_cache.h) on a NativeHotStateCache handle.
// Same io-buffer contract as hot_state_cache_jni.cc: Java writes the map's
// prefix, then the user key (and a value) right after it, and passes lengths;
// answers come back at the start of the buffer. Codes: native_layout.h.

#include <jni.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "falcon/map_cache.h"
#include "jni_util.h"
#include "native_cache.h"
#include "native_layout.h"
#include "registration.h"

namespace falcon::jni {
namespace {

using layout::kErrorReturn;
using layout::kGetAbsent;
using layout::kGetBypass;
using layout::kGetMiss;
using layout::kGetNeedBuffer;
using layout::kMapOversized;

// The code of a lookup that found no cached map.
jint NotCachedCode(MapLookup kind) {
  switch (kind) {
    case MapLookup::kBypass:
      return kGetBypass;
    case MapLookup::kOversized:
      return kMapOversized;
    case MapLookup::kMiss:
    default:
      return kGetMiss;
  }
}

bool CheckMapIo(JNIEnv* env, const NativeCache* nc, jint state_id,
                jint prefix_length, jint key_length, jint value_length) {
  if (!CheckStateId(env, state_id)) return false;
  if (prefix_length < 0 || key_length < 0) {
    ThrowIndexOutOfBounds(env, "falcon: negative prefix or key length");
    return false;
  }
  return CheckIo(env, nc, prefix_length + key_length, value_length);
}

// The answer of a lookup of the user key io[prefix_length, +key_length) in
// the map io[0, prefix_length): copies a hit's value to the start of io.
jint GetFromIo(NativeCache* nc, jint state_id, jint prefix_length,
               jint key_length) {
  const MapGetResult r =
      nc->maps->Get(static_cast<uint32_t>(state_id), IoKey(nc, prefix_length),
                    std::string_view(nc->io + prefix_length,
                                     static_cast<size_t>(key_length)));
  if (r.kind == MapLookup::kAbsent) return kGetAbsent;
  if (r.kind != MapLookup::kHit) return NotCachedCode(r.kind);
  if (r.value.size() > nc->io_capacity) {
    return kGetNeedBuffer - static_cast<jint>(r.value.size());
  }
  // The value lives in the cache's entry, never in io: no overlap.
  if (!r.value.empty()) std::memcpy(nc->io, r.value.data(), r.value.size());
  return static_cast<jint>(r.value.size());
}

jint Get(JNIEnv* env, jclass, jlong handle, jint state_id, jint prefix_length,
         jint key_length) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr ||
        !CheckMapIo(env, nc, state_id, prefix_length, key_length, 0)) {
      return kErrorReturn;
    }
    return GetFromIo(nc, state_id, prefix_length, key_length);
  });
}

jint IsEmpty(JNIEnv* env, jclass, jlong handle, jint state_id,
             jint prefix_length) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckMapIo(env, nc, state_id, prefix_length, 0, 0)) {
      return kErrorReturn;
    }
    const MapLookup kind = nc->maps->IsEmpty(static_cast<uint32_t>(state_id),
                                             IoKey(nc, prefix_length));
    if (kind == MapLookup::kAbsent) return 1;
    if (kind == MapLookup::kHit) return 0;
    return NotCachedCode(kind);
  });
}

// io: prefix, then (after_length >= 0) the last user key already returned.
jint Scan(JNIEnv* env, jclass, jlong handle, jint state_id, jint prefix_length,
          jint after_length, jboolean first) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckMapIo(env, nc, state_id, prefix_length,
                                     after_length < 0 ? 0 : after_length, 0)) {
      return kErrorReturn;
    }
    if (nc->io_capacity < layout::kScanHeaderBytes) {
      ThrowIllegalState(env, "falcon: io buffer too small for a scan");
      return kErrorReturn;
    }
    // The prefix and the resume key are read from io, which the scan
    // overwrites: copy them first (both are short).
    nc->scan_scratch.assign(nc->io, static_cast<size_t>(prefix_length) +
                                        (after_length < 0 ? 0 : after_length));
    const std::string_view prefix(nc->scan_scratch.data(),
                                  static_cast<size_t>(prefix_length));
    const std::string_view after(nc->scan_scratch.data() + prefix_length,
                                 after_length < 0 ? 0 : after_length);
    const MapScanResult r = nc->maps->Scan(
        static_cast<uint32_t>(state_id), prefix,
        after_length < 0 ? nullptr : &after, nc->io + layout::kScanHeaderBytes,
        nc->io_capacity - layout::kScanHeaderBytes, first == JNI_TRUE);
    if (r.kind != MapLookup::kHit) return NotCachedCode(r.kind);
    if (r.records == 0 && r.more) {
      return kGetNeedBuffer - static_cast<jint>(r.needed);
    }
    const int32_t records = static_cast<int32_t>(r.records);
    std::memcpy(nc->io, &records, 4);
    nc->io[4] = r.more ? 1 : 0;
    return static_cast<jint>(r.bytes);
  });
}

// Caches the map io[0, prefix_length) from the `count` packed records at
// io[records_at, +packed_length); null (a Java exception pending) when an
// argument is wrong or the load fails.
std::optional<WriteOutcome> LoadFromIo(JNIEnv* env, NativeCache* nc,
                                       jint state_id, jint prefix_length,
                                       jint records_at, jint count,
                                       jint packed_length,
                                       jlong max_map_bytes) {
  if (!CheckMapIo(env, nc, state_id, prefix_length, records_at - prefix_length,
                  packed_length)) {
    return std::nullopt;
  }
  if (count < 0 || max_map_bytes < 0) {
    ThrowIllegalArgument(env, "falcon: negative record count or cap");
    return std::nullopt;
  }
  Result<WriteOutcome> r = nc->maps->Load(
      static_cast<uint32_t>(state_id), IoKey(nc, prefix_length),
      IoValue(nc, records_at, packed_length), static_cast<uint32_t>(count),
      static_cast<uint64_t>(max_map_bytes));
  if (!r.ok()) {
    ThrowStatus(env, r.status());
    return std::nullopt;
  }
  return *r;
}

// io: prefix, then `count` packed records of packed_length bytes in all.
jint Load(JNIEnv* env, jclass, jlong handle, jint state_id, jint prefix_length,
          jint count, jint packed_length, jlong max_map_bytes) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return kErrorReturn;
    const std::optional<WriteOutcome> outcome =
        LoadFromIo(env, nc, state_id, prefix_length, prefix_length, count,
                   packed_length, max_map_bytes);
    return outcome ? WriteCode(env, nc, *outcome) : kErrorReturn;
  });
}

// A miss in one call: caches the map read from RocksDB, as Load, then answers
// the lookup that missed, as Get (only when the map got cached: otherwise
// kGetMiss, and no access is counted). io: prefix, user key, then `count`
// packed records of packed_length bytes. Returns Load's write code in the
// high 32 bits and Get's answer in the low 32 bits; kErrorReturn when a Java
// exception is pending.
jlong LoadGet(JNIEnv* env, jclass, jlong handle, jint state_id,
              jint prefix_length, jint key_length, jint count,
              jint packed_length, jlong max_map_bytes) {
  return GuardJni<jlong>(env, kErrorReturn, [&]() -> jlong {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return kErrorReturn;
    if (prefix_length < 0 || key_length < 0 ||
        static_cast<int64_t>(prefix_length) + key_length > INT32_MAX) {
      ThrowIndexOutOfBounds(env, "falcon: prefix or key length out of range");
      return kErrorReturn;
    }
    const std::optional<WriteOutcome> outcome =
        LoadFromIo(env, nc, state_id, prefix_length, prefix_length + key_length,
                   count, packed_length, max_map_bytes);
    if (!outcome) return kErrorReturn;
    const jint code = WriteCode(env, nc, *outcome);
    if (code == kErrorReturn) return kErrorReturn;
    const jint answer = *outcome == WriteOutcome::kCached
                            ? GetFromIo(nc, state_id, prefix_length, key_length)
                            : kGetMiss;
    return (static_cast<jlong>(code) << 32) |
           static_cast<jlong>(static_cast<uint32_t>(answer));
  });
}

// The write code of a map write, or kErrorReturn with the failure thrown.
jint WriteAnswer(JNIEnv* env, NativeCache* nc, const Result<WriteOutcome>& r) {
  if (!r.ok()) {
    ThrowStatus(env, r.status());
    return kErrorReturn;
  }
  return WriteCode(env, nc, *r);
}

// io: prefix, user key, value.
jint Put(JNIEnv* env, jclass, jlong handle, jint state_id, jint prefix_length,
         jint key_length, jint value_length, jlong max_map_bytes) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckMapIo(env, nc, state_id, prefix_length,
                                     key_length, value_length)) {
      return kErrorReturn;
    }
    Result<WriteOutcome> r = nc->maps->Put(
        static_cast<uint32_t>(state_id), IoKey(nc, prefix_length),
        std::string_view(nc->io + prefix_length,
                         static_cast<size_t>(key_length)),
        IoValue(nc, prefix_length + key_length, value_length),
        max_map_bytes < 0 ? 0 : static_cast<uint64_t>(max_map_bytes));
    return WriteAnswer(env, nc, r);
  });
}

jint Remove(JNIEnv* env, jclass, jlong handle, jint state_id,
            jint prefix_length, jint key_length) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr ||
        !CheckMapIo(env, nc, state_id, prefix_length, key_length, 0)) {
      return kErrorReturn;
    }
    Result<WriteOutcome> r = nc->maps->Remove(
        static_cast<uint32_t>(state_id), IoKey(nc, prefix_length),
        std::string_view(nc->io + prefix_length,
                         static_cast<size_t>(key_length)));
    return WriteAnswer(env, nc, r);
  });
}

jint Clear(JNIEnv* env, jclass, jlong handle, jint state_id,
           jint prefix_length) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckMapIo(env, nc, state_id, prefix_length, 0, 0)) {
      return kErrorReturn;
    }
    Result<WriteOutcome> r = nc->maps->Clear(static_cast<uint32_t>(state_id),
                                             IoKey(nc, prefix_length));
    return WriteAnswer(env, nc, r);
  });
}

// io: prefix, user key, value (value_length < 0: RocksDB has no such key).
jint Fill(JNIEnv* env, jclass, jlong handle, jint state_id, jint prefix_length,
          jint key_length, jint value_length, jlong max_map_bytes) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    const bool absent = value_length < 0;
    if (nc == nullptr || !CheckMapIo(env, nc, state_id, prefix_length,
                                     key_length, absent ? 0 : value_length)) {
      return kErrorReturn;
    }
    Result<WriteOutcome> r = nc->maps->Fill(
        static_cast<uint32_t>(state_id), IoKey(nc, prefix_length),
        std::string_view(nc->io + prefix_length,
                         static_cast<size_t>(key_length)),
        absent ? std::string_view()
               : IoValue(nc, prefix_length + key_length, value_length),
        absent, max_map_bytes < 0 ? 0 : static_cast<uint64_t>(max_map_bytes));
    return WriteAnswer(env, nc, r);
  });
}

// io: prefix.
jint WriteBackPartial(JNIEnv* env, jclass, jlong handle, jint state_id,
                      jint prefix_length) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckMapIo(env, nc, state_id, prefix_length, 0, 0)) {
      return kErrorReturn;
    }
    Result<WriteOutcome> r = nc->maps->WriteBackPartial(
        static_cast<uint32_t>(state_id), IoKey(nc, prefix_length));
    return WriteAnswer(env, nc, r);
  });
}

void Stats(JNIEnv* env, jclass, jlong handle, jint state_id, jlongArray out) {
  GuardJniVoid(env, [&] {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckStateId(env, state_id)) return;
    if (out == nullptr) {
      ThrowNullPointer(env, "falcon: stats array is null");
      return;
    }
    if (env->GetArrayLength(out) < layout::kMapStatsCount) {
      ThrowIndexOutOfBounds(env, "falcon: map stats array too short");
      return;
    }
    const MapStats s = nc->maps->Stats(static_cast<uint32_t>(state_id));
    jlong v[layout::kMapStatsCount];
    v[layout::kMapStatLoads] = static_cast<jlong>(s.loads);
    v[layout::kMapStatLoadedEntries] = static_cast<jlong>(s.loaded_entries);
    v[layout::kMapStatOversized] = static_cast<jlong>(s.oversized);
    v[layout::kMapStatNotCachedOps] = static_cast<jlong>(s.not_cached_ops);
    env->SetLongArrayRegion(out, 0, layout::kMapStatsCount, v);
  });
}

jlong ChargeFor(JNIEnv* env, jclass, jint prefix_size, jint records,
                jint key_and_value_bytes) {
  return GuardJni<jlong>(env, 0, [&]() -> jlong {
    if (prefix_size < 0 || records < 0 || key_and_value_bytes < 0) {
      ThrowIllegalArgument(env, "falcon: negative size");
      return 0;
    }
    return static_cast<jlong>(MapCache::ChargeFor(
        static_cast<size_t>(prefix_size), static_cast<size_t>(records),
        static_cast<size_t>(key_and_value_bytes)));
  });
}

}  // namespace

bool RegisterMapCache(JNIEnv* env) {
  static const JNINativeMethod kMethods[] = {
      FALCON_NATIVE("nativeGet", "(JIII)I", Get),
      FALCON_NATIVE("nativeIsEmpty", "(JII)I", IsEmpty),
      FALCON_NATIVE("nativeScan", "(JIIIZ)I", Scan),
      FALCON_NATIVE("nativeFill", "(JIIIIJ)I", Fill),
      FALCON_NATIVE("nativeWriteBackPartial", "(JII)I", WriteBackPartial),
      FALCON_NATIVE("nativeLoad", "(JIIIIJ)I", Load),
      FALCON_NATIVE("nativeLoadGet", "(JIIIIIJ)J", LoadGet),
      FALCON_NATIVE("nativePut", "(JIIIIJ)I", Put),
      FALCON_NATIVE("nativeRemove", "(JIII)I", Remove),
      FALCON_NATIVE("nativeClear", "(JII)I", Clear),
      FALCON_NATIVE("nativeStats", "(JI[J)V", Stats),
      FALCON_NATIVE("nativeChargeFor", "(III)J", ChargeFor),
  };
  return RegisterClassNatives(
      env, "io/falconstate/flink/nativeaccess/NativeMapCache", kMethods);
}

}  // namespace falcon::jni
