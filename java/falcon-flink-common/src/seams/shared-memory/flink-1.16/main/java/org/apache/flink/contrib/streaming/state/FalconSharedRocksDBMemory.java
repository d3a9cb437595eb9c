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
 * The slot's shared RocksDB block cache and write-buffer manager, reserved (or joined) as the stock
 * backend of Flink 1.16 reserves them: from the slot's managed memory, or the fixed size per slot.
 * The one call of {@link FalconRocksDBBackendBuilder} whose signature changes in Flink 1.17.
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
                memoryConfiguration, env.getMemoryManager(), rocksDbFraction, logger);
    }
}
