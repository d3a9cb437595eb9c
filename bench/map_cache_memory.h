// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// What a cache of MapState maps holds against what it is charged, under a
// join-like churn (bench/map_cache_memory.cc).

#ifndef FALCON_BENCH_MAP_CACHE_MEMORY_H_
#define FALCON_BENCH_MAP_CACHE_MEMORY_H_

namespace falcon {

// Prints `RESULT map_cache_memory ...` lines. Takes about half a minute.
void PrintMapCacheMemory();

}  // namespace falcon

#endif  // FALCON_BENCH_MAP_CACHE_MEMORY_H_
