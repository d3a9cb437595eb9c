// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Natives of io.falconstate.flink.nativeaccess.NativeHotStateCache.
//
// Hot path contract (value()/update() of a cached ValueState, once per record):
// keys and values cross the boundary through one direct ByteBuffer per cache,
// the "io buffer", which Java attaches once (nativeAttachIo) and whose address
// and capacity the native side keeps. Java copies the key (and a written value
// right after it) into the buffer with plain memory stores and passes only
// lengths; a hit copies the value to the start of the buffer, where Java reads
// it. A hot call therefore makes no JNI function call at all: no
// GetByteArrayRegion / SetByteArrayRegion / Get/ReleasePrimitiveArrayCritical /
// GetArrayLength / ExceptionCheck, only the native method's own transition.
// Lengths are checked against the attached capacity, so a wrong length can
// never read or write outside the buffer. Nothing is allocated on either side.
//
// Dirty victims and flushed entries are appended by a BufferSink to a native
// buffer; the write calls report "write-backs pending" and Java drains the
// records into a direct ByteBuffer it owns, then into one RocksDB WriteBatch.
// Record layout, return codes, statistics and quota arrays: native_layout.h.

#include <jni.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "falcon/hot_state_cache.h"
#include "falcon/map_cache.h"
#include "falcon/memory_budget.h"
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
using layout::kRecordHeaderBytes;
using layout::kWriteNotCached;
using layout::kWritePending;

// lease: 0, or a lease handle from NativeMemoryBudget, owned by the cache from
// here on (also when creation fails). dirty_cap: 0 = none.
jlong Create(JNIEnv* env, jclass, jint policy, jlong max_bytes,
             jlong max_entries, jlong lease, jlong dirty_cap,
             jlong dirty_low_water, jboolean huge_pages) {
  std::unique_ptr<BudgetLease> owned_lease(
      lease == 0 ? nullptr : FromHandle<BudgetLease>(lease));
  return GuardJni<jlong>(env, 0, [&]() -> jlong {
    if (dirty_cap < 0 || dirty_low_water < 0 || dirty_low_water > dirty_cap) {
      ThrowIllegalArgument(env, "falcon: bad dirty-byte cap");
      return 0;
    }
    if (policy < 0 || policy > 1) {
      ThrowIllegalArgument(env, "falcon: unknown cache policy");
      return 0;
    }
    if (max_bytes < 0 || max_entries < 0) {
      ThrowIllegalArgument(env, "falcon: negative cache bound");
      return 0;
    }
    CacheOptions options;
    options.policy = static_cast<CachePolicy>(policy);
    options.max_bytes = static_cast<uint64_t>(max_bytes);
    options.max_entries = static_cast<uint64_t>(max_entries);
    options.huge_pages = huge_pages == JNI_TRUE;
    auto nc = std::make_unique<NativeCache>();
    nc->lease = std::move(owned_lease);
    nc->dirty_cap = static_cast<uint64_t>(dirty_cap);
    nc->dirty_low_water = static_cast<uint64_t>(dirty_low_water);
    nc->cache =
        std::make_unique<HotStateCache>(options, &nc->sink, nc->lease.get());
    nc->maps = std::make_unique<MapCache>(nc->cache.get());
    return ToHandle(nc.release());
  });
}

void Dispose(JNIEnv* env, jclass, jlong handle) {
  GuardJniVoid(env, [&] { delete FromHandle<NativeCache>(handle); });
}

// Attaches `buffer` (a direct ByteBuffer of at least 16 bytes) as the io
// buffer; it replaces the previous one. Called once per buffer, never per
// record: GetDirectBufferAddress is looked up here only.
void AttachIo(JNIEnv* env, jclass, jlong handle, jobject buffer) {
  GuardJniVoid(env, [&] {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return;
    if (buffer == nullptr) {
      ThrowNullPointer(env, "falcon: io buffer is null");
      return;
    }
    auto* address = static_cast<char*>(env->GetDirectBufferAddress(buffer));
    jlong capacity = env->GetDirectBufferCapacity(buffer);
    if (address == nullptr || capacity < 16) {
      ThrowIllegalArgument(
          env, "falcon: io buffer is not a direct buffer of 16+ bytes");
      return;
    }
    nc->io = address;
    nc->io_capacity = static_cast<size_t>(capacity);
  });
}

