// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/status.h"

#include <gtest/gtest.h>

#include <string>

#include "falcon/result.h"

namespace falcon {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorsCarryCodeAndMessage) {
  Status s = Status::InvalidArgument("bad key length 3");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "bad key length 3");
  EXPECT_EQ(s.ToString(), "InvalidArgument: bad key length 3");
  EXPECT_EQ(Status::ResourceExhausted("x").ToString(), "ResourceExhausted: x");
  EXPECT_EQ(Status::NotFound("x").code(), Status::Code::kNotFound);
  EXPECT_EQ(Status::FailedPrecondition("x").code(),
            Status::Code::kFailedPrecondition);
  EXPECT_EQ(Status::Internal("x").code(), Status::Code::kInternal);
}

TEST(StatusTest, CopyAndMoveKeepTheError) {
  Status a = Status::Internal("boom");
  Status b = a;
  EXPECT_EQ(b.ToString(), "Internal: boom");
  EXPECT_EQ(a.ToString(), "Internal: boom");
  Status c = std::move(b);
  EXPECT_EQ(c.ToString(), "Internal: boom");
  a = Status::OK();
  EXPECT_TRUE(a.ok());
  a = c;
  EXPECT_EQ(a.code(), Status::Code::kInternal);
  a = a;  // self-assignment keeps the state
  EXPECT_EQ(a.message(), "boom");
}

TEST(ResultTest, HoldsValueOrError) {
  Result<std::string> good = std::string("value");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, "value");
  EXPECT_EQ(good->size(), 5u);

  Result<std::string> bad = Status::NotFound("no such state");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().ToString(), "NotFound: no such state");
}

}  // namespace
}  // namespace falcon
