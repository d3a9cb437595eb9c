// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Natives of io.falconstate.flink.tuning.TuningAdvisor. Cold path (once per
// column family): inputs are primitives, the profile comes back as a packed
// long[] so that C++ constructs no Java object but one array.
//
// Packed layout (TuningAdvisor.java mirrors these indices):
//   [0] tuned (0/1)            [1] reason code (UntunedReason)
//   [2] memtable (MemtableKind) [3] hash bucket count
//   [4] prefix length           [5] memtable prefix bloom ratio, in millionths
//   [6] filter (FilterPolicyKind) [7] bloom bits per key
//   [8] whole-key filtering (-1 keep, 0 off, 1 on)
//   [9] arena block size (0 keep)
//   [10] fixed allocation per memtable (bytes)

#include <cmath>
#include <string>

#include "falcon/tuning_advisor.h"
#include "jni_util.h"
#include "registration.h"

namespace falcon::jni {
namespace {

constexpr jsize kPackedLength = 11;

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
    const jlong packed[kPackedLength] = {
        p.tuned ? 1 : 0,
        static_cast<jlong>(p.reason),
        static_cast<jlong>(p.memtable),
        p.hash_bucket_count,
        p.prefix_length,
        static_cast<jlong>(std::llround(p.memtable_prefix_bloom_ratio * 1e6)),
        static_cast<jlong>(p.filter),
        p.bloom_bits_per_key,
        p.whole_key_filtering,
        p.arena_block_size,
        p.fixed_allocation_bytes,
    };
    jlongArray array = env->NewLongArray(kPackedLength);
    if (array == nullptr) return nullptr;  // OutOfMemoryError pending
    env->SetLongArrayRegion(array, 0, kPackedLength, packed);
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
