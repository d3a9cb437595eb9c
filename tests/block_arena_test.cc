// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.

#include "cache/block_arena.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cache/entry_index.h"
#include "falcon/hot_state_cache.h"

namespace falcon {
namespace cache_internal {
namespace {

struct Block {
  char* p;
  size_t n;
  uint8_t fill;
};

void Fill(const Block& b) { std::memset(b.p, b.fill, b.n); }

bool Intact(const Block& b) {
  for (size_t i = 0; i < b.n; ++i) {
    if (static_cast<uint8_t>(b.p[i]) != b.fill) return false;
  }
  return true;
}

TEST(BlockArena, ClassesAreEightByteSteps) {
  EXPECT_EQ(BlockArena::BlockBytes(1), 8u);
  EXPECT_EQ(BlockArena::BlockBytes(24), 24u);
  EXPECT_EQ(BlockArena::BlockBytes(25), 32u);
  EXPECT_EQ(BlockArena::BlockBytes(104), 104u);
  EXPECT_EQ(BlockArena::BlockBytes(1023), 1024u);
  BlockArena a;
  for (size_t n : {24u, 25u, 104u, 1000u, 1024u}) {
    const uint64_t before = a.used_bytes();
    void* p = a.Allocate(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 8, 0u);
    EXPECT_EQ(a.used_bytes() - before, BlockArena::BlockBytes(n));
  }
}

TEST(BlockArena, BlocksDoNotOverlapAndKeepTheirBytes) {
  BlockArena a;
  std::mt19937_64 rng(7);
  std::vector<Block> live;
  uint64_t used = 0;
  for (int step = 0; step < 200000; ++step) {
    const bool alloc = live.empty() || rng() % 100 < 55;
    if (alloc) {
      const size_t n = 1 + rng() % BlockArena::kMaxBlockBytes;
      Block b{static_cast<char*>(a.Allocate(n)), n,
              static_cast<uint8_t>(rng())};
      ASSERT_NE(b.p, nullptr);
      Fill(b);
      live.push_back(b);
      used += BlockArena::BlockBytes(n);
    } else {
      const size_t i = rng() % live.size();
      ASSERT_TRUE(Intact(live[i])) << "step " << step;
      used -= BlockArena::BlockBytes(live[i].n);
      a.Free(live[i].p);
      live[i] = live.back();
      live.pop_back();
    }
    ASSERT_EQ(a.used_bytes(), used);
  }
  // No two live blocks share a byte.
  std::sort(live.begin(), live.end(),
            [](const Block& x, const Block& y) { return x.p < y.p; });
  for (size_t i = 1; i < live.size(); ++i) {
    ASSERT_LE(live[i - 1].p + BlockArena::BlockBytes(live[i - 1].n), live[i].p);
  }
  for (const Block& b : live) ASSERT_TRUE(Intact(b));
  EXPECT_GE(a.ResidentBytes(), a.used_bytes());
  for (const Block& b : live) a.Free(b.p);
  EXPECT_EQ(a.used_bytes(), 0u);
  // Everything freed: all chunks unmapped but the spare.
  EXPECT_LE(a.chunk_count(), 1u);
}

TEST(BlockArena, EmptySlabsServeOtherClasses) {
  BlockArena a;
  // Fill whole chunks with one class, free it all, then take as much in
  // another class: the slabs are reused, no chunk is added.
  std::vector<void*> blocks;
  const size_t target = 3 * BlockArena::kChunkBytes;
  for (size_t total = 0; total < target; total += 104)
    blocks.push_back(a.Allocate(104));
  const size_t chunks = a.chunk_count();
  EXPECT_GE(chunks, 3u);
  for (void* p : blocks) a.Free(p);
  EXPECT_EQ(a.chunk_count(), 1u);  // the spare
  blocks.clear();
  for (size_t total = 0; total < BlockArena::kChunkBytes / 2; total += 512) {
    blocks.push_back(a.Allocate(512));
  }
  EXPECT_EQ(a.chunk_count(), 1u);
  for (void* p : blocks) a.Free(p);
}

uint64_t Pages(uint64_t bytes) { return (bytes + 4095) / 4096 * 4096; }

// The line of /proc/self/smaps that starts with `field` in the entry of the
// mapping holding `p`, without the field; nullopt when smaps has no such
// mapping or no such line for it.
std::optional<std::string> SmapsField(const void* p, const std::string& field) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t start = 0;
    uintptr_t end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> start >> dash >> end && dash == '-') {
      if (inside) return std::nullopt;  // the mapping had no such line
      inside = start <= a && a < end;
      continue;
    }
    if (inside && line.rfind(field, 0) == 0) return line.substr(field.size());
  }
  return std::nullopt;
}

