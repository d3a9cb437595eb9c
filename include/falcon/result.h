// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Result<T>: either a value of T or a non-OK Status (like absl::StatusOr).
//
// Thread-safety: a value type; same rules as Status.
// Preconditions: value() and operator* require ok(); calling them on an error
// is a programming error and aborts in debug builds.

#ifndef FALCON_RESULT_H_
#define FALCON_RESULT_H_

#include <cassert>
#include <optional>
#include <utility>

#include "falcon/status.h"

namespace falcon {

template <class T>
class [[nodiscard]] Result {
 public:
  // Implicit on purpose: `return value;` and `return Status::...;` both work.
  Result(T value) : value_(std::move(value)) {}         // NOLINT
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok() && "Result built from an OK status has no value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace falcon

#endif  // FALCON_RESULT_H_
