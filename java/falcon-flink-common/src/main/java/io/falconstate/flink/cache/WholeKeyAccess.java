/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.nativeaccess.NativeHotStateCache;

/**
 * The cache-then-RocksDB paths of a state whose cache entries are whole RocksDB values (a
 * ValueState's value, a ListState's list): a read that fills the cache on a miss, a put, and a
 * delete, each honouring the state's written-key filter and the write-back invariant ({@link
 * HotStateCacheManager#afterWrite}).
 *
 * <p>Not thread-safe: the task thread of its state.
 */
final class WholeKeyAccess {

    private final HotStateCacheManager<?> manager;
    private final NativeHotStateCache cache;
    private final int stateId;
    private final StateColumnFamily column;

    WholeKeyAccess(HotStateCacheManager<?> manager, int stateId, StateColumnFamily column) {
        this.manager = manager;
        this.cache = manager.cache();
        this.stateId = stateId;
        this.column = column;
    }

    /**
     * The value of {@code key[0, keyLength)} into {@code into} (grown as needed): its size, or -1
     * when there is none. A miss reads RocksDB once and caches what it found -- unless the
     * written-key filter has never seen the key: such reads (a window's slices nobody wrote) are
     * answered without RocksDB and not cached, or they would push the written entries out.
     */
    int read(byte[] key, int keyLength, ValueBuffer into) {
        int result = cache.get(stateId, key, keyLength, into.bytes());
        if (result <= NativeHotStateCache.NEED_BUFFER) {
            into.grow(NativeHotStateCache.NEED_BUFFER - result);
            result = cache.get(stateId, key, keyLength, into.bytes());
        }
        if (result >= 0) {
            return result;
        }
        // MISS or BYPASS: RocksDB has the truth, unless it never saw the key.
        if (result == NativeHotStateCache.ABSENT || column.neverWritten(key, keyLength)) {
            return -1;
        }
        int size = column.get(key, keyLength, into);
        if (result == NativeHotStateCache.MISS) {
            int code =
                    size < 0
                            ? cache.fill(stateId, key, keyLength, null, 0)
                            : cache.fill(stateId, key, keyLength, into.bytes(), size);
            manager.afterWrite(code);
        }
        return size;
    }

    /** A write-back put; a value the cache cannot hold goes to RocksDB now. */
    void put(byte[] key, int keyLength, byte[] value, int valueLength) {
        int code = cache.put(stateId, key, keyLength, value, valueLength);
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) != 0) {
            column.put(key, keyLength, keyLength, value, valueLength);
        }
        manager.afterWrite(code);
    }

    /** A write-back delete; none at all for a key RocksDB never got (a fired window's, mostly). */
    void remove(byte[] key, int keyLength) {
        int code =
                column.neverWritten(key, keyLength)
                        ? cache.removeNotInDb(stateId, key, keyLength)
                        : cache.remove(stateId, key, keyLength);
        if ((code & NativeHotStateCache.WRITE_NOT_CACHED) != 0) {
            column.delete(key, keyLength);
        }
        manager.afterWrite(code);
    }
}
