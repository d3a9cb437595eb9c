/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;

import org.slf4j.Logger;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * The shared RocksDB block cache and write-buffer manager, reserved (or joined) as the stock
 * backend of Flink 1.17 and later reserves them: per slot from managed memory or the fixed size per
 * slot, or per TaskManager from {@code state.backend.rocksdb.memory.fixed-per-tm}. Flink's default
 * memory factory, as the stock backend uses unless a test sets another.
 */
final class FalconSharedRocksDBMemory {

    private FalconSharedRocksDBMemory() {}

    @Nullable
    static OpaqueMemoryResource<RocksDBSharedResources> allocate(
            RocksDBMemoryConfiguration memoryConfiguration,
            Environment env,
            double rocksDbFraction,
            Logger logger)
            throws IOException {
        return RocksDBOperationUtils.allocateSharedCachesIfConfigured(
                memoryConfiguration,
                env,
                rocksDbFraction,
                logger,
                RocksDBMemoryControllerUtils.RocksDBMemoryFactory.DEFAULT);
    }
}
