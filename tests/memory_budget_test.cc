// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "falcon/memory_budget.h"

#include <gtest/gtest.h>

#include <string>

#include "falcon/hot_state_cache.h"

namespace falcon {
namespace {

class CountingSink : public WriteBackSink {
 public:
  Status Write(const DirtyEntry* entries, size_t count) override {
    written += count;
    return Status::OK();
  }
  uint64_t written = 0;
};

TEST(MemoryBudget, RejectsBadArguments) {
  EXPECT_FALSE(MemoryBudget::Create(1 << 20, 0, 0).ok());
  EXPECT_FALSE(MemoryBudget::Create(1 << 20, 1, 2).ok());
  auto b = MemoryBudget::Create(1 << 20, 0, 2);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE((*b)->Register(2, 1.0, "x").ok());
  EXPECT_FALSE((*b)->Register(0, 0.0, "x").ok());
  EXPECT_FALSE((*b)->Register(0, -1.0, "x").ok());
  EXPECT_FALSE((*b)->Register(0, 1.0 / 0.0, "x").ok());
}

TEST(MemoryBudget, DividesSlotsThenSubtasksByWeight) {
  auto b = MemoryBudget::Create(400 << 20, 4000, 4);
  ASSERT_TRUE(b.ok());
  std::shared_ptr<MemoryBudget> budget = *b;
  EXPECT_EQ(budget->slot_bytes(), 100u << 20);
  EXPECT_EQ(budget->slot_entries(), 1000u);
  auto a = budget->Register(0, 1.0, "a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ((*a)->quota_bytes(), 100u << 20);
  EXPECT_EQ((*a)->quota_entries(), 1000u);
  auto c = budget->Register(0, 3.0, "c");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*a)->quota_bytes(), 25u << 20);
  EXPECT_EQ((*c)->quota_bytes(), 75u << 20);
  EXPECT_EQ((*a)->quota_entries(), 250u);
  EXPECT_EQ((*c)->quota_entries(), 750u);
  // Another slot is independent.
  auto d = budget->Register(1, 0.5, "d");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->quota_bytes(), 100u << 20);
  EXPECT_EQ((*a)->quota_bytes(), 25u << 20);
  EXPECT_EQ(budget->subtasks_in_slot(0), 2u);
  // Leaving gives the share back.
  a->reset();
  EXPECT_EQ((*c)->quota_bytes(), 100u << 20);
  EXPECT_EQ(budget->subtasks_in_slot(0), 1u);
}

// Each lease records the slot as it found it, in the same locked step as its
// registration; later joins and leaves do not change that record.
TEST(MemoryBudget, LeaseRecordsTheSlotItJoined) {
  auto b = MemoryBudget::Create(300 << 20, 3000, 1);
  ASSERT_TRUE(b.ok());
  auto first = (*b)->Register(0, 1.0, "first");
  ASSERT_TRUE(first.ok());
  auto second = (*b)->Register(0, 1.0, "second");
  ASSERT_TRUE(second.ok());
  auto third = (*b)->Register(0, 1.0, "third");
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*first)->joined_subtasks(), 1u);
  EXPECT_EQ((*first)->joined_quota_bytes(), 300u << 20);
  EXPECT_EQ((*first)->joined_quota_entries(), 3000u);
  EXPECT_EQ((*second)->joined_subtasks(), 2u);
  EXPECT_EQ((*second)->joined_quota_bytes(), 150u << 20);
  EXPECT_EQ((*second)->joined_quota_entries(), 1500u);
  EXPECT_EQ((*third)->joined_subtasks(), 3u);
  EXPECT_EQ((*third)->joined_quota_bytes(), (300u << 20) / 3);
  EXPECT_EQ((*third)->joined_quota_entries(), 1000u);
  second->reset();
  EXPECT_EQ((*first)->joined_subtasks(), 1u);
  EXPECT_EQ((*first)->joined_quota_bytes(), 300u << 20);
  EXPECT_EQ((*first)->quota_bytes(), 150u << 20);  // the current quota moves on
  EXPECT_EQ((*third)->joined_subtasks(), 3u);
}

TEST(MemoryBudget, SharesNeverExceedTheSlot) {
  auto b = MemoryBudget::Create(1000, 0, 1);
  ASSERT_TRUE(b.ok());
  std::vector<std::unique_ptr<BudgetLease>> leases;
  for (int i = 0; i < 7; ++i) {
    auto l = (*b)->Register(0, 1.0 + i * 0.37, "s" + std::to_string(i));
    ASSERT_TRUE(l.ok());
    leases.push_back(std::move(*l));
  }
  uint64_t sum = 0;
  for (auto& l : leases) {
    sum += l->quota_bytes();
    EXPECT_EQ(l->quota_entries(), 0u);
  }
  EXPECT_LE(sum, 1000u);
  EXPECT_GE(sum, 1000u - 7);
}

TEST(MemoryBudget, LeaseKeepsBudgetAlive) {
  std::unique_ptr<BudgetLease> lease;
  {
    auto b = MemoryBudget::Create(1 << 20, 0, 1);
    ASSERT_TRUE(b.ok());
    auto l = (*b)->Register(0, 1.0, "only");
    ASSERT_TRUE(l.ok());
    lease = std::move(*l);
  }
  EXPECT_EQ(lease->quota_bytes(), 1u << 20);
  lease.reset();  // must not touch a freed budget (ASan)
}

