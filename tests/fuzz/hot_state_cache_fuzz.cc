// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// libFuzzer target: random operation sequences against the reference model of
// tests/cache_harness.h (same checks as the differential test). The first
// input byte picks the configuration (policy, byte or entry bound);
// every following op is 4 bytes: opcode, state, key, value length / bound.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cache_harness.h"

namespace {

std::string KeyFor(uint8_t k) {
  if (k % 32 == 0) return std::string();
  std::string s(1 + k % 24, static_cast<char>('a' + k % 7));
  s[0] = static_cast<char>(k);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using falcon::CacheOptions;
  using falcon::CachePolicy;
  if (size < 1) return 0;
  const uint8_t config = data[0];
  CacheOptions o;
  o.policy = (config & 1) ? CachePolicy::kLru : CachePolicy::kWTinyLfu;
  o.max_bytes = 256u << ((config >> 1) & 7);  // 256 B .. 32 KiB
  o.max_entries = (config & 16) ? 1 + ((config >> 5) & 7) * 3 : 0;
  // Batched write-back off / minimal / default by the input's length (the
  // config byte has no bit left).
  o.write_back_batch = size % 3 == 0 ? 0 : size % 3 == 1 ? 2 : 32;
  falcon::testing_harness::Harness h(o);
  for (size_t i = 1; i + 4 <= size; i += 4) {
    const uint8_t op = data[i];
    const uint32_t state = data[i + 1] % 3;
    const std::string key = KeyFor(data[i + 2]);
    const uint8_t arg = data[i + 3];
    bool ok = true;
    switch (op % 13) {
      case 0:
      case 1:
      case 2:
        ok = h.Get(state, key);
        break;
      case 3:
      case 4:
      case 5: {
        size_t len = arg < 250 ? arg : size_t(arg) * 40;  // up to ~10 KiB
        ok = h.Put(state, key, std::string(len, static_cast<char>(op)));
        break;
      }
      case 6:
        ok = h.Remove(state, key);
        break;
      case 7:
        ok = h.Flush(state);
        break;
      case 8:
        ok = h.WriteBackDirty(uint64_t(arg) * 16);
        break;
      case 9:
        ok = (arg & 1) ? h.DropState(state) : h.FlushThenClear();
        break;
      case 10:
        ok = h.SetCapacity(uint64_t(arg) * 64,
                           o.max_entries == 0 ? 0 : 1 + arg % 8);
        break;
      case 11:
        ok = h.FlushAll();
        break;
      case 12: {
        size_t len = arg < 250 ? arg % 40 : size_t(arg) * 40;
        ok = h.Append(state, key, std::string(len, static_cast<char>(op)));
        break;
      }
    }
    if (!ok) {
      std::fprintf(stderr, "mismatch at op %zu: %s\n", (i - 1) / 4,
                   h.error().c_str());
      std::abort();
    }
  }
  if (!h.FlushAll()) {
    std::fprintf(stderr, "final flush: %s\n", h.error().c_str());
    std::abort();
  }
  return 0;
}
