// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// The budget under concurrency (meant for TSan): task threads register, read
// their quota lock-free, run a cache that follows it, and leave, while other
// threads read the slots' subtask counts.

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "falcon/hot_state_cache.h"
#include "falcon/memory_budget.h"

namespace falcon {
namespace {

class NullSink : public WriteBackSink {
 public:
  Status Write(const DirtyEntry*, size_t count) override {
    written += count;
    return Status::OK();
  }
  uint64_t written = 0;
};

// What a lease records at registration (subtask count and its quota) is one
// moment even while other subtasks of the slot join and leave: with equal
// weights the recorded quota is exactly the slot divided by the recorded count.
TEST(MemoryBudgetThreads, JoinedFactsAreOneMoment) {
  constexpr uint64_t kBytes = 64u << 20;
  auto b = MemoryBudget::Create(kBytes, 0, 1);
  ASSERT_TRUE(b.ok());
  std::shared_ptr<MemoryBudget> budget = *b;
  std::atomic<uint64_t> violations{0};
  auto task = [&](int t) {
    for (int round = 0; round < 300; ++round) {
      auto l = budget->Register(0, 1.0, "task" + std::to_string(t));
      if (!l.ok()) {
        violations.fetch_add(1);
        return;
      }
      const BudgetLease& lease = **l;
      const uint64_t n = lease.joined_subtasks();
      if (n < 1 || n > 8 || lease.joined_quota_bytes() != kBytes / n)
        violations.fetch_add(1);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) threads.emplace_back(task, t);
  for (auto& th : threads) th.join();
  EXPECT_EQ(violations.load(), 0u);
  EXPECT_EQ(budget->subtasks_in_slot(0), 0u);
}

TEST(MemoryBudgetThreads, RegisterLeaveAndReadConcurrently) {
  constexpr uint32_t kSlots = 3;
  constexpr uint64_t kBytes = 3u << 20;
  auto b = MemoryBudget::Create(kBytes, 30000, kSlots);
  ASSERT_TRUE(b.ok());
  std::shared_ptr<MemoryBudget> budget = *b;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> violations{0};
  std::atomic<uint64_t> rounds{0};

  auto task = [&](int t) {
    NullSink sink;
    CacheOptions o;
    for (int round = 0; round < 40; ++round) {
      auto l = budget->Register(static_cast<uint32_t>((t + round) % kSlots),
                                1.0 + t % 3, "task" + std::to_string(t));
      if (!l.ok()) {
        violations.fetch_add(1);
        return;
      }
      std::unique_ptr<BudgetLease> lease = std::move(*l);
      HotStateCache cache(o, &sink, lease.get());
      std::string v(48, 'x');
      for (int i = 0; i < 300; ++i) {
        if (lease->quota_bytes() > budget->slot_bytes())
          violations.fetch_add(1);
        if (!cache.Put(0, std::to_string(i % 97), v).ok())
          violations.fetch_add(1);
        if (cache.Get(0, std::to_string(i % 89)).kind == Lookup::kBypass)
          violations.fetch_add(1);
        if (i % 50 == 0) {  // a demand-based rebalance among the churn
          lease->ReportUsage(cache.bytes(), static_cast<uint64_t>(i * t));
          budget->Rebalance(lease->slot());
        }
      }
      if (!cache.ShrinkToQuota().ok()) violations.fetch_add(1);
      if (cache.bytes() > cache.capacity_bytes()) violations.fetch_add(1);
      rounds.fetch_add(1);
    }
  };
  auto reader = [&] {
    while (!stop.load()) {
      // Eight tasks, each registered in one slot at a time.
      for (uint32_t s = 0; s < kSlots; ++s) {
        if (budget->subtasks_in_slot(s) > 8) violations.fetch_add(1);
      }
    }
  };
  std::vector<std::thread> threads;
  std::thread r1(reader), r2(reader);
  for (int t = 0; t < 8; ++t) threads.emplace_back(task, t);
  for (auto& th : threads) th.join();
  stop.store(true);
  r1.join();
  r2.join();
  EXPECT_EQ(violations.load(), 0u);
  EXPECT_EQ(rounds.load(), 8u * 40u);
  for (uint32_t s = 0; s < kSlots; ++s)
    EXPECT_EQ(budget->subtasks_in_slot(s), 0u);
}

}  // namespace
}  // namespace falcon
