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

void BudgetLease::RequestRebalance() const { budget_->Rebalance(slot_); }

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
    SetQuotaLocked(
        l, static_cast<uint64_t>(std::floor(double(slot_bytes_) * share)));
  }
}

void MemoryBudget::SetQuotaLocked(BudgetLease* lease, uint64_t bytes) {
  const uint64_t b = std::min(bytes, slot_bytes_);
  uint64_t e = 0;
  if (slot_entries_ != 0 && slot_bytes_ != 0) {
    e = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::floor(
               double(slot_entries_) * (double(b) / double(slot_bytes_)))));
    e = std::min(e, slot_entries_);
  }
  lease->quota_entries_.store(e, std::memory_order_release);
  lease->quota_bytes_.store(b, std::memory_order_release);
}

void MemoryBudget::Rebalance(uint32_t slot) {
  if (slot >= slots_) return;
  std::lock_guard<std::mutex> lock(mu_);
  const auto& v = leases_[slot];
  if (v.size() < 2) return;
  double total_weight = 0;
  for (const BudgetLease* l : v) total_weight += l->weight_;
  // Demands: a cache that evicted since the last rebalance wants all it can
  // get (negative); any other keeps room to grow by half of what it holds,
  // and never less than an eighth of its share.
  std::vector<double> demand(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    BudgetLease* l = v[i];
    const uint64_t evictions =
        l->quota_evictions_.load(std::memory_order_relaxed);
    const bool evicting = evictions != l->evictions_at_rebalance_;
    l->evictions_at_rebalance_ = evictions;
    const double share = double(slot_bytes_) * l->weight_ / total_weight;
    const double held = double(l->held_bytes_.load(std::memory_order_relaxed));
    demand[i] = evicting ? -1.0 : std::max(held * 1.5, share / 8);
  }
  // Water-filling by weight: demands below the level are met, the others
  // get the level times their weight.
  std::vector<double> quota(v.size(), -1.0);
  double remaining = double(slot_bytes_);
  double open_weight = total_weight;
  size_t open = v.size();
  for (bool settled = true; settled && open > 0;) {
    settled = false;
    const double level = remaining / open_weight;
    for (size_t i = 0; i < v.size(); ++i) {
      if (quota[i] >= 0 || demand[i] < 0) continue;
      if (demand[i] <= level * v[i]->weight_) {
        quota[i] = demand[i];
        remaining -= demand[i];
        open_weight -= v[i]->weight_;
        open -= 1;
        settled = true;
      }
    }
  }
  // The unmet demands share the level; if every demand was met, what is left
  // goes to all by weight. Floors and a running total keep the sum within
  // the slot.
  uint64_t assigned = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    double q = quota[i];
    if (q < 0) {
      q = remaining * v[i]->weight_ / open_weight;
    } else if (open == 0) {
      q += remaining * v[i]->weight_ / total_weight;
    }
    const uint64_t b =
        std::min(static_cast<uint64_t>(std::floor(q)), slot_bytes_ - assigned);
    assigned += b;
    SetQuotaLocked(v[i], b);
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
