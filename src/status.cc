// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/status.h"

namespace falcon {

Status::Status(Code code, std::string_view msg)
    : state_(code == Code::kOk ? nullptr : new State{code, std::string(msg)}) {}

Status::Status(const Status& other)
    : state_(other.state_ == nullptr ? nullptr : new State(*other.state_)) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    state_.reset(other.state_ == nullptr ? nullptr : new State(*other.state_));
  }
  return *this;
}

const char* Status::CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kInvalidArgument:
      return "InvalidArgument";
    case Code::kNotFound:
      return "NotFound";
    case Code::kResourceExhausted:
      return "ResourceExhausted";
    case Code::kFailedPrecondition:
      return "FailedPrecondition";
    case Code::kInternal:
      return "Internal";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = CodeName(state_->code);
  out += ": ";
  out += state_->message;
  return out;
}

}  // namespace falcon
