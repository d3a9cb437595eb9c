/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

/**
 * A state's reused buffer for value bytes read from the cache or RocksDB. It only grows, by half
 * again what was needed, so a state whose values vary in size reallocates a few times at most.
 *
 * <p>Not thread-safe: the task thread of its state.
 */
final class ValueBuffer {

    private byte[] bytes;

    ValueBuffer(int initialBytes) {
        this.bytes = new byte[initialBytes];
    }

    /** The current array; valid until the next {@link #grow}. */
    byte[] bytes() {
        return bytes;
    }

    /** Replaces the array with one of at least {@code needed} bytes (contents not kept). */
    void grow(int needed) {
        bytes = new byte[Math.max(needed, 64) + (needed >> 1)];
    }
}
