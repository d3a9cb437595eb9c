// Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
//
// Trace simulator for the hot-state cache policies: drives the real
// HotStateCache (Get, then Fill on a miss, as the JNI layer will) with
// synthetic traces and compares hit ratios with two bounds:
//   * top-k: the probability mass of the k most popular keys, the optimum of
//     any cache under the independent reference model (Zipf traces only);
//   * Belady: the offline optimum computed from the trace itself (with
//     bypass: a key whose next use is farther than every cached key's is not
//     admitted).
// Traces are 10x as long as the key space; the first 10% warms the cache and
// is not counted. Cache sizes are entry counts (the byte bound is set out of
// the way), as percentages of the key space.
//
// Traces: Zipf(alpha) over 200k and 1M keys (alpha 0.8, 0.99, 1.2; caches of
// 0.1%, 1%, 10%), and a Nexmark-like recency trace: auctions keep arriving
// (one new auction per 10 requests); 80% of requests go to recent auctions
// (age ~ geometric, mean 2,000 auctions), 20% to a Zipf(0.8)-popular set of
// long-lived keys (persons / categories). Output: one `RESULT` line per
// figure.
//
// Usage: cache_sim [--quick] [--shift] [--length=N] [--seed=S] [--fixed-window]
//                  [--window=P] [--<tuning>=V ...]
//   --quick: 200k-key cells only; --shift: only Zipf traces whose popularity
//   is re-drawn in phases (200k keys); --length: traces N x the key space
//   (10); --seed: another set of Zipf and recency traces (0, the default,
//   gives the traces of docs/benchmarks.md's main tables; S > 0 seeds them
//   with 42000 + S + keys and 7000 + S + keys instead of 42 + keys and
//   7 + keys); --fixed-window: no window adaptation; --window: initial
//   window, % (1).
//   --<tuning>=V sets one field of the policy's tuning
//   (src/cache/policy_tuning.h; --help lists them with their defaults), so a
//   variant is tried without rebuilding, e.g. --boost-gain=0 (no ghost boost)
//   or --sketch-sample-factor=20. The simulator drives the cache behind
//   HotStateCache (cache_internal::CacheCore) to hand it the tuning.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "cache/cache_core.h"
#include "cache/policy_tuning.h"
#include "falcon/hot_state_cache.h"

namespace {

bool g_climb = true;
double g_last_window = 0;
double g_mean_window =
    0;                   // over the measured part, sampled every 1024 accesses
uint64_t g_length = 10;  // trace length in multiples of the key space
uint32_t g_window_percent = 1;
uint64_t g_seed = 0;  // 0: the documented traces; see --seed
falcon::cache_internal::PolicyTuning g_tuning;  // see --<tuning>

// The command-line names of PolicyTuning's fields.
struct TuningFlag {
  const char* name;
  double falcon::cache_internal::PolicyTuning::*real;
  uint64_t falcon::cache_internal::PolicyTuning::*u64;
  uint32_t falcon::cache_internal::PolicyTuning::*u32;
};
using Tuning = falcon::cache_internal::PolicyTuning;
const TuningFlag kTuningFlags[] = {
    {"climb-step", &Tuning::climb_step, nullptr, nullptr},
    {"climb-down-ratio", &Tuning::climb_down_ratio, nullptr, nullptr},
    {"climb-period-multiplier", nullptr, &Tuning::climb_period_multiplier,
     nullptr},
    {"climb-min-period", nullptr, &Tuning::climb_min_period, nullptr},
    {"ghost-divisor", nullptr, &Tuning::ghost_divisor, nullptr},
    {"ghost-min-keys", nullptr, &Tuning::ghost_min_keys, nullptr},
    {"grow-vote-max-count", nullptr, nullptr, &Tuning::grow_vote_max_count},
    {"boost-gain", &Tuning::boost_gain, nullptr, nullptr},
    {"unconfirmed-grow-below", &Tuning::unconfirmed_grow_below, nullptr,
     nullptr},
    {"window-pass-hits", nullptr, nullptr, &Tuning::window_pass_hits},
    {"sketch-bytes-per-entry", nullptr, &Tuning::sketch_bytes_per_entry,
     nullptr},
    {"sketch-sample-factor", nullptr, &Tuning::sketch_sample_factor, nullptr},
    {"sketch-min-blocks", nullptr, &Tuning::sketch_min_blocks, nullptr},
    {"sketch-saturated-victims", nullptr, nullptr,
     &Tuning::sketch_saturated_victims},
};

// "--name=value" for a tuning field: sets it and returns true.
bool ParseTuningFlag(const char* arg) {
  for (const TuningFlag& f : kTuningFlags) {
    const size_t n = std::strlen(f.name);
    if (std::strncmp(arg, "--", 2) != 0 ||
        std::strncmp(arg + 2, f.name, n) != 0 || arg[2 + n] != '=') {
      continue;
    }
    const char* v = arg + 3 + n;
    if (f.real != nullptr) g_tuning.*f.real = std::strtod(v, nullptr);
    if (f.u64 != nullptr) g_tuning.*f.u64 = std::strtoull(v, nullptr, 10);
    if (f.u32 != nullptr)
      g_tuning.*f.u32 = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    return true;
  }
  return false;
}

// The tuning as flags (all of them, defaults included).
std::string DescribeTuning() {
  std::string out;
  char buf[96];
  for (const TuningFlag& f : kTuningFlags) {
    if (f.real != nullptr)
      std::snprintf(buf, sizeof(buf), " --%s=%g", f.name, g_tuning.*f.real);
    if (f.u64 != nullptr) {
      std::snprintf(buf, sizeof(buf), " --%s=%llu", f.name,
                    (unsigned long long)(g_tuning.*f.u64));
    }
    if (f.u32 != nullptr)
      std::snprintf(buf, sizeof(buf), " --%s=%u", f.name, g_tuning.*f.u32);
    out += buf;
  }
  return out;
}

using falcon::CacheOptions;
using falcon::CachePolicy;
using falcon::GetResult;
using falcon::Lookup;

class NullSink : public falcon::WriteBackSink {
 public:
  falcon::Status Write(const falcon::DirtyEntry*, size_t) override {
    return falcon::Status::OK();
  }
};

struct SplitMix {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double Uniform() { return double(Next() >> 11) * (1.0 / 9007199254740992.0); }
};

struct Zipf {
  std::vector<double> cdf;
  Zipf(uint64_t n, double alpha) : cdf(n) {
    double sum = 0;
    for (uint64_t i = 0; i < n; ++i) {
      sum += 1.0 / std::pow(double(i + 1), alpha);
      cdf[i] = sum;
    }
    for (double& c : cdf) c /= sum;
  }
  uint32_t Sample(SplitMix& rng) const {
    double u = rng.Uniform();
    return static_cast<uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), u) -
                                 cdf.begin());
  }
  double TopMass(uint64_t k) const {
    return k == 0 ? 0.0 : cdf[std::min<uint64_t>(k, cdf.size()) - 1];
  }
};

