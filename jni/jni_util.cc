// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "jni_util.h"

#include <string>

namespace falcon::jni {
namespace {

CachedClasses g_classes;

jclass GlobalClass(JNIEnv* env, const char* name) {
  jclass local = env->FindClass(name);
  if (local == nullptr) return nullptr;
  auto global = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  return global;
}

void Throw(JNIEnv* env, jclass clazz, const char* message) {
  if (env->ExceptionCheck()) return;  // keep the first, most precise error
  if (clazz == nullptr) clazz = g_classes.runtime_exception;
  if (clazz != nullptr) env->ThrowNew(clazz, message);
}

}  // namespace

const CachedClasses& Classes() { return g_classes; }

bool CacheClasses(JNIEnv* env) {
  g_classes.illegal_argument_exception =
      GlobalClass(env, "java/lang/IllegalArgumentException");
  g_classes.illegal_state_exception =
      GlobalClass(env, "java/lang/IllegalStateException");
  g_classes.index_out_of_bounds_exception =
      GlobalClass(env, "java/lang/IndexOutOfBoundsException");
  g_classes.null_pointer_exception =
      GlobalClass(env, "java/lang/NullPointerException");
  g_classes.out_of_memory_error =
      GlobalClass(env, "java/lang/OutOfMemoryError");
  g_classes.runtime_exception = GlobalClass(env, "java/lang/RuntimeException");
  return g_classes.illegal_argument_exception != nullptr &&
         g_classes.illegal_state_exception != nullptr &&
         g_classes.index_out_of_bounds_exception != nullptr &&
         g_classes.null_pointer_exception != nullptr &&
         g_classes.out_of_memory_error != nullptr &&
         g_classes.runtime_exception != nullptr;
}

void ReleaseClasses(JNIEnv* env) {
  for (jclass* c :
       {&g_classes.illegal_argument_exception,
        &g_classes.illegal_state_exception,
        &g_classes.index_out_of_bounds_exception,
        &g_classes.null_pointer_exception, &g_classes.out_of_memory_error,
        &g_classes.runtime_exception}) {
    if (*c != nullptr) env->DeleteGlobalRef(*c);
    *c = nullptr;
  }
}

void ThrowIllegalArgument(JNIEnv* env, const char* message) {
  Throw(env, g_classes.illegal_argument_exception, message);
}
void ThrowIllegalState(JNIEnv* env, const char* message) {
  Throw(env, g_classes.illegal_state_exception, message);
}
void ThrowIndexOutOfBounds(JNIEnv* env, const char* message) {
  Throw(env, g_classes.index_out_of_bounds_exception, message);
}
void ThrowNullPointer(JNIEnv* env, const char* message) {
  Throw(env, g_classes.null_pointer_exception, message);
}
void ThrowOutOfMemory(JNIEnv* env, const char* message) {
  Throw(env, g_classes.out_of_memory_error, message);
}

void ThrowStatus(JNIEnv* env, const Status& status) {
  if (status.ok()) return;
  std::string message = "falcon: " + status.ToString();
  switch (status.code()) {
    case Status::Code::kInvalidArgument:
      ThrowIllegalArgument(env, message.c_str());
      break;
    case Status::Code::kResourceExhausted:
    case Status::Code::kFailedPrecondition:
    case Status::Code::kNotFound:
      ThrowIllegalState(env, message.c_str());
      break;
    default:
      Throw(env, g_classes.runtime_exception, message.c_str());
  }
}

bool RegisterNatives(JNIEnv* env, const char* class_name,
                     const JNINativeMethod* methods, int count) {
  jclass clazz = env->FindClass(class_name);
  if (clazz == nullptr) return false;
  jint rc = env->RegisterNatives(clazz, methods, count);
  env->DeleteLocalRef(clazz);
  return rc == JNI_OK;
}

}  // namespace falcon::jni
