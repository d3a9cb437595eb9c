// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/admission_policy.h"

#include <algorithm>

namespace falcon {
namespace cache_internal {

void TinyLfuAdmission::FoldHits(Entry* e, uint64_t hash) {
  const uint32_t epoch = sketch_.epoch();
  const uint32_t h = e->hits(epoch);
  if (h != 0) sketch_.Add(hash, h);
  e->set_hits(0, epoch);
}

void TinyLfuAdmission::EndWindowPass(Entry* e) {
  const uint32_t epoch = sketch_.epoch();
  const uint32_t h = e->hits(epoch);
  if (h == 0) return;
  sketch_.Add(e->Hash(), std::min(h, window_pass_hits_));
  e->set_hits(0, epoch);
}

// Both entries' pending hits go into the sketch first, so the comparison sees
// every access, as if each hit had incremented the sketch when it happened.
bool TinyLfuAdmission::Admit(Entry* candidate, Entry* victim) {
  const uint64_t candidate_hash = candidate->Hash();
  const uint64_t victim_hash = victim->Hash();
  FoldHits(candidate, candidate_hash);
  FoldHits(victim, victim_hash);
  const uint32_t candidate_count = sketch_.Frequency(candidate_hash);
  const uint32_t victim_count = sketch_.Frequency(victim_hash);
  if (victim_count == FrequencySketch::kMaxCount) sketch_.SaturatedVictim();
  return candidate_count > victim_count;
}

}  // namespace cache_internal
}  // namespace falcon