std::vector<uint32_t> ZipfTrace(uint64_t keys, double alpha, uint64_t length,
                                uint64_t seed, Zipf* zipf_out) {
  *zipf_out = Zipf(keys, alpha);
  SplitMix rng{seed};
  std::vector<uint32_t> t(length);
  for (auto& x : t) x = zipf_out->Sample(rng);
  return t;
}

// Zipf whose popularity moves: every `phase` accesses, `swaps` random pairs
// of keys exchange their ranks (swaps = keys re-draws about 86% of them).
// Not one of the traces: it shows what a halving period costs when
// the hot set drifts.
std::vector<uint32_t> ShiftingZipfTrace(uint64_t keys, double alpha,
                                        uint64_t length, uint64_t phase,
                                        uint64_t swaps, uint64_t seed) {
  Zipf zipf(keys, alpha);
  SplitMix rng{seed};
  std::vector<uint32_t> key_of_rank(keys);
  for (uint64_t i = 0; i < keys; ++i) key_of_rank[i] = static_cast<uint32_t>(i);
  std::vector<uint32_t> t(length);
  for (uint64_t i = 0; i < length; ++i) {
    if (i > 0 && i % phase == 0) {
      for (uint64_t s = 0; s < swaps; ++s) {
        std::swap(key_of_rank[rng.Next() % keys],
                  key_of_rank[rng.Next() % keys]);
      }
    }
    t[i] = key_of_rank[zipf.Sample(rng)];
  }
  return t;
}

std::vector<uint32_t> RecencyTrace(uint64_t keys, uint64_t length,
                                   uint64_t seed) {
  // Key ids: [0, keys/10) long-lived (Zipf 0.8), then auctions in arrival
  // order.
  const uint64_t long_lived = keys / 10;
  const uint64_t auctions = keys - long_lived;
  Zipf persons(long_lived, 0.8);
  SplitMix rng{seed};
  std::vector<uint32_t> t(length);
  const double mean_age = 2000.0;
  const double p = 1.0 / mean_age;
  for (uint64_t i = 0; i < length; ++i) {
    uint64_t newest = std::min<uint64_t>(auctions - 1, i * auctions / length);
    if (rng.Uniform() < 0.8) {
      uint64_t age = static_cast<uint64_t>(
          std::floor(std::log(1.0 - rng.Uniform()) / std::log(1.0 - p)));
      if (age > newest) age = rng.Next() % (newest + 1);
      t[i] = static_cast<uint32_t>(long_lived + newest - age);
    } else {
      t[i] = persons.Sample(rng);
    }
  }
  return t;
}