// Key in io[0, key_length). A hit of at most io_capacity bytes is copied to
// io[0, size) and its size returned; a larger one returns
// kGetNeedBuffer - size (Java attaches a larger buffer and asks again).
jint Get(JNIEnv* env, jclass, jlong handle, jint state_id, jint key_length) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckStateId(env, state_id) ||
        !CheckIo(env, nc, key_length, 0)) {
      return kErrorReturn;
    }
    GetResult r =
        nc->cache->Get(static_cast<uint32_t>(state_id), IoKey(nc, key_length));
    switch (r.kind) {
      case Lookup::kMiss:
        return kGetMiss;
      case Lookup::kAbsent:
        return kGetAbsent;
      case Lookup::kBypass:
        return kGetBypass;
      case Lookup::kHit:
        break;
    }
    if (r.size > nc->io_capacity) {
      return kGetNeedBuffer - static_cast<jint>(r.size);
    }
    // r.data points into the cache's entry, never into io: no overlap.
    if (r.size != 0) std::memcpy(nc->io, r.data, r.size);
    return static_cast<jint>(r.size);
  });
}

// Key in io[0, key_length), value right after it.
jint Put(JNIEnv* env, jclass, jlong handle, jint state_id, jint key_length,
         jint value_length) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckStateId(env, state_id) ||
        !CheckIo(env, nc, key_length, value_length)) {
      return kErrorReturn;
    }
    Result<WriteOutcome> r =
        nc->cache->Put(static_cast<uint32_t>(state_id), IoKey(nc, key_length),
                       IoValue(nc, key_length, value_length));
    if (!r.ok()) {
      ThrowStatus(env, r.status());
      return kErrorReturn;
    }
    return WriteCode(env, nc, *r);
  });
}

// A ListState's append: key in io[0, key_length), the element right after
// it; `delimiter` joins it to the cached list, of at most max_list_bytes.
jint Append(JNIEnv* env, jclass, jlong handle, jint state_id, jint key_length,
            jint value_length, jbyte delimiter, jint max_list_bytes) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckStateId(env, state_id) ||
        !CheckIo(env, nc, key_length, value_length)) {
      return kErrorReturn;
    }
    if (max_list_bytes < 0) {
      ThrowIllegalArgument(env, "falcon: negative list bound");
      return kErrorReturn;
    }
    Result<WriteOutcome> r = nc->cache->Append(
        static_cast<uint32_t>(state_id), IoKey(nc, key_length),
        IoValue(nc, key_length, value_length), static_cast<char>(delimiter),
        static_cast<size_t>(max_list_bytes));
    if (!r.ok()) {
      ThrowStatus(env, r.status());
      return kErrorReturn;
    }
    return WriteCode(env, nc, *r);
  });
}

// As Put; value_length < 0 caches "known absent".
jint Fill(JNIEnv* env, jclass, jlong handle, jint state_id, jint key_length,
          jint value_length) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    bool absent = value_length < 0;
    if (nc == nullptr || !CheckStateId(env, state_id) ||
        !CheckIo(env, nc, key_length, absent ? 0 : value_length)) {
      return kErrorReturn;
    }
    uint32_t state = static_cast<uint32_t>(state_id);
    Result<WriteOutcome> r =
        absent ? nc->cache->FillAbsent(state, IoKey(nc, key_length))
               : nc->cache->Fill(state, IoKey(nc, key_length),
                                 IoValue(nc, key_length, value_length));
    if (!r.ok()) {
      ThrowStatus(env, r.status());
      return kErrorReturn;
    }
    return WriteCode(env, nc, *r);
  });
}

