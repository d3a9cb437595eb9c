// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// TuningAdvisor: decides, per RocksDB column family of a Flink keyed state,
// whether Falcon changes its memtable and filters, and how
// (docs/architecture.md, "Column-family tuning"). It is pure: no RocksDB, no
// JVM, no I/O. The Java ColumnFamilyTuner computes the inputs from Flink's
// serializers exactly as Flink's SerializedCompositeKeyBuilder lays out keys
// and applies the profile through frocksdbjni.
//
// A Flink state key in RocksDB is
//   [key group: 1|2 bytes][key][key length?][namespace][namespace length?]
// followed, for MapState only, by [user key]. The inputs key_bytes and
// namespace_bytes are the fixed lengths of "key + its suffix" and
// "namespace + its suffix" when every value has one length, else
// kUnknownLength.
//
// Rules (each one has a test in tests/tuning_advisor_test.cc):
//  * timer and default column families: never tuned.
//  * ValueState: HashLinkList memtable with a fixed-length prefix extractor of
//    exactly n = key group + key + namespace bytes, i.e. the whole key, so each
//    bucket holds one key; only when key and namespace lengths are fixed.
//  * MapState: skiplist memtable (kept), fixed-length prefix extractor of
//    exactly key group + key + namespace (the map prefix every Flink seek of a
//    map uses; never capped, never longer), memtable prefix bloom, and a bloom
//    filter in the SST with whole-key filtering on ("range filter"); only when
//    key and namespace lengths are fixed.
//  * every memtable of a tuned column family allocates a fixed block when it is
//    created (the hash bucket array, the memtable bloom), charged to the
//    slot's write-buffer manager even while the memtable is empty; a manager
//    flushes once its mutable memtables pass 7/8 of its capacity. So with a
//    manager, each such block is at most capacity / 64, and all of one slot's
//    together at most capacity / 8: a hash memtable whose 1024 buckets do not
//    fit is not used, a memtable bloom under 4 KiB is left out (the prefix
//    extractor and SST filter stay).
//  * a tuned column family gets an arena block of at most min(1 MB, write
//    buffer / 8, manager capacity / 32) and at most twice its first
//    allocation (bucket array or memtable bloom), so a new, empty memtable
//    does not pin a whole 8 MB block of the slot's write buffer manager.
//  * every other kind (list, reducing, aggregating, unknown): left as is.
//  * each tuning has its own switch; a switched-off tuning leaves the column
//    family as is.
//
// Thread-safety: Advise() is a pure function of its argument; call it from any
// thread. Ownership: values only.

#ifndef FALCON_TUNING_ADVISOR_H_
#define FALCON_TUNING_ADVISOR_H_

#include <cstdint>
#include <string_view>

#include "falcon/result.h"

