// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Natives of io.falconstate.flink.nativeaccess.NativeMemoryBudget: one slot's
// MemoryBudget (created with slots = 1; docs/cache.md, "Memory budget") and
// the BudgetLeases of its keyed subtasks.
//
// Handles: a budget handle owns a heap-allocated shared_ptr<MemoryBudget>; a
// lease handle owns a BudgetLease until it is either released
// (nativeReleaseLease) or handed to NativeHotStateCache.nativeCreate, which
// takes ownership (the cache is destroyed before its lease). A lease keeps its
// budget alive, so the budget handle may be disposed while leases live.
// Thread-safety: as MemoryBudget (Register/Release/subtasks take its mutex;
// quota reads are lock-free). Never called per record.

#include <jni.h>

#include <cstdint>
#include <memory>
#include <string>

#include "falcon/memory_budget.h"
#include "jni_util.h"
#include "native_layout.h"
#include "registration.h"

namespace falcon::jni {
namespace {

using BudgetHolder = std::shared_ptr<MemoryBudget>;

BudgetHolder* CheckedBudget(JNIEnv* env, jlong handle) {
  if (handle == 0) {
    ThrowIllegalState(env, "falcon: the memory budget is closed");
    return nullptr;
  }
  return FromHandle<BudgetHolder>(handle);
}

BudgetLease* CheckedLease(JNIEnv* env, jlong handle) {
  if (handle == 0) {
    ThrowIllegalState(env, "falcon: the budget lease is released");
    return nullptr;
  }
  return FromHandle<BudgetLease>(handle);
}

jlong Create(JNIEnv* env, jclass, jlong slot_bytes, jlong slot_entries) {
  return GuardJni<jlong>(env, 0, [&]() -> jlong {
    if (slot_bytes < 0 || slot_entries < 0) {
      ThrowIllegalArgument(env, "falcon: negative slot budget");
      return 0;
    }
    Result<std::shared_ptr<MemoryBudget>> r =
        MemoryBudget::Create(static_cast<uint64_t>(slot_bytes),
                             static_cast<uint64_t>(slot_entries), 1);
    if (!r.ok()) {
      ThrowStatus(env, r.status());
      return 0;
    }
    return ToHandle(new BudgetHolder(std::move(*r)));
  });
}

void Dispose(JNIEnv* env, jclass, jlong handle) {
  GuardJniVoid(env, [&] { delete FromHandle<BudgetHolder>(handle); });
}

jlong Register(JNIEnv* env, jclass, jlong handle, jdouble weight,
               jstring name) {
  return GuardJni<jlong>(env, 0, [&]() -> jlong {
    BudgetHolder* b = CheckedBudget(env, handle);
    if (b == nullptr) return 0;
    std::string n;
    if (name != nullptr) {
      const char* chars = env->GetStringUTFChars(name, nullptr);
      if (chars == nullptr) return 0;
      n = chars;
      env->ReleaseStringUTFChars(name, chars);
    }
    Result<std::unique_ptr<BudgetLease>> r =
        (*b)->Register(0, weight, std::move(n));
    if (!r.ok()) {
      ThrowStatus(env, r.status());
      return 0;
    }
    return ToHandle(r->release());
  });
}

void ReleaseLease(JNIEnv* env, jclass, jlong lease) {
  GuardJniVoid(env, [&] { delete FromHandle<BudgetLease>(lease); });
}

jlong QuotaBytes(JNIEnv* env, jclass, jlong lease) {
  return GuardJni<jlong>(env, 0, [&]() -> jlong {
    BudgetLease* l = CheckedLease(env, lease);
    return l == nullptr ? 0 : static_cast<jlong>(l->quota_bytes());
  });
}

jlong QuotaEntries(JNIEnv* env, jclass, jlong lease) {
  return GuardJni<jlong>(env, 0, [&]() -> jlong {
    BudgetLease* l = CheckedLease(env, lease);
    return l == nullptr ? 0 : static_cast<jlong>(l->quota_entries());
  });
}

// The facts the lease recorded when it registered (BudgetLease::joined_*),
// in the order of layout::JoinedField.
void JoinedFacts(JNIEnv* env, jclass, jlong lease, jlongArray out) {
  GuardJniVoid(env, [&] {
    BudgetLease* l = CheckedLease(env, lease);
    if (l == nullptr) return;
    if (out == nullptr || env->GetArrayLength(out) < layout::kJoinedCount) {
      ThrowIllegalArgument(
          env, "falcon: joined facts need a long[NativeLayout.JOINED_COUNT]");
      return;
    }
    jlong facts[layout::kJoinedCount];
    facts[layout::kJoinedSubtasks] = static_cast<jlong>(l->joined_subtasks());
    facts[layout::kJoinedQuotaBytes] =
        static_cast<jlong>(l->joined_quota_bytes());
    facts[layout::kJoinedQuotaEntries] =
        static_cast<jlong>(l->joined_quota_entries());
    env->SetLongArrayRegion(out, 0, layout::kJoinedCount, facts);
  });
}

jlong EstimateEntries(JNIEnv* env, jclass, jlong bytes, jlong entry_cap,
                      jlong typical_entry_bytes) {
  return GuardJni<jlong>(env, 0, [&]() -> jlong {
    if (bytes < 0 || entry_cap < 0 || typical_entry_bytes <= 0) {
      ThrowIllegalArgument(env, "falcon: negative size");
      return 0;
    }
    return static_cast<jlong>(MemoryBudget::EstimateEntries(
        static_cast<uint64_t>(bytes), static_cast<uint64_t>(entry_cap),
        static_cast<uint64_t>(typical_entry_bytes)));
  });
}

}  // namespace

bool RegisterMemoryBudget(JNIEnv* env) {
  static const JNINativeMethod kMethods[] = {
      FALCON_NATIVE("nativeCreate", "(JJ)J", Create),
      FALCON_NATIVE("nativeDispose", "(J)V", Dispose),
      FALCON_NATIVE("nativeRegister", "(JDLjava/lang/String;)J", Register),
      FALCON_NATIVE("nativeReleaseLease", "(J)V", ReleaseLease),
      FALCON_NATIVE("nativeQuotaBytes", "(J)J", QuotaBytes),
      FALCON_NATIVE("nativeQuotaEntries", "(J)J", QuotaEntries),
      FALCON_NATIVE("nativeJoinedFacts", "(J[J)V", JoinedFacts),
      FALCON_NATIVE("nativeEstimateEntries", "(JJJ)J", EstimateEntries),
  };
  return RegisterClassNatives(
      env, "io/falconstate/flink/nativeaccess/NativeMemoryBudget", kMethods);
}

}  // namespace falcon::jni