// A key-only write (Remove, RemoveNotInDb) through the io buffer.
jint KeyWrite(JNIEnv* env, jlong handle, jint state_id, jint key_length,
              Result<WriteOutcome> (HotStateCache::*write)(uint32_t,
                                                           std::string_view)) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckStateId(env, state_id) ||
        !CheckIo(env, nc, key_length, 0)) {
      return kErrorReturn;
    }
    Result<WriteOutcome> r = ((*nc->cache).*write)(
        static_cast<uint32_t>(state_id), IoKey(nc, key_length));
    if (!r.ok()) {
      ThrowStatus(env, r.status());
      return kErrorReturn;
    }
    return WriteCode(env, nc, *r);
  });
}

jint Remove(JNIEnv* env, jclass, jlong handle, jint state_id, jint key_length) {
  return KeyWrite(env, handle, state_id, key_length, &HotStateCache::Remove);
}

// Remove of a key RocksDB does not hold: nothing is written back.
jint RemoveNotInDb(JNIEnv* env, jclass, jlong handle, jint state_id,
                   jint key_length) {
  return KeyWrite(env, handle, state_id, key_length,
                  &HotStateCache::RemoveNotInDb);
}

// state_id < 0: every state.
jint Flush(JNIEnv* env, jclass, jlong handle, jint state_id) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return kErrorReturn;
    Status s;
    if (state_id < 0) {
      s = nc->cache->FlushAll();
    } else {
      if (!CheckStateId(env, state_id)) return kErrorReturn;
      s = nc->cache->Flush(static_cast<uint32_t>(state_id));
    }
    if (!s.ok()) {
      ThrowStatus(env, s);
      return kErrorReturn;
    }
    return PendingCode(nc);
  });
}

jint WriteBackDirty(JNIEnv* env, jclass, jlong handle, jlong max_dirty_bytes) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return kErrorReturn;
    if (max_dirty_bytes < 0) {
      ThrowIllegalArgument(env, "falcon: negative dirty-byte bound");
      return kErrorReturn;
    }
    Status s =
        nc->cache->WriteBackDirty(static_cast<uint64_t>(max_dirty_bytes));
    if (!s.ok()) {
      ThrowStatus(env, s);
      return kErrorReturn;
    }
    return PendingCode(nc);
  });
}

// Up to max_entries dirty entries written back (a slice ahead of a barrier).
jint WriteBackSome(JNIEnv* env, jclass, jlong handle, jint max_entries) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return kErrorReturn;
    if (max_entries < 0) {
      ThrowIllegalArgument(env, "falcon: negative slice size");
      return kErrorReturn;
    }
    Status s = nc->cache->WriteBackSome(static_cast<size_t>(max_entries));
    if (!s.ok()) {
      ThrowStatus(env, s);
      return kErrorReturn;
    }
    return PendingCode(nc);
  });
}

// Replaces the dirty-byte cap (0 = none) and its low water; the next write
// that leaves more dirty bytes than the new cap writes back down to the low
// water (the cap follows a target pause: DirtyCapController on the Java side).
void SetDirtyCap(JNIEnv* env, jclass, jlong handle, jlong dirty_cap,
                 jlong dirty_low_water) {
  GuardJniVoid(env, [&] {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return;
    if (dirty_cap < 0 || dirty_low_water < 0 || dirty_low_water > dirty_cap) {
      ThrowIllegalArgument(env, "falcon: bad dirty-byte cap");
      return;
    }
    nc->dirty_cap = static_cast<uint64_t>(dirty_cap);
    nc->dirty_low_water = static_cast<uint64_t>(dirty_low_water);
  });
}

