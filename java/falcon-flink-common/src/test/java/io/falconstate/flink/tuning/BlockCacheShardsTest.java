/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BlockCacheShardsTest {

    private static final long MB = 1L << 20;

    @Test
    void rocksDbsDefaultIsShardsOfAtLeastHalfAMegabyteUpToSixtyFour() {
        assertThat(BlockCacheShards.rocksDbDefaultBits(256 * 1024)).isZero();
        assertThat(BlockCacheShards.rocksDbDefaultBits(MB)).isEqualTo(1);
        assertThat(BlockCacheShards.rocksDbDefaultBits(4 * MB)).isEqualTo(3);
        assertThat(BlockCacheShards.rocksDbDefaultBits(32 * MB)).isEqualTo(6);
        assertThat(BlockCacheShards.rocksDbDefaultBits(192 * MB)).isEqualTo(6);
    }

    @Test
    void shardsAreAtLeastTheMinimumAndAPowerOfTwo() {
        long slotCache = 384 * MB;
        int bits = BlockCacheShards.shardBits(slotCache, 16 * MB);
        assertThat(bits).isEqualTo(4);
        assertThat(slotCache >> bits).isGreaterThanOrEqualTo(16 * MB);
        assertThat(slotCache >> (bits + 1)).isLessThan(16 * MB);

        assertThat(BlockCacheShards.shardBits(192 * MB, 16 * MB)).isEqualTo(3);
        assertThat(BlockCacheShards.shardBits(31 * MB, 16 * MB)).isZero();
        assertThat(BlockCacheShards.shardBits(32 * MB, 16 * MB)).isEqualTo(1);
    }

    @Test
    void neverMoreShardsThanRocksDbWouldMake() {
        assertThat(BlockCacheShards.shardBits(64L << 30, 16 * MB)).isEqualTo(6);
        // A minimum under RocksDB's own 512 KiB changes nothing.
        assertThat(BlockCacheShards.shardBits(4 * MB, 1024))
                .isEqualTo(BlockCacheShards.rocksDbDefaultBits(4 * MB));
    }

    @Test
    void zeroLeavesTheShardsToRocksDb() {
        assertThat(BlockCacheShards.shardBits(192 * MB, 0)).isEqualTo(-1);
    }
}
