// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/write_back.h"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace falcon {
namespace cache_internal {

WriteBack::WriteBack(WriteBackSink* sink, uint32_t batch,
                     Accounting* accounting, EntryAllocator* blocks)
    : sink_(sink), batch_(batch), accounting_(accounting), blocks_(blocks) {
  victims_.reserve(64 + batch);
  chunk_.reserve(CacheLimits::kMaxBatch);
}

// Value entries go to the sink in chunks of kMaxBatch; a map's records go in
// chunks of their own (WriteMap), between them.
template <class Done>
Status WriteBack::WriteInChunks(Entry* const* entries, size_t n, Done&& done) {
  Status status;
  size_t chunk_start = 0;  // entries[chunk_start, i) are in chunk_
  auto write_chunk = [&](size_t end) {
    bool written = false;
    if (status.ok() && !chunk_.empty()) {
      status = sink_->Write(chunk_.data(), chunk_.size());
      written = status.ok();
    }
    for (size_t j = chunk_start; j < end; ++j) done(j, entries[j], written);
    chunk_.clear();
    chunk_start = end;
  };
  for (size_t i = 0; i < n; ++i) {
    Entry* e = entries[i];
    if (accounting_->IsMap(e)) {
      write_chunk(i);
      bool written = false;
      if (status.ok()) {
        status = WriteMap(e->state(), e->key_view(),
                          MapBodyView(e->value(), e->value_len()));
        written = status.ok();
      }
      done(i, e, written);
      chunk_start = i + 1;
      continue;
    }
    if (status.ok()) {
      chunk_.push_back(
          DirtyEntry{e->state(), e->key_view(),
                     e->absent() ? std::string_view()
                                 : std::string_view(e->value(), e->value_len()),
                     e->absent()});
    }
    if (chunk_.size() == CacheLimits::kMaxBatch) write_chunk(i + 1);
  }
  write_chunk(n);
  return status;
}

Status WriteBack::WriteMap(uint32_t state, std::string_view prefix,
                           const MapBodyView& body) {
  // Every dirty record's full key, laid out first: the chunk's views point
  // into this buffer, which must not move while the chunk is built.
  size_t key_bytes = 0;
  for (uint32_t i = 0; i < body.count(); ++i) {
    const MapRecord r = body.At(i);
    if (r.dirty()) key_bytes += prefix.size() + r.key.size();
  }
  if (key_bytes == 0) return Status::OK();
  map_keys_.resize(key_bytes);
  char* out = map_keys_.data();
  chunk_.clear();
  for (uint32_t i = 0; i < body.count(); ++i) {
    const MapRecord r = body.At(i);
    if (!r.dirty()) continue;
    std::memcpy(out, prefix.data(), prefix.size());
    if (!r.key.empty()) {
      std::memcpy(out + prefix.size(), r.key.data(), r.key.size());
    }
    const std::string_view key(out, prefix.size() + r.key.size());
    out += key.size();
    chunk_.push_back(
        DirtyEntry{state, key, r.live() ? r.value : std::string_view(),
                   !r.live(), static_cast<uint32_t>(prefix.size())});
    if (chunk_.size() == CacheLimits::kMaxBatch) {
      Status st = sink_->Write(chunk_.data(), chunk_.size());
      chunk_.clear();
      if (!st.ok()) return st;
    }
  }
  Status st;
  if (!chunk_.empty()) st = sink_->Write(chunk_.data(), chunk_.size());
  chunk_.clear();
  return st;
}

void WriteBack::Cleaned(Entry* e) {
  if (accounting_->IsMap(e) && e->value_len() != 0) {
    MarkWrittenBack(e->value(), e->value_len());
  }
  accounting_->SetDirty(e, false);
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
          Cleaned(e);
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
                         Cleaned(e);
                       });
}

}  // namespace cache_internal
}  // namespace falcon
