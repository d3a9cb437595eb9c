// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/write_back.h"

#include <algorithm>
#include <string_view>

namespace falcon {
namespace cache_internal {

WriteBack::WriteBack(WriteBackSink* sink, uint32_t batch,
                     Accounting* accounting, EntryAllocator* blocks)
    : sink_(sink), batch_(batch), accounting_(accounting), blocks_(blocks) {
  victims_.reserve(64 + batch);
  chunk_.reserve(HotStateCache::kMaxBatch);
}

template <class Done>
Status WriteBack::WriteInChunks(Entry* const* entries, size_t n, Done&& done) {
  Status status;
  for (size_t i = 0; i < n;) {
    const size_t end = std::min(n, i + HotStateCache::kMaxBatch);
    bool written = false;
    if (status.ok()) {
      chunk_.clear();
      for (size_t j = i; j < end; ++j) {
        const Entry* e = entries[j];
        chunk_.push_back(DirtyEntry{
            e->state(), e->key_view(),
            e->absent() ? std::string_view()
                        : std::string_view(e->value(), e->value_len()),
            e->absent()});
      }
      status = sink_->Write(chunk_.data(), chunk_.size());
      written = status.ok();
    }
    for (size_t j = i; j < end; ++j) done(j, entries[j], written);
    i = end;
  }
  chunk_.clear();
  return status;
}

// The dirty entries among the next eviction candidates: the window head
// (W-TinyLFU's next admission candidates, LRU's next victims) and the
// probation head (the next main victims). A bounded walk, so an eviction
// round costs at most 2 x write_back_batch entry visits.
void WriteBack::CollectWriteAhead(const EntryQueues& queues) {
  if (batch_ <= 1 || victims_.size() >= batch_) return;
  size_t want = batch_ - victims_.size();
  for (uint8_t q : {kWindow, kProbation}) {
    size_t visits = batch_;
    for (Entry* e = queues.head(q); e != nullptr && visits > 0 && want > 0;
         e = e->next) {
      --visits;
      if (e->dirty()) {
        victims_.push_back(e);
        --want;
      }
    }
  }
}

Status WriteBack::EmitEvicted(const EntryQueues& queues) {
  if (victims_.empty()) return Status::OK();
  const size_t evicted = victims_.size();
  CollectWriteAhead(queues);
  Status status = WriteInChunks(
      victims_.data(), victims_.size(), [&](size_t j, Entry* e, bool written) {
        if (written) accounting_->WrittenBack(e);
        if (j < evicted) {
          blocks_->Free(e);  // detached: freed whatever the sink said
        } else if (written) {
          accounting_->SetDirty(e, false);
        }
      });
  victims_.clear();
  return status;
}

Status WriteBack::WriteSorted(std::vector<Entry*>* entries) {
  std::sort(entries->begin(), entries->end(),
            [](const Entry* a, const Entry* b) {
              if (a->state() != b->state()) return a->state() < b->state();
              return a->key_view() < b->key_view();  // bytewise (memcmp order)
            });
  return WriteInChunks(entries->data(), entries->size(),
                       [&](size_t, Entry* e, bool written) {
                         if (!written) return;
                         accounting_->WrittenBack(e);
                         accounting_->SetDirty(e, false);
                       });
}

}  // namespace cache_internal
}  // namespace falcon
