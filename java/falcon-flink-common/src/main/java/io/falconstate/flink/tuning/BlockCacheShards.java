/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.log.FalconLog;

import org.rocksdb.Cache;
import org.rocksdb.LRUCache;

/**
 * How many shards the block cache a slot's RocksDB instances share gets: the most shards, a power
 * of two no larger than RocksDB's own choice, that are each at least {@code minShardBytes}.
 *
 * <p>Why: RocksDB splits an {@code LRUCache} into up to 64 shards of at least 512 KiB, each with
 * its own capacity. The write-buffer manager Flink attaches to the same cache pins a 256 KiB dummy
 * entry per 256 KiB of memtable memory, spread over the shards by hash. A shard whose pinned
 * entries pass its capacity frees every block as soon as its last reader releases it, so a hot SST
 * index block that lands there is read and decompressed again on every lookup. Larger shards
 * average the dummies out (docs/decisions/0033-block-cache-shards-of-16-mb.md).
 *
 * <p>Stateless; thread-safe.
 */
public final class BlockCacheShards {

    /** RocksDB's smallest default shard ({@code GetDefaultCacheShardBits}). */
    static final long ROCKSDB_MIN_SHARD_BYTES = 512L * 1024;

    /** RocksDB's most default shard bits: 64 shards. */
    static final int ROCKSDB_MAX_SHARD_BITS = 6;

    private BlockCacheShards() {}

    /** The shard bits RocksDB picks for {@code capacity} when asked for its default (-1). */
    public static int rocksDbDefaultBits(long capacity) {
        return bitsWithShardsOfAtLeast(capacity, ROCKSDB_MIN_SHARD_BYTES);
    }

    /**
     * The shard bits for a cache of {@code capacity} bytes whose shards are at least {@code
     * minShardBytes}, never more than {@link #rocksDbDefaultBits}; -1 (RocksDB decides, as stock)
     * when {@code minShardBytes} is 0.
     */
    public static int shardBits(long capacity, long minShardBytes) {
        if (minShardBytes <= 0) {
            return -1;
        }
        return Math.min(
                rocksDbDefaultBits(capacity),
                bitsWithShardsOfAtLeast(
                        capacity, Math.max(minShardBytes, ROCKSDB_MIN_SHARD_BYTES)));
    }

    private static int bitsWithShardsOfAtLeast(long capacity, long shardBytes) {
        int bits = 0;
        while (bits < ROCKSDB_MAX_SHARD_BITS && (capacity >> (bits + 1)) >= shardBytes) {
            bits++;
        }
        return bits;
    }

    /**
     * The slot's block cache as Flink creates it (no strict capacity limit, {@code
     * highPriorityPoolRatio} for index and filter blocks), with {@link #shardBits} shards, and logs
     * the {@code [FALCON]} line that says how it is split. The caller owns the cache.
     */
    public static Cache createSlotCache(
            long capacity, double highPriorityPoolRatio, long minShardBytes) {
        int bits = shardBits(capacity, minShardBytes);
        int effectiveBits = bits < 0 ? rocksDbDefaultBits(capacity) : bits;
        FalconLog.LOG.info(
                FalconLog.blockCacheLine(
                        capacity, 1 << effectiveBits, 1 << rocksDbDefaultBits(capacity)));
        return new LRUCache(capacity, bits, false, highPriorityPoolRatio);
    }
}
