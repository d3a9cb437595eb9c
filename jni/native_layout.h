// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Everything the jar and this library must agree on -- record layouts, answer
// codes, statistics arrays, the tuning advisor's result array, state kinds,
// reason and policy codes -- defined once on this side. The Java side defines
// the same once too: io.falconstate.flink.nativeaccess.NativeLayout, whose
// field names kNamedConstants lists with this side's values, so a Java test
// compares every constant (FalconNative.layoutConstants()). Change one,
// change the other, and bump kLayoutVersion in both: the jar refuses a
// library whose FalconNative.layoutVersion() differs from its own
// (NativeLibrary.verified), and Falcon then runs as the stock backend.

#ifndef FALCON_JNI_NATIVE_LAYOUT_H_
#define FALCON_JNI_NATIVE_LAYOUT_H_

#include <jni.h>

#include <cstddef>
#include <cstdint>

#include "falcon/cache_types.h"
#include "falcon/map_cache.h"
#include "falcon/tuning_advisor.h"

namespace falcon::jni::layout {

// 2: MapState, 3: allocated bytes, 4: a record's prefix length, 5: no
// adaptive bypass statistics, 6: slices of write-back, 7: a settable
// dirty-byte cap and partial bodies of maps over the cap, 8: ListState
// appends
constexpr jint kLayoutVersion = 8;

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
  kStatCapacityBytes,
  kStatCapacityEntries,
  // What the allocators hold for the whole cache (0 for one state).
  kStatAllocatedBytes,
  kStatsCount,
};
static_assert(kStatsCount == 18, "NativeLayout.STATS_COUNT");

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

// The cache's eviction policies.
constexpr jint kPolicyWTinyLfu = 0;
constexpr jint kPolicyLru = 1;
static_assert(kPolicyWTinyLfu == static_cast<jint>(CachePolicy::kWTinyLfu) &&
                  kPolicyLru == static_cast<jint>(CachePolicy::kLru),
              "policy codes");

// TuningAdvisor.nativeAdvise returns a long[kAdviceCount] in this order:
// tuned (0/1), reason (UntunedReason), memtable (MemtableKind), hash bucket
// count, prefix length, memtable prefix bloom ratio in millionths, filter
// (FilterPolicyKind), bloom bits per key, whole-key filtering (-1 keep, 0 off,
// 1 on), arena block size (0 keep), fixed allocation per memtable (bytes).
enum AdviceField : jsize {
  kAdviceTuned = 0,
  kAdviceReason,
  kAdviceMemtable,
  kAdviceHashBuckets,
  kAdvicePrefixLength,
  kAdviceBloomRatioMicros,
  kAdviceFilter,
  kAdviceBloomBitsPerKey,
  kAdviceWholeKeyFiltering,
  kAdviceArenaBlockSize,
  kAdviceFixedAllocation,
  kAdviceCount,
};

// Every constant above (and the tuning advisor's enums), by the name of its
// io.falconstate.flink.nativeaccess.NativeLayout field.
struct NamedConstant {
  const char* name;
  jlong value;
};