// The facts behind the [FALCON] log lines, as the JNI layer reads them.
TEST(MemoryBudget, LeasesAndEstimatesGiveLogFacts) {
  auto b = MemoryBudget::Create(2u << 30, 0, 2);
  ASSERT_TRUE(b.ok());
  auto x = (*b)->Register(1, 0.25, "Window(...) (1/2)#0");
  auto y = (*b)->Register(1, 0.75, "Join (2/2)#0");
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_EQ((*b)->slots(), 2u);
  EXPECT_EQ((*b)->slot_bytes(), 1u << 30);
  // 64 bytes key+value cost ChargeFor(0, 64) bytes each: 64 + 48.
  EXPECT_EQ(HotStateCache::ChargeFor(0, 64), 112u);
  EXPECT_EQ(MemoryBudget::EstimateEntries((*b)->slot_bytes(), 0, 64),
            (1u << 30) / HotStateCache::ChargeFor(0, 64));
  EXPECT_EQ((*x)->name(), "Window(...) (1/2)#0");
  EXPECT_EQ((*y)->joined_subtasks(), 2u);
  EXPECT_EQ((*b)->subtasks_in_slot(1), 2u);
  EXPECT_EQ((*x)->quota_bytes(), (1u << 30) / 4);
  EXPECT_EQ((*y)->quota_bytes(), (1u << 30) / 4 * 3);
  EXPECT_EQ(MemoryBudget::EstimateEntries(1 << 20, 100, 64), 100u);
}

TEST(MemoryBudget, CacheShrinksToItsNewQuota) {
  auto b = MemoryBudget::Create(64 << 10, 0, 1);
  ASSERT_TRUE(b.ok());
  auto first = (*b)->Register(0, 1.0, "first");
  ASSERT_TRUE(first.ok());
  CountingSink sink;
  CacheOptions o;
  HotStateCache cache(o, &sink, first->get());
  EXPECT_EQ(cache.capacity_bytes(), 64u << 10);
  std::string value(100, 'v');
  for (int i = 0; i < 2000; ++i) {
    auto r = cache.Put(0, "key" + std::to_string(i), value);
    ASSERT_TRUE(r.ok());
  }
  EXPECT_LE(cache.bytes(), 64u << 10);
  // Every entry is dirty: the dirty set's slots (1,024 x 8 bytes for these
  // ~400 entries) take the rest.
  EXPECT_GT(cache.bytes(), 54u << 10);
  // A second subtask with three times the weight joins: quota drops to 1/4.
  auto second = (*b)->Register(0, 3.0, "second");
  ASSERT_TRUE(second.ok());
  // It fills its share and evicts: a rebalance keeps the weighted split.
  (*second)->ReportUsage(48u << 10, 1);
  EXPECT_GT(cache.bytes(), 16u << 10);  // not yet observed
  ASSERT_TRUE(cache.ShrinkToQuota().ok());
  EXPECT_EQ(cache.capacity_bytes(), 16u << 10);
  EXPECT_LE(cache.bytes(), 16u << 10);
  EXPECT_GT(sink.written, 0u);  // dirty victims were written back
  // The other one leaves: the quota grows back, observed on the next put.
  second->reset();
  ASSERT_TRUE(cache.Put(0, "again", value).ok());
  EXPECT_EQ(cache.capacity_bytes(), 64u << 10);
  // Quota 0 (a budget of zero bytes): nothing is cached.
  auto zero = MemoryBudget::Create(0, 0, 1);
  ASSERT_TRUE(zero.ok());
  auto lz = (*zero)->Register(0, 1.0, "zero");
  ASSERT_TRUE(lz.ok());
  HotStateCache none(o, &sink, lz->get());
  auto r = none.Put(0, "k", "v");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, WriteOutcome::kNotCached);
  EXPECT_EQ(none.entries(), 0u);
}

constexpr uint64_t kMiB = 1u << 20;

