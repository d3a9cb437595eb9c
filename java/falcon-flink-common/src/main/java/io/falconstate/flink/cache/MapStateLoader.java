/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.apache.flink.util.FlinkRuntimeException;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

import javax.annotation.Nullable;

import java.util.Arrays;

/**
 * Reads whole user maps of one MapState from its RocksDB column family into the native map cache:
 * the miss path of {@link CachedMapState}. A map the state's {@link WrittenKeyFilter} has never
 * seen is cached empty without a seek; any other map is read by one seek and a scan of its prefix,
 * which stops once the map is over the cap (the cache then keeps an "oversized" marker).
 *
 * <p>Not thread-safe: the task thread, as its state. Owns one reused RocksDB iterator, closed by
 * {@link #closeIterator()} at every flush point, on a column family change and on release.
 */
final class MapStateLoader {

    private final HotStateCacheManager<?> manager;
    private final NativeMapCache maps;
    private final RocksDB db;
    private final int stateId;
    private final long maxMapBytes;

    /** The map prefixes the column family may hold, or null (no filter). */
    @Nullable private final WrittenKeyFilter writtenMaps;

    /** Where a stored key's map prefix ends: for the filter's scans of the column family. */
    private final MapKeyPrefix mapPrefix;

    private ColumnFamilyHandle columnFamily;
    private RocksIterator iterator;

    /** Packed records of the map being loaded (grown as needed, reused). */
    private byte[] packed = new byte[1024];

    MapStateLoader(
            HotStateCacheManager<?> manager,
            int stateId,
            long maxMapBytes,
            @Nullable WrittenKeyFilter writtenMaps,
            MapKeyPrefix mapPrefix) {
        this.manager = manager;
        this.maps = manager.maps();
        this.db = manager.db();
        this.stateId = stateId;
        this.maxMapBytes = maxMapBytes;
        this.writtenMaps = writtenMaps;
        this.mapPrefix = mapPrefix;
    }

    /** The column family to read from (after a re-registration); closes the reused iterator. */
    void setColumnFamily(ColumnFamilyHandle columnFamily) {
        closeIterator();
        this.columnFamily = columnFamily;
    }

    /**
     * Reads the whole map under {@code prefix} ({@code prefix.length} bytes) from RocksDB and
     * caches it. True when it is cached (false: over the cap, or the cache has no room).
     */
    boolean load(byte[] prefix) {
        int prefixLength = prefix.length;
        if (neverWritten(prefix)) {
            return cacheEmpty(prefix);
        }
        int length = 0;
        int count = 0;
        RocksIterator it = iterator();
        try {
            for (it.seek(prefix); it.isValid(); it.next()) {
                byte[] key = it.key();
                if (!MapRecordBytes.startsWith(key, prefix)) {
                    break;
                }
                byte[] value = it.value();
                length = appendPacked(length, key, prefixLength, key.length - prefixLength, value);
                count++;
                if (length > maxMapBytes) {
                    break; // over the cap whatever follows
                }
            }
            it.status();
        } catch (RocksDBException e) {
            closeIterator();
            throw new FlinkRuntimeException("[FALCON] reading a map from RocksDB failed", e);
        }
        int code = maps.load(stateId, prefix, prefixLength, packed, length, count, maxMapBytes);
        manager.afterWrite(code);
        return (code & NativeHotStateCache.WRITE_NOT_CACHED) == 0;
    }

    /** Caches the map under {@code prefix} as empty (it is known to be); true when cached. */
    boolean cacheEmpty(byte[] prefix) {
        int code = maps.load(stateId, prefix, prefix.length, packed, 0, 0, maxMapBytes);
        manager.afterWrite(code);
        return (code & NativeHotStateCache.WRITE_NOT_CACHED) == 0;
    }

    /**
     * True when the column family holds no key of the map {@code prefix}: the filter (built first
     * if it must be; no write-back is pending between two operations) has never seen it.
     */
    private boolean neverWritten(byte[] prefix) {
        if (writtenMaps == null) {
            return false;
        }
        if (writtenMaps.needsBuild()) {
            writtenMaps.build(db, columnFamily, mapPrefix);
        }
        return writtenMaps.knowsAbsent(prefix, prefix.length);
    }

    /**
     * The reused iterator: creating one per load costs more than the scan of a small map. Refreshed
     * before each load, so it sees everything written so far.
     */
    private RocksIterator iterator() {
        try {
            if (iterator == null) {
                iterator = db.newIterator(columnFamily, manager.readOptions());
            } else {
                iterator.refresh();
            }
            return iterator;
        } catch (RocksDBException e) {
            closeIterator();
            throw new FlinkRuntimeException("[FALCON] refreshing a RocksDB iterator failed", e);
        }
    }

    /** Closes the reused iterator, if any (idempotent), so it pins no memtable or SST file. */
    void closeIterator() {
        if (iterator != null) {
            iterator.close();
            iterator = null;
        }
    }

    private int appendPacked(int at, byte[] key, int keyOffset, int keyLength, byte[] value) {
        int size = NativeLayout.PACKED_HEADER_BYTES + keyLength + value.length;
        if (at + size > packed.length) {
            packed = Arrays.copyOf(packed, Math.max(at + size, packed.length * 2));
        }
        return MapRecordBytes.writePacked(
                packed, at, key, keyOffset, keyLength, value, 0, value.length);
    }
}