// Re-reads the lease quota and evicts down to it (no-op without a lease).
jint ShrinkToQuota(JNIEnv* env, jclass, jlong handle) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return kErrorReturn;
    if (nc->lease != nullptr) {
      Status s = nc->cache->ShrinkToQuota();
      if (!s.ok()) {
        ThrowStatus(env, s);
        return kErrorReturn;
      }
    }
    return PendingCode(nc);
  });
}

// The lease's current quota (layout::QuotaField); the fixed bounds without one.
void Quota(JNIEnv* env, jclass, jlong handle, jlongArray out) {
  GuardJniVoid(env, [&] {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return;
    if (out == nullptr || env->GetArrayLength(out) < layout::kQuotaCount) {
      ThrowIndexOutOfBounds(env, "falcon: quota array too short");
      return;
    }
    jlong v[layout::kQuotaCount];
    if (nc->lease != nullptr) {
      v[layout::kQuotaBytes] = static_cast<jlong>(nc->lease->quota_bytes());
      v[layout::kQuotaEntries] = static_cast<jlong>(nc->lease->quota_entries());
    } else {
      v[layout::kQuotaBytes] = static_cast<jlong>(nc->cache->capacity_bytes());
      v[layout::kQuotaEntries] =
          static_cast<jlong>(nc->cache->capacity_entries());
    }
    env->SetLongArrayRegion(out, 0, layout::kQuotaCount, v);
  });
}

// Copies pending write-back records into `buffer` (a direct ByteBuffer).
jint Drain(JNIEnv* env, jclass, jlong handle, jobject buffer) {
  return GuardJni<jint>(env, kErrorReturn, [&]() -> jint {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return kErrorReturn;
    if (buffer == nullptr) {
      ThrowNullPointer(env, "falcon: drain buffer is null");
      return kErrorReturn;
    }
    auto* dst = static_cast<char*>(env->GetDirectBufferAddress(buffer));
    jlong capacity = env->GetDirectBufferCapacity(buffer);
    if (dst == nullptr || capacity < 0) {
      ThrowIllegalArgument(env, "falcon: drain buffer is not a direct buffer");
      return kErrorReturn;
    }
    int64_t n = nc->sink.Drain(dst, static_cast<size_t>(capacity));
    return static_cast<jint>(n);
  });
}

void DropState(JNIEnv* env, jclass, jlong handle, jint state_id) {
  GuardJniVoid(env, [&] {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr || !CheckStateId(env, state_id)) return;
    nc->cache->DropState(static_cast<uint32_t>(state_id));
  });
}

void Clear(JNIEnv* env, jclass, jlong handle) {
  GuardJniVoid(env, [&] {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return;
    nc->cache->Clear();
    nc->sink.Discard();
  });
}