inline constexpr NamedConstant kNamedConstants[] = {
    {"LAYOUT_VERSION", kLayoutVersion},
    {"ERROR_RETURN", kErrorReturn},
    {"RECORD_STATE_ID_OFFSET", offsetof(RecordHeader, state_id)},
    {"RECORD_KEY_LENGTH_OFFSET", offsetof(RecordHeader, key_length)},
    {"RECORD_VALUE_LENGTH_OFFSET", offsetof(RecordHeader, value_length)},
    {"RECORD_PREFIX_LENGTH_OFFSET", offsetof(RecordHeader, prefix_length)},
    {"RECORD_HEADER_BYTES", kRecordHeaderBytes},
    {"RECORD_DELETE", kDeleteValueLength},
    {"GET_MISS", kGetMiss},
    {"GET_ABSENT", kGetAbsent},
    {"GET_BYPASS", kGetBypass},
    {"GET_NEED_BUFFER", kGetNeedBuffer},
    {"MAP_OVERSIZED", kMapOversized},
    {"SCAN_HEADER_BYTES", kScanHeaderBytes},
    {"PACKED_HEADER_BYTES", kPackedRecordHeaderBytes},
    {"MAP_STAT_LOADS", kMapStatLoads},
    {"MAP_STAT_LOADED_ENTRIES", kMapStatLoadedEntries},
    {"MAP_STAT_OVERSIZED", kMapStatOversized},
    {"MAP_STAT_NOT_CACHED_OPS", kMapStatNotCachedOps},
    {"MAP_STATS_COUNT", kMapStatsCount},
    {"WRITE_NOT_CACHED", kWriteNotCached},
    {"WRITE_PENDING", kWritePending},
    {"STAT_HITS", kStatHits},
    {"STAT_ABSENT_HITS", kStatAbsentHits},
    {"STAT_MISSES", kStatMisses},
    {"STAT_BYPASSED_GETS", kStatBypassedGets},
    {"STAT_PUTS", kStatPuts},
    {"STAT_REMOVES", kStatRemoves},
    {"STAT_FILLS", kStatFills},
    {"STAT_EVICTIONS", kStatEvictions},
    {"STAT_DIRTY_WRITEBACKS", kStatDirtyWriteBacks},
    {"STAT_TOMBSTONES", kStatTombstones},
    {"STAT_NOT_CACHED", kStatNotCached},
    {"STAT_ENTRIES", kStatEntries},
    {"STAT_BYTES", kStatBytes},
    {"STAT_DIRTY_ENTRIES", kStatDirtyEntries},
    {"STAT_DIRTY_BYTES", kStatDirtyBytes},
    {"STAT_CAPACITY_BYTES", kStatCapacityBytes},
    {"STAT_CAPACITY_ENTRIES", kStatCapacityEntries},
    {"STAT_ALLOCATED_BYTES", kStatAllocatedBytes},
    {"STATS_COUNT", kStatsCount},
    {"QUOTA_BYTES", kQuotaBytes},
    {"QUOTA_ENTRIES", kQuotaEntries},
    {"QUOTA_COUNT", kQuotaCount},
    {"JOINED_SUBTASKS", kJoinedSubtasks},
    {"JOINED_QUOTA_BYTES", kJoinedQuotaBytes},
    {"JOINED_QUOTA_ENTRIES", kJoinedQuotaEntries},
    {"JOINED_COUNT", kJoinedCount},
    {"POLICY_W_TINY_LFU", kPolicyWTinyLfu},
    {"POLICY_LRU", kPolicyLru},
    {"STATE_KIND_VALUE", static_cast<jlong>(StateKind::kValue)},
    {"STATE_KIND_LIST", static_cast<jlong>(StateKind::kList)},
    {"STATE_KIND_MAP", static_cast<jlong>(StateKind::kMap)},
    {"STATE_KIND_REDUCING", static_cast<jlong>(StateKind::kReducing)},
    {"STATE_KIND_AGGREGATING", static_cast<jlong>(StateKind::kAggregating)},
    {"STATE_KIND_TIMER", static_cast<jlong>(StateKind::kTimer)},
    {"STATE_KIND_DEFAULT", static_cast<jlong>(StateKind::kDefault)},
    {"STATE_KIND_UNKNOWN", static_cast<jlong>(StateKind::kUnknown)},
    {"MEMTABLE_SKIP_LIST", static_cast<jlong>(MemtableKind::kSkipList)},
    {"MEMTABLE_HASH_LINK_LIST",
     static_cast<jlong>(MemtableKind::kHashLinkList)},
    {"FILTER_KEEP", static_cast<jlong>(FilterPolicyKind::kKeep)},
    {"FILTER_BLOOM", static_cast<jlong>(FilterPolicyKind::kBloom)},
    {"REASON_NONE", static_cast<jlong>(UntunedReason::kNone)},
    {"REASON_TIMER_COLUMN_FAMILY",
     static_cast<jlong>(UntunedReason::kTimerColumnFamily)},
    {"REASON_DEFAULT_COLUMN_FAMILY",
     static_cast<jlong>(UntunedReason::kDefaultColumnFamily)},
    {"REASON_KIND_NOT_TUNED", static_cast<jlong>(UntunedReason::kKindNotTuned)},
    {"REASON_HASH_MEMTABLE_DISABLED",
     static_cast<jlong>(UntunedReason::kHashMemtableDisabled)},
    {"REASON_RANGE_FILTER_DISABLED",
     static_cast<jlong>(UntunedReason::kRangeFilterDisabled)},
    {"REASON_KEY_LENGTH_UNKNOWN",
     static_cast<jlong>(UntunedReason::kKeyLengthUnknown)},
    {"REASON_NAMESPACE_LENGTH_UNKNOWN",
     static_cast<jlong>(UntunedReason::kNamespaceLengthUnknown)},
    {"REASON_PREFIX_TOO_LONG",
     static_cast<jlong>(UntunedReason::kPrefixTooLong)},
    {"REASON_NATIVE_LIBRARY_NOT_LOADED",
     static_cast<jlong>(UntunedReason::kNativeLibraryNotLoaded)},
    {"REASON_WRITE_BUFFERS_TOO_SMALL",
     static_cast<jlong>(UntunedReason::kWriteBuffersTooSmall)},
    {"ADVICE_TUNED", kAdviceTuned},
    {"ADVICE_REASON", kAdviceReason},
    {"ADVICE_MEMTABLE", kAdviceMemtable},
    {"ADVICE_HASH_BUCKETS", kAdviceHashBuckets},
    {"ADVICE_PREFIX_LENGTH", kAdvicePrefixLength},
    {"ADVICE_BLOOM_RATIO_MICROS", kAdviceBloomRatioMicros},
    {"ADVICE_FILTER", kAdviceFilter},
    {"ADVICE_BLOOM_BITS_PER_KEY", kAdviceBloomBitsPerKey},
    {"ADVICE_WHOLE_KEY_FILTERING", kAdviceWholeKeyFiltering},
    {"ADVICE_ARENA_BLOCK_SIZE", kAdviceArenaBlockSize},
    {"ADVICE_FIXED_ALLOCATION", kAdviceFixedAllocation},
    {"ADVICE_COUNT", kAdviceCount},
};

}  // namespace falcon::jni::layout

#endif  // FALCON_JNI_NATIVE_LAYOUT_H_