// Hit ratio of the real cache over the counted part of the trace.
double RunCache(const std::vector<uint32_t>& trace, CachePolicy policy,
                uint64_t capacity, double* ns_per_access) {
  NullSink sink;
  CacheOptions o;
  o.policy = policy;
  o.max_bytes = uint64_t{1} << 40;
  o.max_entries = capacity;
  o.adaptive_window = g_climb;
  o.window_percent = g_window_percent;
  falcon::cache_internal::CacheCore cache(o, &sink, nullptr, g_tuning);
  const size_t warm = trace.size() / 10;
  uint64_t hits = 0;
  char key[10] = {0, 7};  // 2-byte key-group prefix + 8-byte key, like Flink
  const char value[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  double window_sum = 0;
  uint64_t window_samples = 0;
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < trace.size(); ++i) {
    if (i >= warm && (i & 1023) == 0) {
      window_sum += cache.window_fraction();
      window_samples += 1;
    }
    uint64_t id = trace[i] * 0x9e3779b97f4a7c15ull;  // scatter, bijective
    std::memcpy(key + 2, &id, 8);
    std::string_view k(key, sizeof(key));
    GetResult r = cache.Get(0, k);
    if (r.kind == Lookup::kMiss) {
      if (!cache.Fill(0, k, std::string_view(value, sizeof(value))).ok())
        std::abort();
    } else if (i >= warm) {
      ++hits;
    }
  }
  auto ns = std::chrono::duration<double, std::nano>(
                std::chrono::steady_clock::now() - start)
                .count();
  *ns_per_access = ns / double(trace.size());
  g_last_window = cache.window_fraction();
  g_mean_window = window_samples > 0 ? window_sum / double(window_samples) : 0;
  return double(hits) / double(trace.size() - warm);
}

// Belady's MIN with bypass.
double RunBelady(const std::vector<uint32_t>& trace, uint64_t keys,
                 uint64_t capacity) {
  const size_t n = trace.size();
  const uint64_t kNever = ~uint64_t{0};
  std::vector<uint64_t> next(n);
  std::vector<uint64_t> last(keys, kNever);
  for (size_t i = n; i-- > 0;) {
    next[i] = last[trace[i]];
    last[trace[i]] = i;
  }
  std::vector<uint64_t> cached_next(keys, 0);  // 0 = not cached
  std::vector<uint8_t> in(keys, 0);
  std::priority_queue<std::pair<uint64_t, uint32_t>>
      heap;  // (next use, key), lazy
  uint64_t size = 0;
  uint64_t hits = 0;
  const size_t warm = n / 10;
  for (size_t i = 0; i < n; ++i) {
    uint32_t k = trace[i];
    if (in[k]) {
      if (i >= warm) ++hits;
      cached_next[k] = next[i];
      heap.emplace(next[i], k);
      continue;
    }
    if (next[i] == kNever) continue;  // never used again: bypass
    if (size == capacity) {
      // Farthest next use among cached keys (skip stale heap entries).
      while (true) {
        auto top = heap.top();
        if (in[top.second] && cached_next[top.second] == top.first) break;
        heap.pop();
      }
      auto top = heap.top();
      if (top.first <= next[i]) continue;  // bypass the newcomer
      heap.pop();
      in[top.second] = 0;
      --size;
    }
    in[k] = 1;
    cached_next[k] = next[i];
    heap.emplace(next[i], k);
    ++size;
  }
  return double(hits) / double(n - warm);
}

}  // namespace

