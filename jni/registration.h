// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// One Register* function per Java class with native methods, each defined in
// that class's *_jni.cc file and called once from JNI_OnLoad. Natives are
// bound with RegisterNatives, so the library exports only JNI_OnLoad and
// JNI_OnUnload, and a Java/C++ signature mismatch fails at load time.

#ifndef FALCON_JNI_REGISTRATION_H_
#define FALCON_JNI_REGISTRATION_H_

#include <jni.h>

namespace falcon::jni {

bool RegisterFalconNative(JNIEnv* env);
bool RegisterTuningAdvisor(JNIEnv* env);
bool RegisterHotStateCache(JNIEnv* env);
bool RegisterMemoryBudget(JNIEnv* env);

}  // namespace falcon::jni

#endif  // FALCON_JNI_REGISTRATION_H_
