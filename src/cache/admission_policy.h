// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// W-TinyLFU admission (Einziger, Friedman, Manes, "TinyLFU: A Highly
// Efficient Cache Admission Policy", ACM ToS 2017): an entry leaving the
// window is admitted into the main area only if the frequency sketch counts
// its key more often than the main area's victim (a tie rejects it).
//
// Where accesses are counted:
//  * a miss, and a write of a key not cached: one sketch increment;
//  * a hit, and a write of a cached key: one more in the entry's 4-bit
//    pending-hit count (in the header the lookup has just loaded), plus one
//    sample towards the sketch's aging schedule. A hit therefore touches no
//    sketch line. The pending hits go into the sketch (one conservative add
//    of k, exactly what k single increments do) when admission compares the
//    entry and when it is evicted, so every estimate sees every access;
//  * in the window, a pass (from insertion or a second chance to the
//    window's head) counts at most PolicyTuning::window_pass_hits (1) of its
//    hits: a burst of hits on a new key is recency, which the window rewards
//    already. Hits in the main area count in full.
//
// Thread-safety: none (owned by one cache).

#ifndef FALCON_SRC_CACHE_ADMISSION_POLICY_H_
#define FALCON_SRC_CACHE_ADMISSION_POLICY_H_

#include <cstdint>

#include "cache/entry.h"
#include "cache/frequency_sketch.h"
#include "cache/policy_tuning.h"

namespace falcon {
namespace cache_internal {

class TinyLfuAdmission {
 public:
  explicit TinyLfuAdmission(const PolicyTuning& tuning)
      : sketch_(tuning), window_pass_hits_(tuning.window_pass_hits) {}

  // Sizes the sketch for `entries` keys (clears it).
  void Resize(uint64_t entries) { sketch_.Resize(entries); }
  uint64_t sized_for() const { return sketch_.sized_for(); }
  uint64_t bytes() const { return sketch_.bytes(); }
  // Halvings so far; new entries record it with their (zero) pending hits.
  uint32_t epoch() const { return sketch_.epoch(); }
  uint32_t Frequency(uint64_t hash) const { return sketch_.Frequency(hash); }
  const FrequencySketch& sketch() const { return sketch_; }

  // A miss, or a write of a key not cached.
  void RecordMiss(uint64_t hash) { sketch_.Increment(hash); }
  // A hit, or a write of a cached entry: counted in the entry.
  void RecordHit(Entry* e) {
    const uint32_t epoch = sketch_.epoch();
    uint32_t h = e->hits(epoch);
    h += h < 15 ? 1 : 0;
    e->set_hits(h, epoch);
    sketch_.CountAccess();
  }
  // A window entry's second chance ends its pass: at most window_pass_hits
  // of its pending hits go into the sketch, the rest are dropped.
  void EndWindowPass(Entry* e);
  // An entry leaves the cache: its pending hits go into the sketch (the
  // key's history outlives the entry).
  void RecordEviction(Entry* e) {
    if (e->hits(sketch_.epoch()) != 0) FoldHits(e, e->Hash());
  }
  // True if `candidate` should replace `victim` in the main area.
  bool Admit(Entry* candidate, Entry* victim);

 private:
  void FoldHits(Entry* e, uint64_t hash);

  FrequencySketch sketch_;
  const uint32_t window_pass_hits_;
};

}  // namespace cache_internal
}  // namespace falcon

#endif  // FALCON_SRC_CACHE_ADMISSION_POLICY_H_
