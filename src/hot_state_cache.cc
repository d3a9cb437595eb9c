// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// HotStateCache forwards to cache_internal::CacheCore (src/cache/cache_core.h),
// whose Get is inlined here.

#include "falcon/hot_state_cache.h"

#include "cache/cache_core.h"
#include "cache/entry_allocator.h"

namespace falcon {

using cache_internal::CacheCore;

static_assert(HotStateCache::kEntryHeaderBytes == sizeof(cache_internal::Entry),
              "the header is part of the documented per-entry overhead");
static_assert(HotStateCache::kEntryOverheadBytes ==
                  cache_internal::kOverheadBytes,
              "one per-entry overhead");
static_assert(HotStateCache::kMaxValueBytes == cache_internal::kValueLenMask,
              "the header's value length field");

HotStateCache::HotStateCache(const CacheOptions& options, WriteBackSink* sink,
                             const BudgetLease* lease)
    : core_(new CacheCore(options, sink, lease)) {}

HotStateCache::~HotStateCache() = default;

GetResult HotStateCache::Get(uint32_t state_id, std::string_view key) {
  return core_->Get(state_id, key);
}

Result<WriteOutcome> HotStateCache::Put(uint32_t state_id, std::string_view key,
                                        std::string_view value) {
  return core_->Put(state_id, key, value);
}

Result<WriteOutcome> HotStateCache::Remove(uint32_t state_id,
                                           std::string_view key) {
  return core_->Remove(state_id, key);
}

Result<WriteOutcome> HotStateCache::RemoveNotInDb(uint32_t state_id,
                                                  std::string_view key) {
  return core_->RemoveNotInDb(state_id, key);
}

Result<WriteOutcome> HotStateCache::Fill(uint32_t state_id,
                                         std::string_view key,
                                         std::string_view value) {
  return core_->Fill(state_id, key, value);
}

Result<WriteOutcome> HotStateCache::FillAbsent(uint32_t state_id,
                                               std::string_view key) {
  return core_->FillAbsent(state_id, key);
}

Result<WriteOutcome> HotStateCache::Append(uint32_t state_id,
                                           std::string_view key,
                                           std::string_view element,
                                           char delimiter,
                                           size_t max_value_bytes) {
  return core_->Append(state_id, key, element, delimiter, max_value_bytes);
}

Status HotStateCache::Flush(uint32_t state_id) {
  return core_->Flush(state_id);
}
Status HotStateCache::FlushAll() { return core_->FlushAll(); }
Status HotStateCache::WriteBackDirty(uint64_t max_dirty_bytes) {
  return core_->WriteBackDirty(max_dirty_bytes);
}
Status HotStateCache::WriteBackSome(size_t max_entries) {
  return core_->WriteBackSome(max_entries);
}
void HotStateCache::DropState(uint32_t state_id) { core_->DropState(state_id); }
void HotStateCache::Clear() { core_->Clear(); }
Status HotStateCache::ShrinkToQuota() { return core_->ShrinkToQuota(); }

CacheStats HotStateCache::Stats(uint32_t state_id) const {
  return core_->Stats(state_id);
}
CacheStats HotStateCache::TotalStats() const { return core_->TotalStats(); }

uint64_t HotStateCache::bytes() const { return core_->bytes(); }
uint64_t HotStateCache::entries() const { return core_->entries(); }
uint64_t HotStateCache::dirty_bytes() const { return core_->dirty_bytes(); }
uint64_t HotStateCache::capacity_bytes() const {
  return core_->capacity_bytes();
}
uint64_t HotStateCache::capacity_entries() const {
  return core_->capacity_entries();
}
CachePolicy HotStateCache::policy() const { return core_->policy(); }
double HotStateCache::window_fraction() const {
  return core_->window_fraction();
}
uint64_t HotStateCache::AllocatedBytes() const {
  return core_->AllocatedBytes();
}

uint64_t HotStateCache::ChargeFor(size_t key_size, size_t value_size) {
  return cache_internal::EntryAllocator::ArenaChargeOf(kEntryHeaderBytes +
                                                       key_size + value_size);
}

}  // namespace falcon
