// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Every layout that crosses the JNI boundary, defined once on this side. The
// Java side defines the same once too: io.falconstate.flink.cache.NativeLayout.
// Change one, change the other, and bump kLayoutVersion in both: the jar
// refuses a library whose FalconNative.layoutVersion() differs from its own
// (NativeLibrary.verified), and Falcon then runs as the stock backend.

#ifndef FALCON_JNI_NATIVE_LAYOUT_H_
#define FALCON_JNI_NATIVE_LAYOUT_H_

#include <jni.h>

#include <cstddef>
#include <cstdint>

namespace falcon::jni::layout {

// 2: MapState, 3: allocated bytes, 4: a record's prefix length
constexpr jint kLayoutVersion = 4;

// A write-back record, as NativeHotStateCache.drain() hands them to Java
// (native byte order): int32 state id | int32 key length | int32 value length
// (kDeleteValueLength: a delete, no value bytes) | int32 prefix length (a
// map record's leading key bytes naming its map; 0 for a value entry) | key |
// value.
struct RecordHeader {
  int32_t state_id;
  int32_t key_length;
  int32_t value_length;
  int32_t prefix_length;
};
constexpr size_t kRecordHeaderBytes = 16;
constexpr int32_t kDeleteValueLength = -1;
static_assert(sizeof(RecordHeader) == kRecordHeaderBytes,
              "16-byte record header");
static_assert(offsetof(RecordHeader, state_id) == 0 &&
                  offsetof(RecordHeader, key_length) == 4 &&
                  offsetof(RecordHeader, value_length) == 8 &&
                  offsetof(RecordHeader, prefix_length) == 12,
              "record header fields");

// nativeGet's answers other than a hit's length (>= 0).
constexpr jint kGetMiss = -1;
constexpr jint kGetAbsent = -2;
constexpr jint kGetBypass = -3;
// Any call that threw a Java exception.
constexpr jint kErrorReturn = -4;
// A hit whose value does not fit the io buffer: kGetNeedBuffer - size.
constexpr jint kGetNeedBuffer = -16;

// Write calls' answer: bits.
constexpr jint kWriteNotCached = 1;  // the caller writes RocksDB itself
constexpr jint kWritePending = 2;    // write-back records wait: drain them

// nativeStats fills a long[kStatsCount] in this order.
enum StatsField : jsize {
  kStatHits = 0,
  kStatAbsentHits,
  kStatMisses,
  kStatBypassedGets,
  kStatPuts,
  kStatRemoves,
  kStatFills,
  kStatEvictions,
  kStatDirtyWriteBacks,
  kStatTombstones,
  kStatNotCached,
  kStatEntries,
  kStatBytes,
  kStatDirtyEntries,
  kStatDirtyBytes,
  kStatBypassEntered,
  kStatBypassedNow,  // 0 or 1
  kStatCapacityBytes,
  kStatCapacityEntries,
  // What the allocators hold for the whole cache (0 for one state).
  kStatAllocatedBytes,
  kStatsCount,
};
static_assert(kStatsCount == 20, "NativeLayout.STATS_COUNT");

// NativeMapCache's answers. nativeGet: a hit's value length (>= 0), or
// kGetMiss (the map is not cached), kGetAbsent (cached, no such user key),
// kGetBypass, kMapOversized (too large to cache: use RocksDB), or
// kGetNeedBuffer - size. nativeIsEmpty: 1 (empty) or 0, else the same codes.
constexpr jint kMapOversized = -5;
// nativeScan writes io[0, 4) = records (int32), io[4] = more (0/1), and the
// packed records from io[kScanHeaderBytes]; it returns their bytes, or a
// code as nativeGet's (kGetNeedBuffer - size: the next record alone needs
// an io buffer of kScanHeaderBytes + size).
constexpr size_t kScanHeaderBytes = 8;

// NativeMapCache.nativeStats fills a long[kMapStatsCount].
enum MapStatsField : jsize {
  kMapStatLoads = 0,
  kMapStatLoadedEntries,
  kMapStatOversized,
  kMapStatNotCachedOps,
  kMapStatsCount,
};

// nativeQuota fills a long[kQuotaCount].
enum QuotaField : jsize { kQuotaBytes = 0, kQuotaEntries, kQuotaCount };

// NativeMemoryBudget.nativeJoinedFacts fills a long[kJoinedCount].
enum JoinedField : jsize {
  kJoinedSubtasks = 0,
  kJoinedQuotaBytes,
  kJoinedQuotaEntries,
  kJoinedCount,
};

}  // namespace falcon::jni::layout

#endif  // FALCON_JNI_NATIVE_LAYOUT_H_
