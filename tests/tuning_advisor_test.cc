// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// One test per rule of TuningAdvisor, refusals included.

#include "falcon/tuning_advisor.h"

#include <gtest/gtest.h>

#include <string>

namespace falcon {
namespace {

TuningInput Input(StateKind kind, int32_t key_bytes, int32_t ns_bytes,
                  int32_t key_group_bytes = 1) {
  TuningInput in;
  in.kind = kind;
  in.key_group_prefix_bytes = key_group_bytes;
  in.key_bytes = key_bytes;
  in.namespace_bytes = ns_bytes;
  in.write_buffer_size = 64 << 20;
  return in;
}

TuningProfile AdviseOk(const TuningInput& in) {
  Result<TuningProfile> r = Advise(in);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : TuningProfile{};
}

void ExpectUntuned(const TuningProfile& p, UntunedReason reason) {
  EXPECT_FALSE(p.tuned);
  EXPECT_EQ(p.reason, reason);
  // An untuned profile changes nothing.
  EXPECT_EQ(p.memtable, MemtableKind::kSkipList);
  EXPECT_EQ(p.hash_bucket_count, 0);
  EXPECT_EQ(p.prefix_length, 0);
  EXPECT_EQ(p.memtable_prefix_bloom_ratio, 0.0);
  EXPECT_EQ(p.filter, FilterPolicyKind::kKeep);
  EXPECT_EQ(p.whole_key_filtering, -1);
  EXPECT_EQ(p.arena_block_size, 0);
  EXPECT_EQ(p.fixed_allocation_bytes, 0);
}

// Rule: ValueState with fixed key and namespace -> HashLinkList, prefix = the
// whole key. Long key (8) + VoidNamespace (1 byte) + 1 key-group byte = 10.
TEST(TuningAdvisorTest, ValueStateWithFixedLengthsGetsHashLinkListOnWholeKey) {
  TuningProfile p = AdviseOk(Input(StateKind::kValue, 8, 1));
  EXPECT_TRUE(p.tuned);
  EXPECT_EQ(p.reason, UntunedReason::kNone);
  EXPECT_EQ(p.memtable, MemtableKind::kHashLinkList);
  EXPECT_EQ(p.prefix_length, 10);
  EXPECT_EQ(p.memtable_prefix_bloom_ratio, 0.0);
  EXPECT_EQ(p.filter, FilterPolicyKind::kKeep);
  EXPECT_EQ(p.whole_key_filtering, -1);
  EXPECT_EQ(p.hash_bucket_count, (64 << 20) / kWriteBufferBytesPerBucket);
  EXPECT_EQ(p.arena_block_size, 1 << 20);
}

// The bucket array (8 bytes per bucket) must exceed a quarter arena block so
// that RocksDB gives it an allocation of its own size, not a whole block.
TEST(TuningAdvisorTest, ArenaBlockKeepsNewMemtablesSmall) {
  for (int64_t wb : {int64_t{32} << 20, int64_t{64} << 20, int64_t{256} << 20,
                     int64_t{1} << 30}) {
    TuningInput in = Input(StateKind::kValue, 8, 1);
    in.write_buffer_size = wb;
    TuningProfile p = AdviseOk(in);
    EXPECT_LE(p.arena_block_size, std::min<int64_t>(1 << 20, wb / 8)) << wb;
    EXPECT_GT(p.hash_bucket_count * 8, p.arena_block_size / 4) << wb;
    in.kind = StateKind::kMap;
    TuningProfile m = AdviseOk(in);
    EXPECT_LE(m.arena_block_size, std::min<int64_t>(1 << 20, wb / 8)) << wb;
    EXPECT_GT(m.memtable_prefix_bloom_ratio * static_cast<double>(wb),
              m.arena_block_size / 4.0)
        << wb;
  }
  TuningInput tiny = Input(StateKind::kValue, 8, 1);
  tiny.write_buffer_size = 1;
  EXPECT_EQ(AdviseOk(tiny).arena_block_size, 4096);
}

TEST(TuningAdvisorTest, KeyGroupPrefixOfTwoBytesCountsInThePrefix) {
  EXPECT_EQ(AdviseOk(Input(StateKind::kValue, 8, 1, 2)).prefix_length, 11);
  EXPECT_EQ(AdviseOk(Input(StateKind::kMap, 8, 16, 2)).prefix_length, 26);
}

TEST(TuningAdvisorTest, ZeroLengthPartsAreFixedLengths) {
  TuningProfile p = AdviseOk(Input(StateKind::kValue, 0, 0));
  EXPECT_TRUE(p.tuned);
  EXPECT_EQ(p.prefix_length, 1);
}

TEST(TuningAdvisorTest, HashBucketCountFollowsWriteBufferWithinBounds) {
  TuningInput in = Input(StateKind::kValue, 8, 1);
  in.write_buffer_size = 1;  // tiny
  EXPECT_EQ(AdviseOk(in).hash_bucket_count, kMinHashBuckets);
  in.write_buffer_size = int64_t{8} << 30;  // huge
  EXPECT_EQ(AdviseOk(in).hash_bucket_count, kMaxHashBuckets);
  in.write_buffer_size = 16 << 20;
  EXPECT_EQ(AdviseOk(in).hash_bucket_count, 16384);
}

// Refusal: variable-length keys (String, POJO, Kryo...) cannot give one bucket
// per key and a fixed extractor would read past short keys.
TEST(TuningAdvisorTest, ValueStateWithVariableKeyIsLeftAsIs) {
  ExpectUntuned(AdviseOk(Input(StateKind::kValue, kUnknownLength, 1)),
                UntunedReason::kKeyLengthUnknown);
}

TEST(TuningAdvisorTest, ValueStateWithVariableNamespaceIsLeftAsIs) {
  ExpectUntuned(AdviseOk(Input(StateKind::kValue, 8, kUnknownLength)),
                UntunedReason::kNamespaceLengthUnknown);
}

TEST(TuningAdvisorTest, ValueStateWithHashSwitchedOffIsLeftAsIs) {
  TuningInput in = Input(StateKind::kValue, 8, 1);
  in.hash_memtable_enabled = false;
  ExpectUntuned(AdviseOk(in), UntunedReason::kHashMemtableDisabled);
  // The other switch does not affect value states.
  in.hash_memtable_enabled = true;
  in.range_filter_enabled = false;
  EXPECT_TRUE(AdviseOk(in).tuned);
}

// Rule: MapState -> skiplist, prefix = key group + key + namespace exactly,
// memtable prefix bloom, SST bloom with whole-key filtering.
TEST(TuningAdvisorTest, MapStateWithFixedLengthsGetsRangeFilterOverMapPrefix) {
  // Int key (4) + TimeWindow namespace (16) + 2 key-group bytes = 22.
  TuningProfile p = AdviseOk(Input(StateKind::kMap, 4, 16, 2));
  EXPECT_TRUE(p.tuned);
  EXPECT_EQ(p.memtable, MemtableKind::kSkipList);
  EXPECT_EQ(p.hash_bucket_count, 0);
  EXPECT_EQ(p.prefix_length, 22);
  EXPECT_GT(p.memtable_prefix_bloom_ratio, 0.0);
  EXPECT_LE(p.memtable_prefix_bloom_ratio, 0.25);  // RocksDB's upper bound
  EXPECT_EQ(p.filter, FilterPolicyKind::kBloom);
  EXPECT_EQ(p.bloom_bits_per_key, kBloomBitsPerKey);
  EXPECT_EQ(p.whole_key_filtering, 1);
}

TEST(TuningAdvisorTest, MapStateWithVariableKeyOrNamespaceIsLeftAsIs) {
  ExpectUntuned(AdviseOk(Input(StateKind::kMap, kUnknownLength, 1)),
                UntunedReason::kKeyLengthUnknown);
  ExpectUntuned(AdviseOk(Input(StateKind::kMap, 8, kUnknownLength)),
                UntunedReason::kNamespaceLengthUnknown);
}

TEST(TuningAdvisorTest, MapStateWithRangeFilterSwitchedOffIsLeftAsIs) {
  TuningInput in = Input(StateKind::kMap, 8, 1);
  in.range_filter_enabled = false;
  ExpectUntuned(AdviseOk(in), UntunedReason::kRangeFilterDisabled);
  in.range_filter_enabled = true;
  in.hash_memtable_enabled = false;
  EXPECT_TRUE(AdviseOk(in).tuned);
}

// Rule: timer and default column families are never tuned, whatever the
// lengths and switches say.
TEST(TuningAdvisorTest, TimerAndDefaultColumnFamiliesAreNeverTuned) {
  ExpectUntuned(AdviseOk(Input(StateKind::kTimer, 8, 16)),
                UntunedReason::kTimerColumnFamily);
  ExpectUntuned(AdviseOk(Input(StateKind::kDefault, 8, 1)),
                UntunedReason::kDefaultColumnFamily);
}

TEST(TuningAdvisorTest, OtherKindsAreLeftAsIs) {
  for (StateKind kind : {StateKind::kList, StateKind::kReducing,
                         StateKind::kAggregating, StateKind::kUnknown}) {
    ExpectUntuned(AdviseOk(Input(kind, 8, 1)), UntunedReason::kKindNotTuned);
  }
}

TEST(TuningAdvisorTest, OverlongPrefixIsLeftAsIs) {
  ExpectUntuned(AdviseOk(Input(StateKind::kValue, kMaxPrefixLength, 1)),
                UntunedReason::kPrefixTooLong);
  // 1 + (max - 1) + 1 = max + 1 is too long; 1 + (max - 1) + 0 = max is not.
  ExpectUntuned(AdviseOk(Input(StateKind::kMap, kMaxPrefixLength - 1, 1)),
                UntunedReason::kPrefixTooLong);
  EXPECT_EQ(
      AdviseOk(Input(StateKind::kMap, kMaxPrefixLength - 1, 0)).prefix_length,
      kMaxPrefixLength);
}

// Inputs no Flink state can have are errors, not refusals.
TEST(TuningAdvisorTest, ImpossibleInputsAreInvalidArguments) {
  auto invalid = [](TuningInput in) {
    Result<TuningProfile> r = Advise(in);
    EXPECT_FALSE(r.ok());
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
    }
  };
  invalid(Input(StateKind::kValue, 8, 1, 0));
  invalid(Input(StateKind::kValue, 8, 1, 3));
  invalid(Input(StateKind::kValue, -2, 1));
  invalid(Input(StateKind::kMap, 8, -5));
  invalid(Input(static_cast<StateKind>(8), 8, 1));
  invalid(Input(static_cast<StateKind>(-1), 8, 1));
  TuningInput no_buffer = Input(StateKind::kValue, 8, 1);
  no_buffer.write_buffer_size = 0;
  invalid(no_buffer);
  TuningInput negative_manager = Input(StateKind::kValue, 8, 1);
  negative_manager.write_buffer_manager_capacity = -1;
  invalid(negative_manager);
  TuningInput negative_reserved = Input(StateKind::kMap, 8, 1);
  negative_reserved.fixed_allocations_reserved = -1;
  invalid(negative_reserved);
}

// Rule: without a write-buffer manager the fixed blocks follow the write
// buffer alone, and the profile reports what each memtable allocates.
TEST(TuningAdvisorTest, FixedAllocationIsReportedWithoutManager) {
  TuningProfile value = AdviseOk(Input(StateKind::kValue, 8, 1));
  EXPECT_EQ(value.fixed_allocation_bytes,
            kHashBucketBytes * value.hash_bucket_count);
  TuningProfile map = AdviseOk(Input(StateKind::kMap, 8, 1));
  EXPECT_EQ(map.fixed_allocation_bytes,
            static_cast<int64_t>(kMapMemtableBloomRatio * (64 << 20)));
  EXPECT_NEAR(map.memtable_prefix_bloom_ratio, kMapMemtableBloomRatio, 1e-6);
}

// Rule: with a manager, each memtable's fixed block is at most capacity / 64
// and the slot's together at most capacity / 8; the arena block at most
// capacity / 32. A large manager changes nothing.
TEST(TuningAdvisorTest, FixedAllocationsStayASmallPartOfTheManager) {
  TuningInput large = Input(StateKind::kValue, 8, 1);
  large.write_buffer_manager_capacity = int64_t{1} << 30;
  EXPECT_EQ(AdviseOk(large).hash_bucket_count,
            (64 << 20) / kWriteBufferBytesPerBucket);
  large.kind = StateKind::kMap;
  EXPECT_NEAR(AdviseOk(large).memtable_prefix_bloom_ratio,
              kMapMemtableBloomRatio, 1e-6);

  for (int64_t capacity :
       {int64_t{1} << 20, int64_t{1398101}, int64_t{4} << 20, int64_t{16} << 20,
        int64_t{64} << 20, int64_t{256} << 20}) {
    for (StateKind kind : {StateKind::kValue, StateKind::kMap}) {
      TuningInput in = Input(kind, 8, 1);
      in.write_buffer_manager_capacity = capacity;
      TuningProfile p = AdviseOk(in);
      EXPECT_LE(p.fixed_allocation_bytes, capacity / 64) << capacity;
      if (p.tuned) {
        EXPECT_LE(p.arena_block_size, std::max<int64_t>(4096, capacity / 32))
            << capacity;
        EXPECT_NEAR(p.memtable_prefix_bloom_ratio * (64 << 20),
                    static_cast<double>(
                        kind == StateKind::kMap ? p.fixed_allocation_bytes : 0),
                    64.0)
            << capacity;
      }
      // Once the slot's capacity / 8 is reserved, nothing more is allocated.
      in.fixed_allocations_reserved = capacity / 8;
      TuningProfile full = AdviseOk(in);
      EXPECT_EQ(full.fixed_allocation_bytes, 0) << capacity;
      // What is left of capacity / 8 bounds the next block.
      in.fixed_allocations_reserved = capacity / 8 - 10000;
      EXPECT_LE(AdviseOk(in).fixed_allocation_bytes, 10000) << capacity;
    }
  }
}

// Rule: a hash memtable needs room for its 1024 buckets (8 KiB) in every
// memtable; below that the column family keeps its skiplist.
TEST(TuningAdvisorTest, HashMemtableStepsAsideWhenTheManagerCannotCarryIt) {
  TuningInput in = Input(StateKind::kValue, 8, 1);
  in.write_buffer_manager_capacity = 64 * kHashBucketBytes * kMinHashBuckets;
  TuningProfile fits = AdviseOk(in);
  EXPECT_TRUE(fits.tuned);
  EXPECT_EQ(fits.hash_bucket_count, kMinHashBuckets);
  in.write_buffer_manager_capacity -= 64;
  ExpectUntuned(AdviseOk(in), UntunedReason::kWriteBuffersTooSmall);
  in.write_buffer_manager_capacity = int64_t{64} << 20;
  in.fixed_allocations_reserved = (int64_t{8} << 20) - 8191;
  ExpectUntuned(AdviseOk(in), UntunedReason::kWriteBuffersTooSmall);
}

// Rule: a memtable bloom under 4 KiB is left out; the map keeps its prefix
// extractor and SST filter, and a small arena block.
TEST(TuningAdvisorTest, MapStateKeepsItsSstFilterWithoutRoomForAMemtableBloom) {
  TuningInput in = Input(StateKind::kMap, 8, 1);
  in.write_buffer_manager_capacity = 64 * kMinMemtableBloomBytes - 64;
  TuningProfile p = AdviseOk(in);
  EXPECT_TRUE(p.tuned);
  EXPECT_EQ(p.memtable_prefix_bloom_ratio, 0.0);
  EXPECT_EQ(p.fixed_allocation_bytes, 0);
  EXPECT_EQ(p.prefix_length, 10);
  EXPECT_EQ(p.filter, FilterPolicyKind::kBloom);
  EXPECT_EQ(p.arena_block_size, 8192 - 2);
  in.write_buffer_manager_capacity = 64 * kMinMemtableBloomBytes;
  EXPECT_EQ(AdviseOk(in).fixed_allocation_bytes, kMinMemtableBloomBytes);
}

TEST(TuningAdvisorTest, EveryReasonHasText) {
  for (int r = 0; r <= static_cast<int>(UntunedReason::kWriteBuffersTooSmall);
       ++r) {
    std::string_view text = UntunedReasonText(static_cast<UntunedReason>(r));
    EXPECT_FALSE(text.empty());
    EXPECT_NE(text, "unknown reason") << r;
  }
  EXPECT_EQ(UntunedReasonText(UntunedReason::kTimerColumnFamily),
            "timer column family");
}

}  // namespace
}  // namespace falcon
