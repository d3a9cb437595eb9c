/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import io.falconstate.flink.tuning.BlockCacheShards;

import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;
import org.apache.flink.util.function.LongFunctionWithException;

import org.rocksdb.Cache;
import org.rocksdb.WriteBufferManager;
import org.slf4j.Logger;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * The slot's shared RocksDB block cache and write-buffer manager, reserved (or joined) as the stock
 * backend of Flink 1.16 reserves them: from the slot's managed memory, or the fixed size per slot,
 * under Flink's resource ids and with Flink's sizes. Only the block cache's shard count is Falcon's
 * ({@link BlockCacheShards}); with {@code minShardBytes == 0} Flink's own allocation runs. The one
 * call of {@link FalconRocksDBBackendBuilder} whose signature changes in Flink 1.17.
 */
final class FalconSharedRocksDBMemory {

    /** Flink 1.16's resource ids ({@code RocksDBOperationUtils}), shared with stock backends. */
    private static final String MANAGED_MEMORY_RESOURCE_ID = "state-rocks-managed-memory";

    private static final String FIXED_SLOT_MEMORY_RESOURCE_ID = "state-rocks-fixed-slot-memory";

    private FalconSharedRocksDBMemory() {}

    @Nullable
    static OpaqueMemoryResource<RocksDBSharedResources> allocate(
            RocksDBMemoryConfiguration memoryConfiguration,
            Environment env,
            double rocksDbFraction,
            long minShardBytes,
            Logger logger)
            throws IOException {
        MemoryManager memoryManager = env.getMemoryManager();
        if (minShardBytes <= 0) {
            return RocksDBOperationUtils.allocateSharedCachesIfConfigured(
                    memoryConfiguration, memoryManager, rocksDbFraction, logger);
        }
        if (!memoryConfiguration.isUsingFixedMemoryPerSlot()
                && !memoryConfiguration.isUsingManagedMemory()) {
            return null;
        }
        double highPriorityPoolRatio = memoryConfiguration.getHighPriorityPoolRatio();
        double writeBufferRatio = memoryConfiguration.getWriteBufferRatio();
        boolean partitionedIndexFilters = memoryConfiguration.isUsingPartitionedIndexFilters();
        LongFunctionWithException<RocksDBSharedResources, Exception> allocator =
                size -> {
                    long cacheCapacity =
                            RocksDBMemoryControllerUtils.calculateActualCacheCapacity(
                                    size, writeBufferRatio);
                    long writeBufferManagerCapacity =
                            RocksDBMemoryControllerUtils.calculateWriteBufferManagerCapacity(
                                    size, writeBufferRatio);
                    Cache cache =
                            BlockCacheShards.createSlotCache(
                                    cacheCapacity, highPriorityPoolRatio, minShardBytes);
                    return new RocksDBSharedResources(
                            cache,
                            new WriteBufferManager(writeBufferManagerCapacity, cache),
                            writeBufferManagerCapacity,
                            partitionedIndexFilters);
                };
        try {
            if (memoryConfiguration.isUsingFixedMemoryPerSlot()) {
                logger.info("Getting fixed-size shared cache for RocksDB.");
                return memoryManager.getExternalSharedMemoryResource(
                        FIXED_SLOT_MEMORY_RESOURCE_ID,
                        allocator,
                        memoryConfiguration.getFixedMemoryPerSlot().getBytes());
            }
            logger.info("Getting managed memory shared cache for RocksDB.");
            return memoryManager.getSharedMemoryResourceForManagedMemory(
                    MANAGED_MEMORY_RESOURCE_ID, allocator, rocksDbFraction);
        } catch (Exception e) {
            throw new IOException("Failed to acquire shared cache resource for RocksDB", e);
        }
    }
}
