// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Status: the outcome of an operation that can fail, in the style of leveldb's
// Status. Falcon's core never throws; every fallible call returns a Status or a
// Result<T> (result.h), both [[nodiscard]].
//
// Thread-safety: a Status is an immutable value; distinct objects may be used
// from distinct threads freely, and a const Status from several threads.
// Ownership: the message is owned by the Status (copied on copy). An OK status
// allocates nothing, so success paths stay allocation-free.

#ifndef FALCON_STATUS_H_
#define FALCON_STATUS_H_

#include <memory>
#include <string>
#include <string_view>

namespace falcon {

class [[nodiscard]] Status {
 public:
  // Codes are stable: the JNI layer maps them to Java exception types and
  // Java code may compare them, so never renumber.
  enum class Code : int {
    kOk = 0,
    kInvalidArgument = 1,
    kNotFound = 2,
    kResourceExhausted = 3,
    kFailedPrecondition = 4,
    kInternal = 5,
  };

  // OK.
  Status() noexcept = default;
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;
  ~Status() = default;

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status NotFound(std::string_view msg) {
    return Status(Code::kNotFound, msg);
  }
  static Status ResourceExhausted(std::string_view msg) {
    return Status(Code::kResourceExhausted, msg);
  }
  static Status FailedPrecondition(std::string_view msg) {
    return Status(Code::kFailedPrecondition, msg);
  }
  static Status Internal(std::string_view msg) {
    return Status(Code::kInternal, msg);
  }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return state_ == nullptr ? Code::kOk : state_->code; }
  // Empty for OK.
  std::string_view message() const {
    return state_ == nullptr ? std::string_view() : state_->message;
  }
  // "OK" or "<CodeName>: <message>".
  std::string ToString() const;

  static const char* CodeName(Code code);

 private:
  struct State {
    Code code;
    std::string message;
  };
  Status(Code code, std::string_view msg);

  std::unique_ptr<State> state_;  // null means OK
};

}  // namespace falcon

#endif  // FALCON_STATUS_H_
