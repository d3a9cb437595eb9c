// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// MemoryBudget: the TaskManager -> slot -> subtask budget of the hot-state
// caches (docs/cache.md, "Memory budget").
//
//   slot quota    = TaskManager budget / slots
//   subtask quota = slot quota * weight_i / sum(weights in the slot)
//
// both in bytes and in entries.
//
// The weight of a keyed subtask is its managed-memory fraction (any positive
// number; only ratios matter). Quotas are recomputed whenever a subtask
// registers or leaves its slot; every live BudgetLease of that slot then sees
// its new quota on its next read, and its cache shrinks to it by evicting
// (HotStateCache checks the quota on every put/fill and on ShrinkToQuota()).
// During the moment between a registration and the other caches' next write
// the slot may exceed its budget by what those caches held; it never grows
// beyond it through new inserts.
//
// An entry cap of 0 means "no entry cap" (bytes are always bounded).
//
// Lending (Rebalance): the weighted share is what a subtask is guaranteed,
// not what it is held to. Each cache reports what it holds and how many
// entries its quota made it evict (ReportUsage); a cache that keeps evicting
// asks for a rebalance (at most one per kRebalanceIntervalNanos per cache),
// which gives every subtask that did not evict since the last rebalance max(1.5
// x what it holds, an eighth of its share) and divides the rest among the
// others by weight (water-filling): a window join's subtask whose list states
// the cache does not hold, or a global aggregate of a few keys, lends its share
// to the subtask of the slot whose cache is too small. A lender that fills its
// reduced quota evicts, and its next request gives it at least its share back.
// The quotas of a slot never sum above its budget.
//
// Thread-safety: MemoryBudget is shared by all task threads of a TaskManager.
// Register(), lease destruction, subtasks_in_slot() and Rebalance() take an
// internal mutex (tasks starting and stopping; a rebalance at most once a
// second per evicting cache; never per record). BudgetLease::
// quota_bytes()/quota_entries() are one acquire atomic load each, lock-free,
// safe from any thread at any time.
// Ownership: a BudgetLease keeps its MemoryBudget alive (shared_ptr); the
// lease is owned by one cache (or whoever registered) and leaving the slot is
// destroying the lease.

#ifndef FALCON_MEMORY_BUDGET_H_
#define FALCON_MEMORY_BUDGET_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "falcon/result.h"
#include "falcon/status.h"

namespace falcon {

class MemoryBudget;

// One keyed subtask's share of its slot. Non-copyable, non-movable (the budget
// points at it); hold it by unique_ptr.
class BudgetLease {
 public:
  ~BudgetLease();  // leaves the slot; the slot's other quotas grow
  BudgetLease(const BudgetLease&) = delete;
  BudgetLease& operator=(const BudgetLease&) = delete;

  // Current quota; lock-free (one acquire load). Never above the slot quota.
  uint64_t quota_bytes() const {
    return quota_bytes_.load(std::memory_order_acquire);
  }
  // 0 = no entry cap.
  uint64_t quota_entries() const {
    return quota_entries_.load(std::memory_order_acquire);
  }
  // The owning cache's thread, lock-free (relaxed stores): the bytes its
  // cache holds and the running count of evictions its quota forced, read by
  // MemoryBudget::Rebalance.
  void ReportUsage(uint64_t held_bytes, uint64_t quota_evictions) const {
    held_bytes_.store(held_bytes, std::memory_order_relaxed);
    quota_evictions_.store(quota_evictions, std::memory_order_relaxed);
  }
  // The owning cache's thread: re-divides the slot (MemoryBudget::Rebalance).
  // Takes the budget's lock: call it rarely (kRebalanceIntervalNanos).
  void RequestRebalance() const;
  uint32_t slot() const { return slot_; }
  double weight() const { return weight_; }
  const std::string& name() const { return name_; }
  // The slot as this lease found it: subtasks in the slot (itself included)
  // and this lease's quota, recorded by Register under the budget's lock in
  // the same step as the registration, so they state one moment even while
  // other subtasks of the slot join or leave. Fixed for the lease's life.
  uint32_t joined_subtasks() const { return joined_subtasks_; }
  uint64_t joined_quota_bytes() const { return joined_quota_bytes_; }
  uint64_t joined_quota_entries() const { return joined_quota_entries_; }

