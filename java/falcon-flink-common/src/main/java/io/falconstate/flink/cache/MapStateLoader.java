/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.nativeaccess.NativeHotStateCache;
import io.falconstate.flink.nativeaccess.NativeLayout;
import io.falconstate.flink.nativeaccess.NativeMapCache;

import org.apache.flink.util.FlinkRuntimeException;

import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Reads whole user maps of one MapState from its RocksDB column family into the native map cache:
 * the miss path of {@link CachedMapState}. A map the state's {@link WrittenKeyFilter} has never
 * seen is cached empty without a seek; any other map is read by one seek and a scan of its prefix,
 * which stops once the map is over the cap (the cache then keeps a partial body).
 *
 * <p>A read that missed loads the map and gets its answer in the same native call ({@link
 * #loadAndGet}). The scan reads keys and values into reused direct buffers and packs them into a
 * reused array: a load allocates nothing once the buffers have grown to the largest map.
 *
 * <p>Not thread-safe: the task thread, as its state. Owns one reused RocksDB iterator, closed by
 * {@link #closeIterator()} at every flush point, on a re-registration and on release.
 */
final class MapStateLoader {

    private final HotStateCacheManager<?> manager;
    private final NativeMapCache maps;
    private final int stateId;
    private final long maxMapBytes;
    private final StateColumnFamily column;
    private RocksIterator iterator;

    /** Packed records of the map being loaded (grown as needed, reused), and a view of it. */
    private byte[] packed = new byte[1024];

    private ByteBuffer packedView = view(packed);

    /** The seek target, then each stored key the scan reads (direct: RocksJava copies into it). */
    private ByteBuffer keyBuffer = ByteBuffer.allocateDirect(256);

    /** Each stored value the scan reads. */
    private ByteBuffer valueBuffer = ByteBuffer.allocateDirect(1024);

    /** Records and bytes {@link #scan} packed. */
    private int packedCount;

    private int packedLength;

    MapStateLoader(
            HotStateCacheManager<?> manager,
            int stateId,
            long maxMapBytes,
            StateColumnFamily column) {
        this.manager = manager;
        this.maps = manager.maps();
        this.stateId = stateId;
        this.maxMapBytes = maxMapBytes;
        this.column = column;
    }

    /**
     * Reads the whole map under {@code prefix[0, prefixLength)} from RocksDB and caches it. True
     * when it is cached (false: over the cap, or the cache has no room).
     */
    boolean load(byte[] prefix, int prefixLength) {
        scan(prefix, prefixLength);
        int code =
                maps.load(
                        stateId,
                        prefix,
                        prefixLength,
                        packed,
                        packedLength,
                        packedCount,
                        maxMapBytes);
        manager.afterWrite(code);
        return (code & NativeHotStateCache.WRITE_NOT_CACHED) == 0;
    }

    /**
     * As {@link #load}, then the value of {@code userKey[0, userKeyLength)} in the map, in one
     * native call: its length (the bytes in {@code into}), {@link NativeMapCache#ABSENT}, {@link
     * NativeMapCache#MISS} when the map did not get cached, another code, or {@code NEED_BUFFER -
     * size} when {@code into} is too short.
     */
    int loadAndGet(
            byte[] prefix, int prefixLength, byte[] userKey, int userKeyLength, ValueBuffer into) {
        scan(prefix, prefixLength);
        long result =
                maps.loadAndGet(
                        stateId,
                        prefix,
                        prefixLength,
                        userKey,
                        userKeyLength,
                        packed,
                        packedLength,
                        packedCount,
                        maxMapBytes,
                        into.bytes());
        manager.afterWrite(NativeMapCache.writeBits(result));
        return NativeMapCache.answer(result);
    }

    /** Caches the map under {@code prefix} as empty (it is known to be); true when cached. */
    boolean cacheEmpty(byte[] prefix) {
        int code = maps.load(stateId, prefix, prefix.length, packed, 0, 0, maxMapBytes);
        manager.afterWrite(code);
        return (code & NativeHotStateCache.WRITE_NOT_CACHED) == 0;
    }

    /**
     * Packs the map under {@code prefix[0, prefixLength)} as RocksDB holds it into {@link #packed}:
     * nothing when the written-key filter knows it was never written; else its records up to the
     * first one past the cap (the cache then keeps a partial body whatever follows).
     */
    private void scan(byte[] prefix, int prefixLength) {
        packedCount = 0;
        packedLength = 0;
        if (column.neverWritten(prefix, prefixLength)) {
            return;
        }
        RocksIterator it = iterator();
        try {
            keyBuffer = fit(keyBuffer, prefixLength);
            keyBuffer.clear();
            keyBuffer.put(prefix, 0, prefixLength).flip();
            for (it.seek(keyBuffer); it.isValid(); it.next()) {
                int keySize = readKey(it);
                if (!startsWith(keyBuffer, keySize, prefix, prefixLength)) {
                    break;
                }
                int valueSize = readValue(it);
                append(prefixLength, keySize - prefixLength, valueSize);
                if (packedLength > maxMapBytes) {
                    break; // over the cap whatever follows
                }
            }
            it.status();
        } catch (RocksDBException e) {
            closeIterator();
            throw new FlinkRuntimeException("[FALCON] reading a map from RocksDB failed", e);
        }
    }

    /** The iterator's key into {@link #keyBuffer} (grown when it does not fit): its size. */
    private int readKey(RocksIterator it) {
        keyBuffer.clear();
        int size = it.key(keyBuffer);
        if (size > keyBuffer.capacity()) {
            keyBuffer = fit(keyBuffer, size);
            keyBuffer.clear();
            it.key(keyBuffer);
        }
        return size;
    }

    /** The iterator's value into {@link #valueBuffer} (grown when it does not fit): its size. */
    private int readValue(RocksIterator it) {
        valueBuffer.clear();
        int size = it.value(valueBuffer);
        if (size > valueBuffer.capacity()) {
            valueBuffer = fit(valueBuffer, size);
            valueBuffer.clear();
            it.value(valueBuffer);
        }
        return size;
    }

    /** Appends the record in the key and value buffers (the user key after the prefix). */
    private void append(int prefixLength, int userKeyLength, int valueSize) {
        int at = packedLength;
        int end = at + NativeLayout.PACKED_HEADER_BYTES + userKeyLength + valueSize;
        if (end > packed.length) {
            packed = Arrays.copyOf(packed, Math.max(end, packed.length * 2));
            packedView = view(packed);
        }
        packedView.putShort(at, (short) userKeyLength);
        packedView.putInt(at + 2, valueSize);
        int keyAt = at + NativeLayout.PACKED_HEADER_BYTES;
        keyBuffer.position(prefixLength);
        keyBuffer.get(packed, keyAt, userKeyLength);
        valueBuffer.position(0);
        valueBuffer.get(packed, keyAt + userKeyLength, valueSize);
        packedLength = end;
        packedCount++;
    }

    private static boolean startsWith(
            ByteBuffer key, int keySize, byte[] prefix, int prefixLength) {
        if (keySize < prefixLength) {
            return false;
        }
        for (int i = 0; i < prefixLength; i++) {
            if (key.get(i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** {@code buffer}, or a larger direct one when it holds fewer than {@code bytes}. */
    private static ByteBuffer fit(ByteBuffer buffer, int bytes) {
        return buffer.capacity() >= bytes
                ? buffer
                : ByteBuffer.allocateDirect(Math.max(bytes, buffer.capacity() * 2));
    }

    private static ByteBuffer view(byte[] array) {
        return ByteBuffer.wrap(array).order(ByteOrder.nativeOrder());
    }

    /**
     * The reused iterator: creating one per load costs more than the scan of a small map. Refreshed
     * before each load, so it sees everything written so far.
     */
    private RocksIterator iterator() {
        try {
            if (iterator == null) {
                iterator = column.newIterator();
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
}
