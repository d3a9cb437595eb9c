/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.apache.flink.runtime.state.IncrementalLocalKeyedStateHandle;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;

import javax.annotation.Nullable;

/**
 * The meta-data stream (the serialization proxy) of an incremental RocksDB handle, through the
 * accessors of Flink 1.16 to 1.18: one per handle class.
 */
final class IncrementalMetaData {

    private IncrementalMetaData() {}

    /** The handle's meta data, or null when it is not an incremental RocksDB handle. */
    @Nullable
    static StreamStateHandle of(KeyedStateHandle handle) {
        if (handle instanceof IncrementalRemoteKeyedStateHandle) {
            return ((IncrementalRemoteKeyedStateHandle) handle).getMetaStateHandle();
        }
        if (handle instanceof IncrementalLocalKeyedStateHandle) {
            return ((IncrementalLocalKeyedStateHandle) handle).getMetaDataState();
        }
        return null;
    }
}
