/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package org.apache.flink.contrib.streaming.state;

import java.util.List;
import java.util.stream.Stream;

/**
 * {@code getKeys} over several states (Flink 1.20's {@code KeyedStateBackend#getKeys(List,
 * Object)}), answered by the stock RocksDB keyed backend.
 */
public final class FalconKeysOfStates {

    private FalconKeysOfStates() {}

    /** The stock backend's keys in any of {@code states} under {@code namespace}. */
    public static <K, N> Stream<K> getKeys(
            RocksDBKeyedStateBackend<K> rocksDb, List<String> states, N namespace) {
        return rocksDb.getKeys(states, namespace);
    }
}