// Statistics of one state (state_id >= 0) or of the whole cache (< 0), in
// the order of layout::StatsField.
void Stats(JNIEnv* env, jclass, jlong handle, jint state_id, jlongArray out) {
  GuardJniVoid(env, [&] {
    NativeCache* nc = Checked(env, handle);
    if (nc == nullptr) return;
    if (out == nullptr) {
      ThrowNullPointer(env, "falcon: stats array is null");
      return;
    }
    if (env->GetArrayLength(out) < layout::kStatsCount) {
      ThrowIndexOutOfBounds(env, "falcon: stats array too short");
      return;
    }
    CacheStats s;
    if (state_id < 0) {
      s = nc->cache->TotalStats();
    } else {
      if (!CheckStateId(env, state_id)) return;
      s = nc->cache->Stats(static_cast<uint32_t>(state_id));
    }
    jlong v[layout::kStatsCount];
    v[layout::kStatHits] = static_cast<jlong>(s.hits);
    v[layout::kStatAbsentHits] = static_cast<jlong>(s.absent_hits);
    v[layout::kStatMisses] = static_cast<jlong>(s.misses);
    v[layout::kStatBypassedGets] = static_cast<jlong>(s.bypassed);
    v[layout::kStatPuts] = static_cast<jlong>(s.puts);
    v[layout::kStatRemoves] = static_cast<jlong>(s.removes);
    v[layout::kStatFills] = static_cast<jlong>(s.fills);
    v[layout::kStatEvictions] = static_cast<jlong>(s.evictions);
    v[layout::kStatDirtyWriteBacks] = static_cast<jlong>(s.dirty_writebacks);
    v[layout::kStatTombstones] = static_cast<jlong>(s.tombstones);
    v[layout::kStatNotCached] = static_cast<jlong>(s.not_cached);
    v[layout::kStatEntries] = static_cast<jlong>(s.entries);
    v[layout::kStatBytes] = static_cast<jlong>(s.bytes);
    v[layout::kStatDirtyEntries] = static_cast<jlong>(s.dirty_entries);
    v[layout::kStatDirtyBytes] = static_cast<jlong>(s.dirty_bytes);
    v[layout::kStatCapacityBytes] =
        static_cast<jlong>(nc->cache->capacity_bytes());
    v[layout::kStatCapacityEntries] =
        static_cast<jlong>(nc->cache->capacity_entries());
    v[layout::kStatAllocatedBytes] =
        state_id < 0 ? static_cast<jlong>(nc->cache->AllocatedBytes()) : 0;
    env->SetLongArrayRegion(out, 0, layout::kStatsCount, v);
  });
}

jlong ChargeFor(JNIEnv* env, jclass, jint key_size, jint value_size) {
  return GuardJni<jlong>(env, 0, [&]() -> jlong {
    if (key_size < 0 || value_size < 0) {
      ThrowIllegalArgument(env, "falcon: negative size");
      return 0;
    }
    return static_cast<jlong>(HotStateCache::ChargeFor(
        static_cast<size_t>(key_size), static_cast<size_t>(value_size)));
  });
}

}  // namespace

bool RegisterHotStateCache(JNIEnv* env) {
  static const JNINativeMethod kMethods[] = {
      FALCON_NATIVE("nativeCreate", "(IJJJJJZ)J", Create),
      FALCON_NATIVE("nativeShrinkToQuota", "(J)I", ShrinkToQuota),
      FALCON_NATIVE("nativeQuota", "(J[J)V", Quota),
      FALCON_NATIVE("nativeDispose", "(J)V", Dispose),
      FALCON_NATIVE("nativeAttachIo", "(JLjava/nio/ByteBuffer;)V", AttachIo),
      FALCON_NATIVE("nativeGet", "(JII)I", Get),
      FALCON_NATIVE("nativePut", "(JIII)I", Put),
      FALCON_NATIVE("nativeFill", "(JIII)I", Fill),
      FALCON_NATIVE("nativeAppend", "(JIIIBI)I", Append),
      FALCON_NATIVE("nativeRemove", "(JII)I", Remove),
      FALCON_NATIVE("nativeRemoveNotInDb", "(JII)I", RemoveNotInDb),
      FALCON_NATIVE("nativeFlush", "(JI)I", Flush),
      FALCON_NATIVE("nativeWriteBackDirty", "(JJ)I", WriteBackDirty),
      FALCON_NATIVE("nativeWriteBackSome", "(JI)I", WriteBackSome),
      FALCON_NATIVE("nativeSetDirtyCap", "(JJJ)V", SetDirtyCap),
      FALCON_NATIVE("nativeDrain", "(JLjava/nio/ByteBuffer;)I", Drain),
      FALCON_NATIVE("nativeDropState", "(JI)V", DropState),
      FALCON_NATIVE("nativeClear", "(J)V", Clear),
      FALCON_NATIVE("nativeStats", "(JI[J)V", Stats),
      FALCON_NATIVE("nativeChargeFor", "(II)J", ChargeFor),
  };
  return RegisterClassNatives(
      env, "io/falconstate/flink/nativeaccess/NativeHotStateCache", kMethods);
}

}  // namespace falcon::jni
