/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.nativeaccess.NativeLayout;
import io.falconstate.flink.nativeaccess.NativeMapCache;

import org.apache.flink.contrib.streaming.state.RocksIteratorWrapper;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.function.Function;

/**
 * Iterates one map in chunks: from the cache while the map is cached (loading it first), from
 * RocksDB (Flink's own iteration, {@value #ROCKSDB_CHUNK_RECORDS} entries at a time) while it is
 * not. Each chunk starts after the last key handed out, so a map evicted or grown over the cap
 * between chunks is followed where it is.
 */
final class CachedMapIterator<UK, UV, T> implements Iterator<T> {

    /** Records per chunk when iterating a map in RocksDB (as Flink's iterator). */
    private static final int ROCKSDB_CHUNK_RECORDS = 128;

    private final CachedMapState<?, ?, UK, UV> state;
    private final Function<CachedMapEntry<UK, UV>, T> item;
    private final byte[] prefix;
    private final ArrayList<CachedMapEntry<UK, UV>> entries = new ArrayList<>();
    private int count;
    private int index;
    private boolean started;
    private boolean more = true;
    private byte[] lastKey;
    private CachedMapEntry<UK, UV> current;

    CachedMapIterator(
            CachedMapState<?, ?, UK, UV> state,
            byte[] prefix,
            Function<CachedMapEntry<UK, UV>, T> item) {
        this.state = state;
        this.prefix = prefix;
        this.item = item;
    }

    @Override
    public boolean hasNext() {
        if (index < count) {
            return true;
        }
        if (!more) {
            return false;
        }
        fetch();
        return index < count;
    }

    @Override
    public T next() {
        if (!hasNext()) {
            return null; // as Flink's RocksDB map iterator
        }
        current = entries.get(index++);
        lastKey = current.userKeyBytes;
        return item.apply(current);
    }

    @Override
    public void remove() {
        if (current == null || current.deleted) {
            throw new IllegalStateException(
                    "The remove operation must be called after a valid next operation.");
        }
        current.remove();
    }

    private void fetch() {
        boolean first = !started;
        started = true;
        int afterLength = lastKey == null ? -1 : lastKey.length;
        byte[] after = lastKey == null ? new byte[0] : lastKey;
        int result = state.scan(prefix, after, afterLength, first);
        if (result == NativeMapCache.MISS && state.load(prefix, prefix.length)) {
            result = state.scan(prefix, after, afterLength, false);
        }
        if (result >= 0) {
            NativeMapCache.ScanChunk chunk = state.chunk();
            fromChunk(chunk.bytes(), chunk.length(), chunk.records());
            more = chunk.more();
        } else {
            if (result == NativeMapCache.OVERSIZED) {
                // Each chunk sees the map's writes so far, as Flink's iterator does.
                state.writeBackPartial(prefix, prefix.length);
            }
            fromRocksDb();
        }
    }

    private void fromChunk(byte[] bytes, int length, int records) {
        entries.clear();
        java.nio.ByteBuffer b =
                java.nio.ByteBuffer.wrap(bytes, 0, length).order(java.nio.ByteOrder.nativeOrder());
        int at = 0;
        for (int i = 0; i < records; i++) {
            int keyLength = b.getShort(at) & 0xFFFF;
            int valueLength = b.getInt(at + 2);
            int keyAt = at + NativeLayout.PACKED_HEADER_BYTES;
            entries.add(
                    new CachedMapEntry<>(
                            state,
                            prefix,
                            Arrays.copyOfRange(bytes, keyAt, keyAt + keyLength),
                            Arrays.copyOfRange(
                                    bytes, keyAt + keyLength, keyAt + keyLength + valueLength)));
            at = keyAt + keyLength + valueLength;
        }
        count = records;
        index = 0;
    }

    /** The next chunk from RocksDB, after {@link #lastKey}. */
    private void fromRocksDb() {
        byte[] start = lastKey == null ? prefix : MapRecordBytes.concat(prefix, lastKey);
        entries.clear();
        int n = 0;
        more = false;
        try (RocksIteratorWrapper it = state.rocksIterator()) {
            it.seek(start);
            if (lastKey != null && it.isValid() && Arrays.equals(it.key(), start)) {
                it.next();
            }
            for (; it.isValid(); it.next()) {
                byte[] key = it.key();
                if (!MapRecordBytes.startsWith(key, prefix)) {
                    break;
                }
                if (n == ROCKSDB_CHUNK_RECORDS) {
                    more = true;
                    break;
                }
                entries.add(
                        new CachedMapEntry<>(
                                state,
                                prefix,
                                Arrays.copyOfRange(key, prefix.length, key.length),
                                it.value()));
                n++;
            }
        }
        count = n;
        index = 0;
    }
}
