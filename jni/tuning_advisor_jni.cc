// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Natives of io.falconstate.flink.tuning.TuningAdvisor. Cold path (once per
// column family): inputs are primitives, the profile comes back as a packed
// long[] (native_layout.h, AdviceField) so that C++ constructs no Java object
// but one array.

#include <cmath>
#include <string>

#include "falcon/tuning_advisor.h"
#include "jni_util.h"
#include "native_layout.h"
#include "registration.h"

namespace falcon::jni {
namespace {

jlongArray NativeAdvise(JNIEnv* env, jclass, jint kind,
                        jint key_group_prefix_bytes, jint key_bytes,
                        jint namespace_bytes, jlong write_buffer_size,
                        jlong write_buffer_manager_capacity,
                        jlong fixed_allocations_reserved,
                        jboolean hash_memtable_enabled,
                        jboolean range_filter_enabled) {
  return GuardJni<jlongArray>(env, nullptr, [&]() -> jlongArray {
    TuningInput in;
    in.kind = static_cast<StateKind>(kind);
    in.key_group_prefix_bytes = key_group_prefix_bytes;
    in.key_bytes = key_bytes;
    in.namespace_bytes = namespace_bytes;
    in.write_buffer_size = write_buffer_size;
    in.write_buffer_manager_capacity = write_buffer_manager_capacity;
    in.fixed_allocations_reserved = fixed_allocations_reserved;
    in.hash_memtable_enabled = hash_memtable_enabled == JNI_TRUE;
    in.range_filter_enabled = range_filter_enabled == JNI_TRUE;

    Result<TuningProfile> result = Advise(in);
    if (!result.ok()) {
      ThrowStatus(env, result.status());
      return nullptr;
    }
    const TuningProfile& p = *result;
    jlong packed[layout::kAdviceCount] = {};
    packed[layout::kAdviceTuned] = p.tuned ? 1 : 0;
    packed[layout::kAdviceReason] = static_cast<jlong>(p.reason);
    packed[layout::kAdviceMemtable] = static_cast<jlong>(p.memtable);
    packed[layout::kAdviceHashBuckets] = p.hash_bucket_count;
    packed[layout::kAdvicePrefixLength] = p.prefix_length;
    packed[layout::kAdviceBloomRatioMicros] =
        static_cast<jlong>(std::llround(p.memtable_prefix_bloom_ratio * 1e6));
    packed[layout::kAdviceFilter] = static_cast<jlong>(p.filter);
    packed[layout::kAdviceBloomBitsPerKey] = p.bloom_bits_per_key;
    packed[layout::kAdviceWholeKeyFiltering] = p.whole_key_filtering;
    packed[layout::kAdviceArenaBlockSize] = p.arena_block_size;
    packed[layout::kAdviceFixedAllocation] = p.fixed_allocation_bytes;
    jlongArray array = env->NewLongArray(layout::kAdviceCount);
    if (array == nullptr) return nullptr;  // OutOfMemoryError pending
    env->SetLongArrayRegion(array, 0, layout::kAdviceCount, packed);
    return array;
  });
}

jstring NativeReasonText(JNIEnv* env, jclass, jint reason) {
  return GuardJni<jstring>(env, nullptr, [&]() -> jstring {
    const std::string text(
        UntunedReasonText(static_cast<UntunedReason>(reason)));
    return env->NewStringUTF(text.c_str());
  });
}

}  // namespace

bool RegisterTuningAdvisor(JNIEnv* env) {
  static const JNINativeMethod kMethods[] = {
      FALCON_NATIVE("nativeAdvise", "(IIIIJJJZZ)[J", NativeAdvise),
      FALCON_NATIVE("nativeReasonText", "(I)Ljava/lang/String;",
                    NativeReasonText),
  };
  return RegisterClassNatives(env, "io/falconstate/flink/tuning/TuningAdvisor",
                              kMethods);
}

}  // namespace falcon::jni