// The Rss of the mapping holding `p`.
std::optional<uint64_t> RssOf(const void* p) {
  const std::optional<std::string> kib = SmapsField(p, "Rss:");
  if (!kib.has_value()) return std::nullopt;
  std::istringstream in(*kib);
  uint64_t v = 0;
  if (!(in >> v)) return std::nullopt;
  return v * 1024;
}

TEST(BlockArena, EmptySlabsGiveTheirPagesBackButTheLastOne) {
  BlockArena a;                   // no huge pages
  void* anchor = a.Allocate(64);  // keeps the chunk in use
  std::vector<void*> blocks;
  for (int i = 0; i < 4 * 64; ++i) blocks.push_back(a.Allocate(1024));
  const uint64_t full = a.ResidentBytes();
  EXPECT_GE(full, Pages(4 * 64 * 1024));
  for (void* p : blocks) a.Free(p);
  // Four slabs emptied: three gave their pages back, the last one is kept.
  const uint64_t kept = a.ResidentBytes();
  EXPECT_EQ(full - kept, 3u * 64 * 1024);
  EXPECT_EQ(a.chunk_count(), 1u);
  const std::optional<uint64_t> rss = RssOf(anchor);
  if (rss.has_value()) {
    // The kernel agrees (the chunk's pages beyond what it counts are not
    // resident; the mapping is the chunk alone).
    EXPECT_LE(*rss, kept);
  }
  a.Free(anchor);
}

TEST(BlockArena, AClassRefillingOneSlabReusesTheKeptSlab) {
  BlockArena a;
  void* anchor = a.Allocate(64);
  void* first = a.Allocate(512);
  a.Free(first);                  // its slab is empty now, and kept
  void* other = a.Allocate(256);  // a new class takes the kept slab
  EXPECT_EQ(other, first);
  a.Free(other);
  void* again = a.Allocate(512);
  EXPECT_EQ(again, first);
  const uint64_t resident = a.ResidentBytes();
  for (int i = 0; i < 1000; ++i) {
    a.Free(again);
    again = a.Allocate(512);
  }
  EXPECT_EQ(again, first);
  EXPECT_EQ(a.ResidentBytes(), resident);
  a.Free(again);
  a.Free(anchor);
}

TEST(BlockArena, ResidentBytesFollowPagesInUse) {
  BlockArena
      a;  // no huge pages: resident = the pages each slab ever handed out
  std::vector<void*> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(a.Allocate(64));
  EXPECT_EQ(a.chunk_count(), 1u);
  // Slab 0 holds the chunk's header (under 2 KiB) before its blocks.
  const uint64_t slab0 = a.ResidentBytes();
  EXPECT_GE(slab0, Pages(6400));
  EXPECT_LE(slab0, Pages(2048 + 6400));
  for (int i = 0; i < 50; ++i)
    blocks.push_back(a.Allocate(1024));  // a second class, slab 1
  const uint64_t both = slab0 + Pages(50 * 1024);
  EXPECT_EQ(a.ResidentBytes(), both);
  // A cache churning at one size: freed blocks are reused, the arena does
  // not grow.
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    const size_t k = rng() % 100;
    a.Free(blocks[k]);
    blocks[k] = a.Allocate(64);
  }
  EXPECT_EQ(a.ResidentBytes(), both);
  EXPECT_EQ(a.used_bytes(), 100u * 64 + 50u * 1024);
  for (void* p : blocks) a.Free(p);
}