// --shift: W-TinyLFU and LRU on shifting Zipf traces over 200k keys.
int RunShift() {
  const uint64_t keys = 200000;
  for (double alpha : {0.8, 0.99}) {
    for (double pct : {1.0, 10.0}) {
      for (uint64_t phase : {uint64_t{200000}, uint64_t{1000000}}) {
        for (double share : {0.1, 1.0}) {
          std::vector<uint32_t> trace =
              ShiftingZipfTrace(keys, alpha, keys * g_length, phase,
                                uint64_t(share * keys), 99 + keys);
          const uint64_t cap =
              static_cast<uint64_t>(double(keys) * pct / 100.0);
          double ns;
          const double w = RunCache(trace, CachePolicy::kWTinyLfu, cap, &ns);
          const double l = RunCache(trace, CachePolicy::kLru, cap, &ns);
          std::printf(
              "RESULT hit_ratio trace=shifting_zipf keys=%llu alpha=%.2f "
              "cache=%g%% phase=%llu "
              "swaps_per_key=%.1f wtinylfu=%.4f lru=%.4f "
              "wtinylfu_minus_lru=%+.4f\n",
              (unsigned long long)keys, alpha, pct, (unsigned long long)phase,
              share, w, l, w - l);
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  bool quick = false;
  bool shift = false;
  bool tuned = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf(
          "cache_sim [--quick] [--shift] [--length=N] [--seed=S] "
          "[--fixed-window] "
          "[--window=P] [--<tuning>=V ...]\ntuning fields and their "
          "defaults:\n %s\n",
          DescribeTuning().c_str());
      return 0;
    }
    const char* a = argv[i];
    if (ParseTuningFlag(a)) {
      tuned = true;
    } else if (std::strcmp(a, "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(a, "--shift") == 0) {
      shift = true;
    } else if (std::strcmp(a, "--fixed-window") == 0) {
      g_climb = false;
    } else if (std::strncmp(a, "--window=", 9) == 0) {
      g_window_percent = std::atoi(a + 9);
    } else if (std::strncmp(a, "--length=", 9) == 0) {
      g_length = std::strtoull(a + 9, nullptr, 10);
    } else if (std::strncmp(a, "--seed=", 7) == 0) {
      g_seed = std::strtoull(a + 7, nullptr, 10);
    } else {
      std::fprintf(stderr, "cache_sim: unknown argument %s (see --help)\n", a);
      return 2;
    }
  }
  // Printed only for a non-default tuning, so a default run's output stays
  // comparable line by line with older runs.
  if (tuned) std::printf("# policy tuning:%s\n", DescribeTuning().c_str());
  const uint64_t zipf_seed = g_seed == 0 ? 42 : 42000 + g_seed;
  const uint64_t recency_seed = g_seed == 0 ? 7 : 7000 + g_seed;
  if (shift) return RunShift();
  std::vector<uint64_t> keyspaces = {200000};
  if (!quick) keyspaces.push_back(1000000);
  const double alphas[] = {0.8, 0.99, 1.2};
  const double pcts[] = {0.1, 1.0, 10.0};
  int cells = 0, cells_met = 0;
  double worst_rel = 10;
  for (uint64_t keys : keyspaces) {
    for (double alpha : alphas) {
      Zipf zipf(1, 1.0);
      std::vector<uint32_t> trace =
          ZipfTrace(keys, alpha, keys * g_length, zipf_seed + keys, &zipf);
      for (double pct : pcts) {
        uint64_t cap = static_cast<uint64_t>(double(keys) * pct / 100.0);
        double ns_w, ns_l;
        double w = RunCache(trace, CachePolicy::kWTinyLfu, cap, &ns_w);
        double window = g_last_window;
        double mean_window = g_mean_window;
        double l = RunCache(trace, CachePolicy::kLru, cap, &ns_l);
        double topk = zipf.TopMass(cap);
        double opt = RunBelady(trace, keys, cap);
        double rel = w / topk;
        ++cells;
        cells_met += rel >= 0.95;
        worst_rel = std::min(worst_rel, rel);
        std::printf(
            "RESULT hit_ratio trace=zipf keys=%llu alpha=%.2f cache=%g%% "
            "entries=%llu "
            "wtinylfu=%.4f lru=%.4f topk_bound=%.4f belady=%.4f "
            "wtinylfu_vs_topk=%.3f "
            "wtinylfu_vs_belady=%.3f window=%.3f mean_window=%.3f "
            "ns_per_access_wtinylfu=%.0f "
            "ns_per_access_lru=%.0f\n",
            (unsigned long long)keys, alpha, pct, (unsigned long long)cap, w, l,
            topk, opt, rel, w / opt, window, mean_window, ns_w, ns_l);
        std::fflush(stdout);
      }
    }
  }
  for (uint64_t keys : keyspaces) {
    std::vector<uint32_t> trace =
        RecencyTrace(keys, keys * g_length, recency_seed + keys);
    for (double pct : {1.0, 10.0}) {
      uint64_t cap = static_cast<uint64_t>(double(keys) * pct / 100.0);
      double ns_w, ns_l;
      double w = RunCache(trace, CachePolicy::kWTinyLfu, cap, &ns_w);
      double window = g_last_window;
      double mean_window = g_mean_window;
      double l = RunCache(trace, CachePolicy::kLru, cap, &ns_l);
      double opt = RunBelady(trace, keys, cap);
      std::printf(
          "RESULT hit_ratio trace=nexmark_recency keys=%llu cache=%g%% "
          "entries=%llu "
          "wtinylfu=%.4f lru=%.4f belady=%.4f wtinylfu_minus_lru=%+.4f "
          "window=%.3f "
          "mean_window=%.3f\n",
          (unsigned long long)keys, pct, (unsigned long long)cap, w, l, opt,
          w - l, window, mean_window);
      std::fflush(stdout);
    }
  }
  std::printf(
      "RESULT zipf_summary cells=%d cells_at_least_95pct_of_topk=%d "
      "worst_wtinylfu_vs_topk=%.3f\n",
      cells, cells_met, worst_rel);
  return 0;
}
