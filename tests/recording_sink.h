// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Test-only helpers of the cache tests: a write-back sink that records what
// reaches it, and cache options in one call.

#ifndef FALCON_TESTS_RECORDING_SINK_H_
#define FALCON_TESTS_RECORDING_SINK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "falcon/hot_state_cache.h"

namespace falcon {
namespace testing_harness {

struct Written {
  uint32_t state;
  std::string key;
  std::string value;
  bool is_delete;
};

class RecordingSink : public WriteBackSink {
 public:
  Status Write(const DirtyEntry* entries, size_t count) override {
    batch_sizes.push_back(count);
    for (size_t i = 0; i < count; ++i) {
      out.push_back({entries[i].state_id, std::string(entries[i].key),
                     std::string(entries[i].value), entries[i].is_delete});
    }
    return fail ? Status::Internal("sink failed") : Status::OK();
  }
  std::vector<Written> out;
  std::vector<size_t> batch_sizes;
  bool fail = false;
};

inline CacheOptions Opts(CachePolicy p, uint64_t bytes, uint64_t entries = 0) {
  CacheOptions o;
  o.policy = p;
  o.max_bytes = bytes;
  o.max_entries = entries;
  return o;
}

}  // namespace testing_harness
}  // namespace falcon

#endif  // FALCON_TESTS_RECORDING_SINK_H_
