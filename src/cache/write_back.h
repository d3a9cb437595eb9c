// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Everything that hands dirty entries to the WriteBackSink:
//  * eviction: the dirty victims of one call (detached, freed here whether or
//    not the sink succeeds), plus -- batched write-back -- up to
//    CacheOptions::write_back_batch more dirty entries from where the next
//    victims will come from (the window and probation heads, at most that
//    many entries visited in each). Those stay cached and become clean, so
//    their own evictions later write nothing and one RocksDB write serves
//    about write_back_batch evictions. If the sink fails they stay dirty;
//  * flushes: a given set of dirty entries, sorted by (state, key bytes).
// Either way the sink gets chunks of at most CacheLimits::kMaxBatch, and
// after a failed chunk no later chunk is written.
//
// Thread-safety: none (owned by one cache).

#ifndef FALCON_SRC_CACHE_WRITE_BACK_H_
#define FALCON_SRC_CACHE_WRITE_BACK_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cache/accounting.h"
#include "cache/entry.h"
#include "cache/entry_allocator.h"
#include "cache/entry_queues.h"
#include "cache/map_body.h"
#include "falcon/cache_types.h"
#include "falcon/status.h"

namespace falcon {
namespace cache_internal {

class WriteBack {
 public:
  // `sink` must outlive this; `accounting` and `blocks` are the cache's.
  WriteBack(WriteBackSink* sink, uint32_t batch, Accounting* accounting,
            EntryAllocator* blocks);

  // An evicted dirty entry (already detached); written back, then freed, by
  // the next EmitEvicted.
  void AddEvicted(Entry* e) { victims_.push_back(e); }
  // Writes back the evicted entries and the next eviction candidates that
  // are dirty (batched write-back). No-op without evicted entries.
  [[nodiscard]] Status EmitEvicted(const EntryQueues& queues);
  // Writes back `entries` (dirty, cached), sorted by state then key bytes;
  // they become clean.
  [[nodiscard]] Status WriteSorted(std::vector<Entry*>* entries);
  // After entry e was written back: a map's records (a whole or a partial
  // body) become clean too.
  void Cleaned(Entry* e);
  // Hands the dirty records of one map (map_body.h) to the sink, in key
  // order: key = prefix + user key; a tombstone is a delete.
  [[nodiscard]] Status WriteMap(uint32_t state, std::string_view prefix,
                                const MapBodyView& body);

 private:
  void CollectWriteAhead(const EntryQueues& queues);
  // Hands entries[0, n) to the sink in chunks; after each chunk calls
  // done(index, entry, written) for each of its entries.
  template <class Done>
  Status WriteInChunks(Entry* const* entries, size_t n, Done&& done);

  WriteBackSink* const sink_;
  const uint32_t batch_;
  Accounting* const accounting_;
  EntryAllocator* const blocks_;
  std::vector<Entry*> victims_;  // evicted first, then written ahead

  std::vector<DirtyEntry> chunk_;  // reused scratch
  std::vector<char> map_keys_;     // prefix + user key of a map's records
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_WRITE_BACK_H_