// Lending: a subtask that did not evict since the last rebalance keeps 1.5x
// what it holds (at least an eighth of its share); the evicting ones divide
// the rest by weight; entry caps follow the bytes.
TEST(MemoryBudget, RebalanceLendsUnusedSharesToEvictingSubtasks) {
  auto b = MemoryBudget::Create(100 * kMiB, 1000, 1);
  ASSERT_TRUE(b.ok());
  auto a = (*b)->Register(0, 1.0, "aggregate");
  auto j = (*b)->Register(0, 1.0, "join of list states");
  auto g = (*b)->Register(0, 2.0, "global max");
  ASSERT_TRUE(a.ok() && j.ok() && g.ok());
  EXPECT_EQ((*a)->quota_bytes(), 25 * kMiB);
  (*a)->ReportUsage(25 * kMiB, 5000);
  (*j)->ReportUsage(1 * kMiB, 0);
  (*g)->ReportUsage(10 * kMiB, 0);
  (*b)->Rebalance(0);
  // j: max(1.5 MiB, 25/8 MiB); g: max(15 MiB, 50/8 MiB); a: the rest.
  EXPECT_EQ((*j)->quota_bytes(), 25 * kMiB / 8);
  EXPECT_EQ((*g)->quota_bytes(), 15 * kMiB);
  EXPECT_EQ((*a)->quota_bytes(), 100 * kMiB - 25 * kMiB / 8 - 15 * kMiB);
  EXPECT_EQ((*a)->quota_entries(), 818u);  // floor(1000 * 81.875 / 100)
  EXPECT_EQ((*g)->quota_entries(), 150u);
  EXPECT_EQ((*j)->joined_quota_bytes(), 50 * kMiB);  // as it joined
  // The lender fills its reduced quota and evicts: the two evicting ones
  // share what g does not need by weight.
  (*j)->ReportUsage(25 * kMiB / 8, 1);
  (*a)->ReportUsage(80 * kMiB, 9000);
  (*b)->Rebalance(0);
  EXPECT_EQ((*g)->quota_bytes(), 15 * kMiB);
  EXPECT_EQ((*a)->quota_bytes(), 85 * kMiB / 2);
  EXPECT_EQ((*j)->quota_bytes(), 85 * kMiB / 2);
  // Nobody evicted since: every demand is met and the rest is divided by
  // weight; the quotas never sum above the slot.
  (*a)->ReportUsage(10 * kMiB, 9000);
  (*j)->ReportUsage(10 * kMiB, 1);
  (*g)->ReportUsage(10 * kMiB, 0);
  (*b)->Rebalance(0);
  // Demands 15 MiB each, 55 MiB left: 13.75, 13.75, 27.5 MiB on top.
  EXPECT_EQ((*a)->quota_bytes(), 15 * kMiB + 55 * kMiB / 4);
  EXPECT_EQ((*j)->quota_bytes(), 15 * kMiB + 55 * kMiB / 4);
  EXPECT_EQ((*g)->quota_bytes(), 15 * kMiB + 55 * kMiB / 2);
  EXPECT_LE((*a)->quota_bytes() + (*j)->quota_bytes() + (*g)->quota_bytes(),
            100 * kMiB);
  // A subtask joining resets the slot to the weighted shares.
  auto n = (*b)->Register(0, 1.0, "new");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*a)->quota_bytes(), 20 * kMiB);
  EXPECT_EQ((*g)->quota_bytes(), 40 * kMiB);
}

TEST(MemoryBudget, RebalanceOfOneSubtaskOrAnotherSlotChangesNothing) {
  auto b = MemoryBudget::Create(200 * kMiB, 0, 2);
  ASSERT_TRUE(b.ok());
  auto alone = (*b)->Register(0, 1.0, "alone");
  auto x = (*b)->Register(1, 1.0, "x");
  auto y = (*b)->Register(1, 1.0, "y");
  ASSERT_TRUE(alone.ok() && x.ok() && y.ok());
  (*alone)->ReportUsage(0, 0);
  (*x)->ReportUsage(100 * kMiB, 7);
  (*y)->ReportUsage(0, 0);
  (*b)->Rebalance(0);
  (*b)->Rebalance(5);  // no such slot
  EXPECT_EQ((*alone)->quota_bytes(), 100 * kMiB);
  EXPECT_EQ((*x)->quota_bytes(), 50 * kMiB);
  EXPECT_EQ((*x)->quota_entries(), 0u);  // no entry cap
  (*b)->Rebalance(1);
  EXPECT_EQ((*x)->quota_bytes(), 100 * kMiB - 50 * kMiB / 8);
  EXPECT_EQ((*alone)->quota_bytes(), 100 * kMiB);
}

// The cache side: a cache that evicts asks for a rebalance on its own and
// grows into what its idle neighbour does not use.
TEST(MemoryBudget, EvictingCacheBorrowsWhatItsSlotDoesNotUse) {
  auto b = MemoryBudget::Create(256 << 10, 0, 1);
  ASSERT_TRUE(b.ok());
  auto busy = (*b)->Register(0, 1.0, "busy");
  auto idle = (*b)->Register(0, 1.0, "idle");
  ASSERT_TRUE(busy.ok() && idle.ok());
  CountingSink sink;
  CacheOptions o;
  HotStateCache cache(o, &sink, busy->get());
  HotStateCache idle_cache(o, &sink, idle->get());
  ASSERT_TRUE(idle_cache.Put(0, "one", "entry").ok());
  EXPECT_EQ(cache.capacity_bytes(), 128u << 10);
  std::string value(100, 'v');
  for (int i = 0; i < 4000; ++i) {
    ASSERT_TRUE(cache.Put(0, "key" + std::to_string(i), value).ok());
  }
  EXPECT_EQ(cache.capacity_bytes(), (256u << 10) - (128u << 10) / 8);
  EXPECT_GT(cache.bytes(), 128u << 10);
  EXPECT_LE(cache.bytes(), cache.capacity_bytes());
  EXPECT_EQ((*idle)->quota_bytes(), (128u << 10) / 8);
}

}  // namespace
}  // namespace falcon
