// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Differential harness for HotStateCache, shared by the differential test and
// the libFuzzer target. It plays the caller (the JNI layer): a std::map stands
// in for RocksDB, the sink writes into it, misses read it and fill. A second
// std::map is the reference model of what Flink state must return. At every
// step, what the cache returns (plus what it has written back into the fake
// RocksDB) must equal the model; Check() verifies the accounting invariants.
//
// Thread-safety: none. Failures are reported through Fail() (returns false
// from the step), so the fuzzer can abort and the gtest can print.

#ifndef FALCON_TESTS_CACHE_HARNESS_H_
#define FALCON_TESTS_CACHE_HARNESS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "cache_capacity.h"
#include "falcon/hot_state_cache.h"

namespace falcon {
namespace testing_harness {

using DbKey = std::pair<uint32_t, std::string>;

class FakeDbSink : public WriteBackSink {
 public:
  Status Write(const DirtyEntry* entries, size_t count) override {
    if (count == 0 || count > HotStateCache::kMaxBatch) {
      return Status::Internal("bad batch size");
    }
    for (size_t i = 0; i < count; ++i) {
      const DirtyEntry& e = entries[i];
      DbKey k(e.state_id, std::string(e.key));
      if (e.is_delete) {
        db.erase(k);
      } else {
        db[k] = std::string(e.value);
      }
    }
    batches += 1;
    written += count;
    return Status::OK();
  }
  std::map<DbKey, std::string> db;
  uint64_t batches = 0;
  uint64_t written = 0;
};

class Harness {
 public:
  explicit Harness(const CacheOptions& options)
      : cache_(new cache_internal::CacheCore(options, &sink_)) {}

  // The cache behind HotStateCache (SetCapacity needs it).
  cache_internal::CacheCore& cache() { return *cache_; }
  FakeDbSink& sink() { return sink_; }
  const std::string& error() const { return error_; }

  bool Get(uint32_t state, const std::string& key) {
    GetResult r = cache_->Get(state, key);
    std::optional<std::string> got;
    switch (r.kind) {
      case Lookup::kHit:
        got = std::string(r.value());
        break;
      case Lookup::kAbsent:
        break;
      case Lookup::kMiss: {
        got = DbRead(state, key);
        auto f = got ? cache_->Fill(state, key, *got)
                     : cache_->FillAbsent(state, key);
        if (!f.ok()) return Fail("fill failed: " + f.status().ToString());
        break;
      }
      case Lookup::kBypass:
        got = DbRead(state, key);
        break;
    }
    auto it = model_.find(DbKey(state, key));
    std::optional<std::string> want;
    if (it != model_.end()) want = it->second;
    if (got != want) {
      return Fail(
          "get(" + std::to_string(state) + ", len " +
          std::to_string(key.size()) + ") kind " + std::to_string(int(r.kind)) +
          " got " +
          (got ? "value len " + std::to_string(got->size()) : "absent") +
          " want " +
          (want ? "value len " + std::to_string(want->size()) : "absent"));
    }
    return Check();
  }

  bool Put(uint32_t state, const std::string& key, const std::string& value) {
    auto r = cache_->Put(state, key, value);
    if (!r.ok()) return Fail("put failed: " + r.status().ToString());
    if (*r == WriteOutcome::kNotCached) sink_.db[DbKey(state, key)] = value;
    model_[DbKey(state, key)] = value;
    return Check();
  }

  // A ListState's add: a cached list grows by `,` and the element; a list the
  // cache does not hold (or that left it, through the sink) gets the
  // caller's RocksDB merge.
  bool Append(uint32_t state, const std::string& key,
              const std::string& element) {
    auto r =
        cache_->Append(state, key, element, ',', HotStateCache::kMaxValueBytes);
    if (!r.ok()) return Fail("append failed: " + r.status().ToString());
    if (*r == WriteOutcome::kNotCached) Merge(&sink_.db, state, key, element);
    Merge(&model_, state, key, element);
    return Check();
  }

  bool Remove(uint32_t state, const std::string& key) {
    auto r = cache_->Remove(state, key);
    if (!r.ok()) return Fail("remove failed: " + r.status().ToString());
    if (*r == WriteOutcome::kNotCached) sink_.db.erase(DbKey(state, key));
    model_.erase(DbKey(state, key));
    return Check();
  }

