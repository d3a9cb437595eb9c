// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/version.h"

#include <gtest/gtest.h>

#include <string>

namespace falcon {
namespace {

TEST(VersionTest, StringStartsWithTheVersionFileContents) {
  std::string v = VersionString();
  EXPECT_EQ(v.rfind(FALCON_VERSION_STRING " (", 0), 0u) << v;
  bool known_arch = v.find("x86_64") != std::string::npos ||
                    v.find("aarch64") != std::string::npos;
  EXPECT_TRUE(known_arch) << v;
}

TEST(VersionTest, NumbersMatchTheString) {
  std::string expected = std::to_string(FALCON_VERSION_MAJOR) + "." +
                         std::to_string(FALCON_VERSION_MINOR) + "." +
                         std::to_string(FALCON_VERSION_PATCH);
  EXPECT_EQ(expected, FALCON_VERSION_STRING);
}

}  // namespace
}  // namespace falcon
