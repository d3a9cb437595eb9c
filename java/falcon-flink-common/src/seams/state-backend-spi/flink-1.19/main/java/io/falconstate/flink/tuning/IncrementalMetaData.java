/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.apache.flink.runtime.state.IncrementalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StreamStateHandle;

import javax.annotation.Nullable;

/**
 * The meta-data stream (the serialization proxy) of an incremental RocksDB handle, through the one
 * accessor local and remote handles share since Flink 1.19.
 */
final class IncrementalMetaData {

    private IncrementalMetaData() {}

    /** The handle's meta data, or null when it is not an incremental RocksDB handle. */
    @Nullable
    static StreamStateHandle of(KeyedStateHandle handle) {
        if (handle instanceof IncrementalKeyedStateHandle) {
            return ((IncrementalKeyedStateHandle) handle).getMetaDataStateHandle();
        }
        return null;
    }
}