TEST(BlockArena, HugePageChunksCountInFull) {
  BlockArena a;
  a.set_huge_pages(true);
  void* p = a.Allocate(100);
  ASSERT_NE(p, nullptr);
  // A chunk advised for huge pages counts in full (whether the kernel
  // backs it with one is its choice: THP "never" does not); one whose advice
  // failed counts its one page.
  EXPECT_TRUE(a.ResidentBytes() == BlockArena::kChunkBytes ||
              a.ResidentBytes() == 4096u)
      << a.ResidentBytes();
  a.Free(p);
}

// The advice flags ("hg": MADV_HUGEPAGE, "nh": MADV_NOHUGEPAGE) of the
// mapping holding `p`, as /proc/self/smaps lists them; nullopt when smaps
// has no such mapping or no VmFlags line for it.
std::optional<std::vector<std::string>> AdviceOf(const void* p) {
  const std::optional<std::string> flags_line = SmapsField(p, "VmFlags:");
  if (!flags_line.has_value()) return std::nullopt;
  std::vector<std::string> advice;
  std::istringstream flags(*flags_line);
  std::string f;
  while (flags >> f) {
    if (f == "hg" || f == "nh") advice.push_back(f);
  }
  return advice;
}

// Chunks not meant for huge pages are advised against them, so that THP
// "always" cannot back them with 2 MiB pages behind ResidentBytes' back.
TEST(BlockArena, ChunksCarryTheirHugePageAdvice) {
  BlockArena small;
  void* p = small.Allocate(64);
  BlockArena large;
  large.set_huge_pages(true);
  void* q = large.Allocate(64);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(small.ResidentBytes(), 4096u);  // the header's page, the block's
  const auto small_advice = AdviceOf(p);
  const auto large_advice = AdviceOf(q);
  const bool large_is_huge = large.ResidentBytes() == BlockArena::kChunkBytes;
  small.Free(p);
  large.Free(q);
  // A control: a mapping advised here, directly. Where smaps does not show
  // even its advice (qemu-user lists its own flags, without hg and nh),
  // there is nothing to compare against.
  void* control = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(control, MAP_FAILED);
  const bool advised = madvise(control, 1 << 20, MADV_NOHUGEPAGE) == 0;
  const auto control_advice = AdviceOf(control);
  munmap(control, 1 << 20);
  if (!advised || !control_advice.has_value() ||
      *control_advice != std::vector<std::string>{"nh"} ||
      !small_advice.has_value() || !large_advice.has_value()) {
    GTEST_SKIP() << "/proc/self/smaps does not show this process's "
                    "huge-page advice";
  }
  EXPECT_EQ(*small_advice, std::vector<std::string>{"nh"});
  // A kernel that took the huge-page advice marks the chunk, and the arena
  // counts it in full; one that refused it (no THP) leaves no flag.
  if (large_is_huge) {
    EXPECT_EQ(*large_advice, std::vector<std::string>{"hg"});
  }
}

TEST(IndexAllocator, LargeArraysAreHugePageAligned) {
  const IndexAllocator<uint64_t> huge(true);
  std::vector<uint64_t, IndexAllocator<uint64_t>> small(1000, 1, huge);
  EXPECT_EQ(small[999], 1u);
  const size_t n =
      (size_t{5} << 20) / 8 + 3;  // 5 MiB and a bit: two whole huge pages
  std::vector<uint64_t, IndexAllocator<uint64_t>> big(n, 0, huge);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % (size_t{2} << 20), 0u);
  for (size_t i = 0; i < n; i += 511) big[i] = i;
  big[n - 1] = 42;
  for (size_t i = 0; i < n - 1; i += 511) ASSERT_EQ(big[i], i);
  EXPECT_EQ(big[n - 1], 42u);
  big.clear();
  big.shrink_to_fit();
}

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer a freed block is poisoned: a read through a stale
// entry pointer is reported, as with malloc.
TEST(BlockArenaDeathTest, FreedBlocksArePoisoned) {
  EXPECT_DEATH(
      {
        BlockArena a;
        char* p = static_cast<char*>(a.Allocate(64));
        (void)a.Allocate(64);
        a.Free(p);
        volatile char c = p[16];
        (void)c;
      },
      "use-after-poison");
}
#endif

}  // namespace
}  // namespace cache_internal
}  // namespace falcon
