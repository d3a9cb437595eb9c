/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.apache.flink.util.FlinkRuntimeException;

import java.util.Map;
import java.util.Objects;

/** One entry handed out by an iterator: raw bytes, deserialized lazily. */
final class CachedMapEntry<UK, UV> implements Map.Entry<UK, UV> {
    private final CachedMapState<?, ?, UK, UV> state;
    private final byte[] prefix;
    final byte[] userKeyBytes;
    private byte[] valueBytes;
    private UK userKey;
    private UV userValue;
    private boolean valueRead;
    boolean deleted;

    CachedMapEntry(
            CachedMapState<?, ?, UK, UV> state,
            byte[] prefix,
            byte[] userKeyBytes,
            byte[] valueBytes) {
        this.state = state;
        this.prefix = prefix;
        this.userKeyBytes = userKeyBytes;
        this.valueBytes = valueBytes;
    }

    @Override
    public UK getKey() {
        if (userKey == null) {
            userKey = state.deserializeKey(userKeyBytes, 0, userKeyBytes.length);
        }
        return userKey;
    }

    @Override
    public UV getValue() {
        if (deleted) {
            return null;
        }
        if (!valueRead) {
            userValue = state.deserializeValue(valueBytes, 0, valueBytes.length);
            valueRead = true;
        }
        return userValue;
    }

    @Override
    public UV setValue(UV value) {
        if (deleted) {
            throw new IllegalStateException("The value has already been deleted.");
        }
        UV oldValue = getValue();
        try {
            state.putRaw(prefix, userKeyBytes, value);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Error while putting data into RocksDB.", e);
        }
        userValue = value;
        valueRead = true;
        return oldValue;
    }

    /** As {@link Map.Entry} specifies: equal key and value, compared as objects. */
    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof Map.Entry)) {
            return false;
        }
        Map.Entry<?, ?> entry = (Map.Entry<?, ?>) other;
        return Objects.equals(getKey(), entry.getKey())
                && Objects.equals(getValue(), entry.getValue());
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(getKey()) ^ Objects.hashCode(getValue());
    }

    @Override
    public String toString() {
        return getKey() + "=" + getValue();
    }

    void remove() {
        deleted = true;
        valueBytes = null;
        try {
            state.removeRaw(prefix, userKeyBytes);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Error while removing data from RocksDB.", e);
        }
    }
}
