// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/tuning_advisor.h"

#include <algorithm>
#include <limits>
#include <string>

namespace falcon {
namespace {

TuningProfile Untuned(UntunedReason reason) {
  TuningProfile profile;
  profile.tuned = false;
  profile.reason = reason;
  return profile;
}

bool ValidLength(int32_t length) {
  return length == kUnknownLength || length >= 0;
}

Status Validate(const TuningInput& in) {
  const auto kind = static_cast<int32_t>(in.kind);
  if (kind < static_cast<int32_t>(StateKind::kValue) ||
      kind > static_cast<int32_t>(StateKind::kUnknown)) {
    return Status::InvalidArgument("state kind " + std::to_string(kind) +
                                   " is not a StateKind");
  }
  if (in.key_group_prefix_bytes != 1 && in.key_group_prefix_bytes != 2) {
    return Status::InvalidArgument(
        "key-group prefix must be 1 or 2 bytes, got " +
        std::to_string(in.key_group_prefix_bytes));
  }
  if (!ValidLength(in.key_bytes)) {
    return Status::InvalidArgument(
        "key length must be >= 0 or unknown (-1), got " +
        std::to_string(in.key_bytes));
  }
  if (!ValidLength(in.namespace_bytes)) {
    return Status::InvalidArgument(
        "namespace length must be >= 0 or unknown (-1), got " +
        std::to_string(in.namespace_bytes));
  }
  if (in.write_buffer_size <= 0) {
    return Status::InvalidArgument("write buffer size must be > 0, got " +
                                   std::to_string(in.write_buffer_size));
  }
  if (in.write_buffer_manager_capacity < 0 ||
      in.fixed_allocations_reserved < 0) {
    return Status::InvalidArgument(
        "write-buffer manager capacity and reservation must be >= 0, got " +
        std::to_string(in.write_buffer_manager_capacity) + " and " +
        std::to_string(in.fixed_allocations_reserved));
  }
  return Status::OK();
}

// Length of [key group][key][suffix][namespace][suffix]; kNone when it is
// fixed and usable, else the refusal (and *length is unspecified).
UntunedReason FixedPrefixLength(const TuningInput& in, int32_t* length) {
  if (in.key_bytes == kUnknownLength) return UntunedReason::kKeyLengthUnknown;
  if (in.namespace_bytes == kUnknownLength) {
    return UntunedReason::kNamespaceLengthUnknown;
  }
  const int64_t n =
      int64_t{in.key_group_prefix_bytes} + in.key_bytes + in.namespace_bytes;
  if (n > kMaxPrefixLength) return UntunedReason::kPrefixTooLong;
  *length = static_cast<int32_t>(n);
  return UntunedReason::kNone;
}

// The largest fixed block each memtable of one more tuned column family may
// allocate when it is created: capacity / 64 of the slot's write-buffer
// manager, and what is left of the slot's capacity / 8 for all of them; no
// bound without a manager.
int64_t FixedAllocationLimit(const TuningInput& in) {
  const int64_t capacity = in.write_buffer_manager_capacity;
  if (capacity == 0) return std::numeric_limits<int64_t>::max();
  const int64_t slot_left =
      std::max<int64_t>(0, capacity / kFixedAllocationDivisorPerSlot -
                               in.fixed_allocations_reserved);
  return std::min(capacity / kFixedAllocationDivisorPerColumnFamily, slot_left);
}

// At most RocksDB's own later default, min(1 MB, write_buffer_size / 8), at
// most capacity / 32 of the write-buffer manager, and at most twice
// `allocation` (the bucket array or bloom every new memtable allocates first)
// when there is one: RocksDB's arena gives an allocation above a quarter block
// a chunk of its own size instead of a whole new block.
int64_t ArenaBlockSize(const TuningInput& in, int64_t allocation) {
  int64_t block = std::min(kMaxArenaBlockSize, in.write_buffer_size / 8);
  if (allocation > 0) block = std::min(block, 2 * allocation);
  if (in.write_buffer_manager_capacity > 0) {
    block = std::min(
        block, in.write_buffer_manager_capacity / kArenaBlockDivisorOfManager);
  }
  return std::max<int64_t>(block, 4096);  // RocksDB's minimum block
}

TuningProfile ValueProfile(const TuningInput& in) {
  if (!in.hash_memtable_enabled) {
    return Untuned(UntunedReason::kHashMemtableDisabled);
  }
  int32_t n = 0;
  const UntunedReason refusal = FixedPrefixLength(in, &n);
  if (refusal != UntunedReason::kNone) return Untuned(refusal);

  TuningProfile p;
  p.tuned = true;
  p.memtable = MemtableKind::kHashLinkList;
  // The bucket array lives in each memtable's arena (8 bytes per bucket), so
  // it is charged to the write buffer: under 1% of it at 1 KiB per bucket,
  // and no more than the slot's write-buffer manager can carry.
  const int64_t buckets =
      std::min(std::clamp(in.write_buffer_size / kWriteBufferBytesPerBucket,
                          kMinHashBuckets, kMaxHashBuckets),
               FixedAllocationLimit(in) / kHashBucketBytes);
  if (buckets < kMinHashBuckets) {
    return Untuned(UntunedReason::kWriteBuffersTooSmall);
  }
  p.hash_bucket_count = buckets;
  p.fixed_allocation_bytes = kHashBucketBytes * buckets;
  p.arena_block_size = ArenaBlockSize(in, p.fixed_allocation_bytes);
  // The whole key: every bucket holds exactly one key.
  p.prefix_length = n;
  // A hash lookup already touches one bucket; a memtable bloom would only add
  // work. SST filters stay as Flink configured them.
  p.memtable_prefix_bloom_ratio = 0.0;
  p.filter = FilterPolicyKind::kKeep;
  p.bloom_bits_per_key = 0;
  p.whole_key_filtering = -1;
  return p;
}

TuningProfile MapProfile(const TuningInput& in) {
  if (!in.range_filter_enabled) {
    return Untuned(UntunedReason::kRangeFilterDisabled);
  }
  int32_t n = 0;
  const UntunedReason refusal = FixedPrefixLength(in, &n);
  if (refusal != UntunedReason::kNone) return Untuned(refusal);

  TuningProfile p;
  p.tuned = true;
  p.memtable = MemtableKind::kSkipList;
  p.hash_bucket_count = 0;
  // Exactly the prefix of every map seek (iterator, isEmpty, clear): shorter
  // would weaken the filter, longer (or capped) would make those seeks miss.
  p.prefix_length = n;
  // The memtable bloom: 2% of the write buffer, within what the slot's
  // write-buffer manager can carry; left out when that is under 4 KiB.
  int64_t bloom_bytes =
      std::min(static_cast<int64_t>(kMapMemtableBloomRatio *
                                    static_cast<double>(in.write_buffer_size)),
               FixedAllocationLimit(in));
  if (bloom_bytes < kMinMemtableBloomBytes) bloom_bytes = 0;
  p.fixed_allocation_bytes = bloom_bytes;
  p.memtable_prefix_bloom_ratio = static_cast<double>(bloom_bytes) /
                                  static_cast<double>(in.write_buffer_size);
  p.filter = FilterPolicyKind::kBloom;
  p.bloom_bits_per_key = kBloomBitsPerKey;
  // Point gets (get/contains) test the whole key, seeks the prefix.
  p.whole_key_filtering = 1;
  p.arena_block_size = ArenaBlockSize(in, bloom_bytes);
  return p;
}

}  // namespace

Result<TuningProfile> Advise(const TuningInput& input) {
  Status valid = Validate(input);
  if (!valid.ok()) return valid;

  switch (input.kind) {
    case StateKind::kTimer:
      return Untuned(UntunedReason::kTimerColumnFamily);
    case StateKind::kDefault:
      return Untuned(UntunedReason::kDefaultColumnFamily);
    case StateKind::kValue:
      return ValueProfile(input);
    case StateKind::kMap:
      return MapProfile(input);
    case StateKind::kList:
    case StateKind::kReducing:
    case StateKind::kAggregating:
    case StateKind::kUnknown:
      return Untuned(UntunedReason::kKindNotTuned);
  }
  return Status::Internal("unreachable state kind");
}

std::string_view UntunedReasonText(UntunedReason reason) {
  switch (reason) {
    case UntunedReason::kNone:
      return "tuned";
    case UntunedReason::kTimerColumnFamily:
      return "timer column family";
    case UntunedReason::kDefaultColumnFamily:
      return "default column family";
    case UntunedReason::kKindNotTuned:
      return "only value and map states are tuned";
    case UntunedReason::kHashMemtableDisabled:
      return "value-state hash memtable is switched off";
    case UntunedReason::kRangeFilterDisabled:
      return "map-state range filter is switched off";
    case UntunedReason::kKeyLengthUnknown:
      return "keys have no fixed serialized length";
    case UntunedReason::kNamespaceLengthUnknown:
      return "namespaces have no fixed serialized length";
    case UntunedReason::kPrefixTooLong:
      return "key group + key + namespace is longer than 65536 bytes";
    case UntunedReason::kNativeLibraryNotLoaded:
      return "native library not loaded";
    case UntunedReason::kWriteBuffersTooSmall:
      return "the slot's write buffers cannot carry a hash memtable's 1024 "
             "buckets in every memtable";
  }
  return "unknown reason";
}

}  // namespace falcon