namespace falcon {

// Stable numeric values: the JNI layer passes them as ints and Java mirrors
// them (io.falconstate.flink.tuning.TuningAdvisor). Never renumber.
enum class StateKind : int32_t {
  kValue = 0,
  kList = 1,
  kMap = 2,
  kReducing = 3,
  kAggregating = 4,
  kTimer = 5,    // _timer_state/... column families (RocksDB timer service)
  kDefault = 6,  // RocksDB's "default" column family
  kUnknown = 7,
};

enum class MemtableKind : int32_t {
  kSkipList = 0,  // RocksDB's default; the advisor never changes it to this
  kHashLinkList = 1,
};

enum class FilterPolicyKind : int32_t {
  kKeep = 0,   // whatever Flink's resource container configured
  kBloom = 1,  // a full (not block-based) bloom filter, added if none is set
};

// Why a column family is left as is. Stable numeric values (see StateKind).
enum class UntunedReason : int32_t {
  kNone = 0,  // tuned
  kTimerColumnFamily = 1,
  kDefaultColumnFamily = 2,
  kKindNotTuned = 3,
  kHashMemtableDisabled = 4,
  kRangeFilterDisabled = 5,
  kKeyLengthUnknown = 6,
  kNamespaceLengthUnknown = 7,
  kPrefixTooLong = 8,
  kNativeLibraryNotLoaded = 9,  // produced by the Java wrapper only
  kWriteBuffersTooSmall = 10,
};

inline constexpr int32_t kUnknownLength = -1;

struct TuningInput {
  StateKind kind = StateKind::kUnknown;
  // 1 when max parallelism <= 128, else 2 (Flink's
  // computeRequiredBytesInKeyGroupPrefix).
  int32_t key_group_prefix_bytes = 1;
  // Fixed serialized length of key + key-length suffix, or kUnknownLength.
  int32_t key_bytes = kUnknownLength;
  // Fixed serialized length of namespace + its suffix, or kUnknownLength.
  int32_t namespace_bytes = kUnknownLength;
  // The column family's write_buffer_size (bytes); sizes the hash buckets
  // and the memtable bloom. Must be > 0.
  int64_t write_buffer_size = 64 << 20;
  // Capacity of the write-buffer manager the memtables are charged to (one
  // per slot, shared by every column family of every RocksDB instance in
  // it), or 0 when there is none (memtables bounded by write_buffer_size).
  int64_t write_buffer_manager_capacity = 0;
  // Bytes of per-memtable fixed blocks (see TuningProfile::
  // fixed_allocation_bytes) that the slot's tuned column families hold
  // already. Ignored without a manager.
  int64_t fixed_allocations_reserved = 0;
  bool hash_memtable_enabled = true;
  bool range_filter_enabled = true;
};

struct TuningProfile {
  bool tuned = false;
  UntunedReason reason = UntunedReason::kNone;  // kNone iff tuned
  MemtableKind memtable = MemtableKind::kSkipList;
  int64_t hash_bucket_count = 0;  // > 0 iff memtable == kHashLinkList
  int32_t prefix_length = 0;      // fixed-length prefix extractor; 0 = none
  // memtable_prefix_bloom_size_ratio; 0 = leave RocksDB's default (off).
  double memtable_prefix_bloom_ratio = 0.0;
  FilterPolicyKind filter = FilterPolicyKind::kKeep;
  int32_t bloom_bits_per_key = 0;  // > 0 iff filter == kBloom
  // -1 keep, 0 off, 1 on (BlockBasedTableConfig.whole_key_filtering).
  int32_t whole_key_filtering = -1;
  // arena_block_size in bytes; 0 = keep RocksDB's (write_buffer_size / 8 in
  // FRocksDB 6.20, i.e. 8 MB for Flink's 64 MB write buffers). A tuned column
  // family allocates its hash buckets or memtable bloom when each memtable is
  // created; with 8 MB blocks that allocation would take a whole block, charged
  // to the slot's write buffer manager even while the memtable is empty.
  int64_t arena_block_size = 0;
  // What each memtable of the column family allocates when it is created:
  // the hash bucket array or the memtable bloom, in bytes; the caller counts
  // it against the slot's write-buffer manager (fixed_allocations_reserved).
  int64_t fixed_allocation_bytes = 0;
};

// Constants of the profiles, exposed for tests and documentation.
inline constexpr int64_t kWriteBufferBytesPerBucket = 1024;
inline constexpr int64_t kMinHashBuckets = 1024;
inline constexpr int64_t kMaxHashBuckets = 1 << 18;
inline constexpr int64_t kMaxArenaBlockSize = 1 << 20;
inline constexpr int64_t kHashBucketBytes = 8;
inline constexpr int64_t kFixedAllocationDivisorPerColumnFamily = 64;
inline constexpr int64_t kFixedAllocationDivisorPerSlot = 8;
inline constexpr int64_t kArenaBlockDivisorOfManager = 32;
inline constexpr int64_t kMinMemtableBloomBytes = 4096;
inline constexpr double kMapMemtableBloomRatio = 0.02;
inline constexpr int32_t kBloomBitsPerKey = 10;
inline constexpr int32_t kMaxPrefixLength = 64 * 1024;

// Returns the profile, or InvalidArgument for inputs no Flink state can have
// (key-group prefix not 1 or 2, negative lengths other than kUnknownLength,
// a non-positive write buffer, a negative manager capacity or reservation, a
// kind outside StateKind).
Result<TuningProfile> Advise(const TuningInput& input);

// Operator-facing text of a reason, e.g. "timer column family".
std::string_view UntunedReasonText(UntunedReason reason);

}  // namespace falcon

#endif  // FALCON_TUNING_ADVISOR_H_