 private:
  friend class MemoryBudget;
  BudgetLease(std::shared_ptr<MemoryBudget> budget, uint32_t slot,
              double weight, std::string name);

  std::shared_ptr<MemoryBudget> budget_;
  const uint32_t slot_;
  const double weight_;
  const std::string name_;
  std::atomic<uint64_t> quota_bytes_{0};
  std::atomic<uint64_t> quota_entries_{0};
  mutable std::atomic<uint64_t> held_bytes_{0};
  mutable std::atomic<uint64_t> quota_evictions_{0};
  // Guarded by the budget's lock: quota_evictions_ at the last rebalance.
  uint64_t evictions_at_rebalance_ = 0;
  // Written once by Register (under the budget's lock, before the lease is
  // returned); never written again.
  uint32_t joined_subtasks_ = 0;
  uint64_t joined_quota_bytes_ = 0;
  uint64_t joined_quota_entries_ = 0;
};

class MemoryBudget : public std::enable_shared_from_this<MemoryBudget> {
 public:
  // taskmanager_bytes: the cache budget of the whole TaskManager (> 0 unless
  // the cache is off). taskmanager_entries: optional entry cap, 0 = none.
  // slots: number of task slots (>= 1).
  [[nodiscard]] static Result<std::shared_ptr<MemoryBudget>> Create(
      uint64_t taskmanager_bytes, uint64_t taskmanager_entries, uint32_t slots);

  // Registers a keyed subtask in `slot` (< slots) with `weight` (> 0, finite).
  // Recomputes the slot's quotas. `name` names the subtask (diagnostics).
  [[nodiscard]] Result<std::unique_ptr<BudgetLease>> Register(uint32_t slot,
                                                              double weight,
                                                              std::string name);

  // Re-divides `slot` by demand (see "Lending" above). Takes the lock.
  void Rebalance(uint32_t slot);
  // How often one cache may ask for a rebalance while it keeps evicting.
  static constexpr int64_t kRebalanceIntervalNanos = 1'000'000'000;

  uint32_t slots() const { return slots_; }
  uint64_t slot_bytes() const { return slot_bytes_; }
  uint64_t slot_entries() const { return slot_entries_; }
  uint32_t subtasks_in_slot(uint32_t slot) const;

  // How many entries of `typical_entry_bytes` (key + value, > 0) a byte
  // quota holds: bytes / HotStateCache::ChargeFor(0, typical_entry_bytes)
  // (the 24-byte header, the allocator's rounding and the 24-byte overhead:
  // key + value + 48 for sizes that are multiples of 8), capped by
  // `entry_cap` when it is not 0. For the [FALCON] log lines.
  static uint64_t EstimateEntries(uint64_t bytes, uint64_t entry_cap,
                                  uint64_t typical_entry_bytes);

  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

 private:
  friend class BudgetLease;
  MemoryBudget(uint64_t tm_bytes, uint64_t tm_entries, uint32_t slots);
  void Leave(BudgetLease* lease);
  void RecomputeLocked(uint32_t slot);
  // Stores the quota `bytes` (and the entry cap in the same proportion).
  void SetQuotaLocked(BudgetLease* lease, uint64_t bytes);

  const uint32_t slots_;
  const uint64_t slot_bytes_;
  const uint64_t slot_entries_;
  mutable std::mutex mu_;
  std::vector<std::vector<BudgetLease*>> leases_;  // per slot, guarded by mu_
};

}  // namespace falcon

#endif  // FALCON_MEMORY_BUDGET_H_
