// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/memory_budget.h"

#include <algorithm>
#include <cmath>

#include "falcon/hot_state_cache.h"

namespace falcon {

BudgetLease::BudgetLease(std::shared_ptr<MemoryBudget> budget, uint32_t slot,
                         double weight, std::string name)
    : budget_(std::move(budget)),
      slot_(slot),
      weight_(weight),
      name_(std::move(name)) {}

BudgetLease::~BudgetLease() { budget_->Leave(this); }

MemoryBudget::MemoryBudget(uint64_t tm_bytes, uint64_t tm_entries,
                           uint32_t slots)
    : slots_(slots),
      slot_bytes_(tm_bytes / slots),
      slot_entries_(tm_entries / slots),
      leases_(slots) {}

Result<std::shared_ptr<MemoryBudget>> MemoryBudget::Create(
    uint64_t taskmanager_bytes, uint64_t taskmanager_entries, uint32_t slots) {
  if (slots == 0)
    return Status::InvalidArgument("a TaskManager has at least one slot");
  if (taskmanager_entries != 0 && taskmanager_entries < slots) {
    return Status::InvalidArgument("entry cap below one entry per slot");
  }
  return std::shared_ptr<MemoryBudget>(
      new MemoryBudget(taskmanager_bytes, taskmanager_entries, slots));
}

Result<std::unique_ptr<BudgetLease>> MemoryBudget::Register(uint32_t slot,
                                                            double weight,
                                                            std::string name) {
  if (slot >= slots_) return Status::InvalidArgument("slot index out of range");
  if (!(weight > 0.0) || !std::isfinite(weight)) {
    return Status::InvalidArgument("weight must be positive and finite");
  }
  std::unique_ptr<BudgetLease> lease(
      new BudgetLease(shared_from_this(), slot, weight, std::move(name)));
  std::lock_guard<std::mutex> lock(mu_);
  leases_[slot].push_back(lease.get());
  RecomputeLocked(slot);
  lease->joined_subtasks_ = static_cast<uint32_t>(leases_[slot].size());
  lease->joined_quota_bytes_ =
      lease->quota_bytes_.load(std::memory_order_relaxed);
  lease->joined_quota_entries_ =
      lease->quota_entries_.load(std::memory_order_relaxed);
  return lease;
}

void MemoryBudget::Leave(BudgetLease* lease) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& v = leases_[lease->slot_];
  v.erase(std::remove(v.begin(), v.end(), lease), v.end());
  RecomputeLocked(lease->slot_);
}

void MemoryBudget::RecomputeLocked(uint32_t slot) {
  const auto& v = leases_[slot];
  double total = 0;
  for (const BudgetLease* l : v) total += l->weight_;
  // Shares are floored so the sum never exceeds the slot quota.
  for (BudgetLease* l : v) {
    double share = total > 0 ? l->weight_ / total : 0.0;
    uint64_t b = static_cast<uint64_t>(std::floor(double(slot_bytes_) * share));
    uint64_t e = 0;
    if (slot_entries_ != 0) {
      e = std::max<uint64_t>(
          1, static_cast<uint64_t>(std::floor(double(slot_entries_) * share)));
    }
    b = std::min(b, slot_bytes_);
    e = std::min(e, slot_entries_);
    l->quota_entries_.store(e, std::memory_order_release);
    l->quota_bytes_.store(b, std::memory_order_release);
  }
}

uint32_t MemoryBudget::subtasks_in_slot(uint32_t slot) const {
  std::lock_guard<std::mutex> lock(mu_);
  return slot < slots_ ? static_cast<uint32_t>(leases_[slot].size()) : 0;
}

uint64_t MemoryBudget::EstimateEntries(uint64_t bytes, uint64_t entry_cap,
                                       uint64_t typical_entry_bytes) {
  uint64_t per =
      HotStateCache::ChargeFor(0, std::max<uint64_t>(1, typical_entry_bytes));
  uint64_t n = bytes / per;
  return entry_cap != 0 ? std::min(n, entry_cap) : n;
}

}  // namespace falcon
