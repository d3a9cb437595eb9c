/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

/**
 * How this Flink minor's {@code RocksDBMapState} serializes a user value, so that the cache writes
 * the same bytes. Flink 1.16 to 1.19: the stock MapState writes a null value's flag and then
 * whatever the value serializer writes for null (a serializer that cannot write null fails the
 * put).
 */
final class StockMapValueFormat {

    /** Whether the value serializer is called for a null value, after the null flag. */
    static final boolean SERIALIZES_NULL_VALUES = true;

    private StockMapValueFormat() {}
}