  bool Flush(uint32_t state) {
    Status s = cache_->Flush(state);
    if (!s.ok()) return Fail("flush failed: " + s.ToString());
    if (cache_->Stats(state).dirty_entries != 0)
      return Fail("dirty entries after flush");
    // The fake RocksDB now holds exactly the model for this state.
    auto lo = DbKey(state, std::string());
    auto m = model_.lower_bound(lo);
    auto d = sink_.db.lower_bound(lo);
    while (true) {
      bool m_end = m == model_.end() || m->first.first != state;
      bool d_end = d == sink_.db.end() || d->first.first != state;
      if (m_end || d_end) {
        if (m_end != d_end)
          return Fail("db differs from model after flush (size)");
        break;
      }
      if (m->first != d->first || m->second != d->second) {
        return Fail("db differs from model after flush");
      }
      ++m;
      ++d;
    }
    return Check();
  }

  bool FlushAll() {
    Status s = cache_->FlushAll();
    if (!s.ok()) return Fail("flush all failed: " + s.ToString());
    if (cache_->dirty_bytes() != 0) return Fail("dirty bytes after flush all");
    if (sink_.db != model_)
      return Fail("db differs from model after flush all");
    return Check();
  }

  bool WriteBackDirty(uint64_t bound) {
    Status s = cache_->WriteBackDirty(bound);
    if (!s.ok()) return Fail("write back failed: " + s.ToString());
    if (cache_->dirty_bytes() > bound) return Fail("dirty bytes above bound");
    return Check();
  }

  // The state is dropped everywhere (Flink dropped it / cleared the column
  // family): the cache forgets it without write-back.
  bool DropState(uint32_t state) {
    cache_->DropState(state);
    EraseState(&model_, state);
    EraseState(&sink_.db, state);
    if (cache_->Stats(state).entries != 0) return Fail("entries after drop");
    return Check();
  }

  bool FlushThenClear() {
    if (!FlushAll()) return false;
    cache_->Clear();
    if (cache_->entries() != 0 || cache_->bytes() != 0)
      return Fail("not empty after clear");
    return Check();
  }

  bool SetCapacity(uint64_t bytes, uint64_t entries) {
    Status s = testing_harness::SetCapacity(*cache_, bytes, entries);
    if (!s.ok()) return Fail("set capacity failed: " + s.ToString());
    return Check();
  }

  static void Merge(std::map<DbKey, std::string>* m, uint32_t state,
                    const std::string& key, const std::string& element) {
    auto it = m->find(DbKey(state, key));
    if (it == m->end()) {
      (*m)[DbKey(state, key)] = element;
    } else {
      it->second += "," + element;
    }
  }

  bool Check() {
    const cache_internal::CacheCore& c = *cache_;
    if (c.bytes() > c.capacity_bytes()) return Fail("bytes above capacity");
    if (c.capacity_entries() != 0 && c.entries() > c.capacity_entries()) {
      return Fail("entries above capacity");
    }
    if (c.dirty_bytes() > c.bytes()) return Fail("dirty bytes above bytes");
    CacheStats t = c.TotalStats();
    if (t.entries != c.entries() || t.bytes != c.bytes() ||
        t.dirty_bytes != c.dirty_bytes()) {
      return Fail("per-state statistics do not add up");
    }
    if (c.entries() == 0 && c.bytes() != 0)
      return Fail("bytes without entries");
    return true;
  }

  size_t model_size() const { return model_.size(); }

 private:
  template <class M>
  static void EraseState(M* m, uint32_t state) {
    auto lo = m->lower_bound(DbKey(state, std::string()));
    auto hi = m->lower_bound(DbKey(state + 1, std::string()));
    m->erase(lo, hi);
  }
  std::optional<std::string> DbRead(uint32_t state, const std::string& key) {
    auto it = sink_.db.find(DbKey(state, key));
    if (it == sink_.db.end()) return std::nullopt;
    return it->second;
  }
  bool Fail(const std::string& msg) {
    if (error_.empty()) error_ = msg;
    return false;
  }

  FakeDbSink sink_;
  std::unique_ptr<cache_internal::CacheCore> cache_;
  std::map<DbKey, std::string> model_;
  std::string error_;
};

// Deterministic xorshift generator (no <random> distribution differences
// across standard libraries).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9e3779b97f4a7c15ull + 1) {}
  uint64_t Next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  uint64_t s_;
};

}  // namespace testing_harness
}  // namespace falcon

#endif  // FALCON_TESTS_CACHE_HARNESS_H_
