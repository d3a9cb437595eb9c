/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

/**
 * How this Flink minor's {@code RocksDBMapState} serializes a user value, so that the cache writes
 * the same bytes. Flink 1.20 and later: the stock MapState writes a null value as its flag alone;
 * the value serializer is not asked to write null.
 */
final class StockMapValueFormat {

    /** Whether the value serializer is called for a null value, after the null flag. */
    static final boolean SERIALIZES_NULL_VALUES = false;

    private StockMapValueFormat() {}
}
