/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import java.util.List;
import java.util.stream.Stream;

/**
 * {@code getKeys} over several states, which Flink 1.16 to 1.19 do not have: their keyed backend
 * interface has no such method, so nothing in these minors reaches this class.
 */
public final class FalconKeysOfStates {

    private FalconKeysOfStates() {}

    /** Always fails: this Flink minor has no multi-state {@code getKeys}. */
    public static <K, N> Stream<K> getKeys(
            RocksDBKeyedStateBackend<K> rocksDb, List<String> states, N namespace) {
        throw new UnsupportedOperationException(
                "getKeys over several states needs Flink 1.20 or later");
    }
}
