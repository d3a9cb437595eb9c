/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import io.falconstate.flink.tuning.BlockCacheShards;

import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;

import org.rocksdb.Cache;
import org.rocksdb.WriteBufferManager;
import org.slf4j.Logger;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * The shared RocksDB block cache and write-buffer manager, reserved (or joined) as the stock
 * backend of Flink 1.17 and later reserves them: per slot from managed memory or the fixed size per
 * slot, or per TaskManager from {@code state.backend.rocksdb.memory.fixed-per-tm}. A slot's cache
 * gets Falcon's shard count ({@link BlockCacheShards}) through Flink's memory factory; a
 * TaskManager's cache, or {@code minShardBytes == 0}, Flink's default factory.
 */
final class FalconSharedRocksDBMemory {

    private FalconSharedRocksDBMemory() {}

    @Nullable
    static OpaqueMemoryResource<RocksDBSharedResources> allocate(
            RocksDBMemoryConfiguration memoryConfiguration,
            Environment env,
            double rocksDbFraction,
            long minShardBytes,
            Logger logger)
            throws IOException {
        RocksDBSharedResourcesFactory scope =
                RocksDBSharedResourcesFactory.from(memoryConfiguration, env);
        boolean slotCache =
                scope == RocksDBSharedResourcesFactory.SLOT_SHARED_MANAGED
                        || scope == RocksDBSharedResourcesFactory.SLOT_SHARED_UNMANAGED;
        return RocksDBOperationUtils.allocateSharedCachesIfConfigured(
                memoryConfiguration,
                env,
                rocksDbFraction,
                logger,
                slotCache && minShardBytes > 0
                        ? new SlotCacheFactory(minShardBytes)
                        : RocksDBMemoryControllerUtils.RocksDBMemoryFactory.DEFAULT);
    }

    /** Flink's default factory with the block cache's shards from {@link BlockCacheShards}. */
    private static final class SlotCacheFactory
            implements RocksDBMemoryControllerUtils.RocksDBMemoryFactory {

        private static final long serialVersionUID = 1L;

        private final long minShardBytes;

        SlotCacheFactory(long minShardBytes) {
            this.minShardBytes = minShardBytes;
        }

        @Override
        public Cache createCache(long cacheCapacity, double highPriorityPoolRatio) {
            return BlockCacheShards.createSlotCache(
                    cacheCapacity, highPriorityPoolRatio, minShardBytes);
        }

        @Override
        public WriteBufferManager createWriteBufferManager(
                long writeBufferManagerCapacity, Cache cache) {
            return new WriteBufferManager(writeBufferManagerCapacity, cache);
        }
    }
}
