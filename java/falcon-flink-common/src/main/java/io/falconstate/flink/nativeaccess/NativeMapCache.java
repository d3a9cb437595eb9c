/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

import javax.annotation.Nullable;

import java.nio.ByteBuffer;

/**
 * The MapState operations of a {@link NativeHotStateCache} ({@code include/falcon/map_cache.h}):
 * one cached entry per user map (every entry under one key group + key + namespace prefix),
 * complete, partial (a map over the cap: some of its records) or absent.
 *
 * <p>Bytes cross JNI through the cache's io buffer, as for ValueState: the map's prefix, then the
 * serialized user key (and a value) right after it; a value or a scan chunk comes back at the
 * start. Reads answer a value length or {@link #MISS} (load the map: scan RocksDB, then {@link
 * #load}), {@link #ABSENT} (cached, no such user key), {@link #BYPASS} or {@link #OVERSIZED}
 * (RocksDB answers, without loading; then {@link #fill}, and before a scan of RocksDB {@link
 * #writeBackPartial}). Writes answer {@link NativeHotStateCache}'s write bits: {@code
 * WRITE_NOT_CACHED} (the map is not cached: write RocksDB), {@code WRITE_PENDING} (drain).
 *
 * <p>Not thread-safe: the task thread that owns the cache.
 */
public final class NativeMapCache {

    public static final int MISS = NativeLayout.GET_MISS;
    public static final int ABSENT = NativeLayout.GET_ABSENT;
    public static final int BYPASS = NativeLayout.GET_BYPASS;
    public static final int OVERSIZED = NativeLayout.MAP_OVERSIZED;
    public static final int NEED_BUFFER = NativeLayout.GET_NEED_BUFFER;

    private final NativeHotStateCache cache;

    public NativeMapCache(NativeHotStateCache cache) {
        this.cache = cache;
    }

    /**
     * The value of {@code userKey} in the map of {@code prefix}: its length (copied into {@code
     * valueOut}), a code, or {@code NEED_BUFFER - size} when {@code valueOut} is too short.
     */
    public int get(
            int stateId,
            byte[] prefix,
            int prefixLength,
            byte[] userKey,
            int userKeyLength,
            byte[] valueOut) {
        int valueCapacity = valueOut.length;
        ByteBuffer b = in(prefix, prefixLength, userKey, userKeyLength, null, 0, 0);
        int result = nativeGet(cache.handle(), stateId, prefixLength, userKeyLength);
        if (result <= NEED_BUFFER) {
            b = in(prefix, prefixLength, userKey, userKeyLength, null, 0, NEED_BUFFER - result);
            result = nativeGet(cache.handle(), stateId, prefixLength, userKeyLength);
        }
        if (result >= 0) {
            if (result > valueCapacity) {
                return NEED_BUFFER - result;
            }
            b.clear();
            b.get(valueOut, 0, result);
        }
        return result;
    }

    /** 1: cached and empty; 0: cached with entries; else a code. */
    public int isEmpty(int stateId, byte[] prefix, int prefixLength) {
        in(prefix, prefixLength, null, 0, null, 0, 0);
        return nativeIsEmpty(cache.handle(), stateId, prefixLength);
    }

    /**
     * Copies the next packed records of a cached map (after {@code after[0, afterLength)}, or from
     * the first with {@code afterLength < 0}) into {@code chunk}. Returns the bytes, or a code;
     * {@link ScanChunk#records} and {@link ScanChunk#more} describe them. {@code first} counts an
     * access of the map.
     */
    public int scan(
            int stateId,
            byte[] prefix,
            int prefixLength,
            byte[] after,
            int afterLength,
            boolean first,
            ScanChunk chunk) {
        ByteBuffer b =
                in(prefix, prefixLength, after, Math.max(afterLength, 0), null, 0, chunk.want);
        int result = nativeScan(cache.handle(), stateId, prefixLength, afterLength, first);
        if (result <= NEED_BUFFER) {
            // One record larger than the buffer: grow it and ask again.
            int needed = NativeLayout.SCAN_HEADER_BYTES + NEED_BUFFER - result;
            b = in(prefix, prefixLength, after, Math.max(afterLength, 0), null, 0, needed);
            result = nativeScan(cache.handle(), stateId, prefixLength, afterLength, false);
        }
        if (result < 0) {
            return result;
        }
        b.clear();
        chunk.records = b.getInt(0);
        chunk.more = b.get(4) != 0;
        chunk.ensure(result);
        b.position(NativeLayout.SCAN_HEADER_BYTES);
        b.get(chunk.bytes, 0, result);
        chunk.length = result;
        return result;
    }

    /** Caches the map read from RocksDB ({@code count} packed records). Returns write bits. */
    public int load(
            int stateId,
            byte[] prefix,
            int prefixLength,
            byte[] packed,
            int packedLength,
            int count,
            long maxMapBytes) {
        in(prefix, prefixLength, null, 0, packed, packedLength, 0);
        return nativeLoad(cache.handle(), stateId, prefixLength, count, packedLength, maxMapBytes);
    }

    /**
     * A miss in one native call: caches the map read from RocksDB ({@code count} packed records),
     * as {@link #load}, then looks {@code userKey} up in it, as {@link #get} (only when the map got
     * cached; otherwise the answer is {@link #MISS}). Returns both: {@link #writeBits} and {@link
     * #answer} take them apart.
     */
    public long loadAndGet(
            int stateId,
            byte[] prefix,
            int prefixLength,
            byte[] userKey,
            int userKeyLength,
            byte[] packed,
            int packedLength,
            int count,
            long maxMapBytes,
            byte[] valueOut) {
        ByteBuffer b = in(prefix, prefixLength, userKey, userKeyLength, packed, packedLength, 0);
        long r =
                nativeLoadGet(
                        cache.handle(),
                        stateId,
                        prefixLength,
                        userKeyLength,
                        count,
                        packedLength,
                        maxMapBytes);
        int answer = (int) r;
        if (answer >= 0) {
            if (answer > valueOut.length) {
                answer = NEED_BUFFER - answer;
            } else {
                b.clear();
                b.get(valueOut, 0, answer);
            }
        }
        return (r & 0xFFFF_FFFF_0000_0000L) | (answer & 0xFFFF_FFFFL);
    }

    /** The write bits of a {@link #loadAndGet} result. */
    public static int writeBits(long loadAndGet) {
        return (int) (loadAndGet >>> 32);
    }

    /** The lookup's answer of a {@link #loadAndGet} result, as {@link #get} answers. */
    public static int answer(long loadAndGet) {
        return (int) loadAndGet;
    }

    /** Write-back put into a cached map. Returns write bits. */
    public int put(
            int stateId,
            byte[] prefix,
            int prefixLength,
            byte[] userKey,
            int userKeyLength,
            byte[] value,
            int valueLength,
            long maxMapBytes) {
        in(prefix, prefixLength, userKey, userKeyLength, value, valueLength, 0);
        return nativePut(
                cache.handle(), stateId, prefixLength, userKeyLength, valueLength, maxMapBytes);
    }

    /** Write-back delete from a cached map. Returns write bits. */
    public int remove(
            int stateId, byte[] prefix, int prefixLength, byte[] userKey, int userKeyLength) {
        in(prefix, prefixLength, userKey, userKeyLength, null, 0, 0);
        return nativeRemove(cache.handle(), stateId, prefixLength, userKeyLength);
    }

    /** Clears a cached map (tombstones for what RocksDB holds). Returns write bits. */
    public int clear(int stateId, byte[] prefix, int prefixLength) {
        in(prefix, prefixLength, null, 0, null, 0, 0);
        return nativeClear(cache.handle(), stateId, prefixLength);
    }

    /**
     * A map over the cap: what RocksDB holds for {@code userKey} ({@code valueLength} bytes of
     * {@code value}, or nothing when {@code value} is null) joins its partial body, clean. Returns
     * write bits; {@code WRITE_NOT_CACHED} (nothing changed) when the map has no partial body.
     */
    public int fill(
            int stateId,
            byte[] prefix,
            int prefixLength,
            byte[] userKey,
            int userKeyLength,
            @Nullable byte[] value,
            int valueLength,
            long maxMapBytes) {
        in(prefix, prefixLength, userKey, userKeyLength, value, value == null ? 0 : valueLength, 0);
        return nativeFill(
                cache.handle(),
                stateId,
                prefixLength,
                userKeyLength,
                value == null ? -1 : valueLength,
                maxMapBytes);
    }

    /**
     * A map over the cap: its dirty records are written back (drain the write bits), so RocksDB
     * holds the whole map before it is read there. Returns write bits.
     */
    public int writeBackPartial(int stateId, byte[] prefix, int prefixLength) {
        in(prefix, prefixLength, null, 0, null, 0, 0);
        return nativeWriteBackPartial(cache.handle(), stateId, prefixLength);
    }

    public MapCacheStats stats(int stateId) {
        long[] out = new long[NativeLayout.MAP_STATS_COUNT];
        nativeStats(cache.handle(), stateId, out);
        return new MapCacheStats(out);
    }

    /** Bytes the cache charges for a map with this prefix and these records. */
    public static long chargeFor(int prefixSize, int records, int keyAndValueBytes) {
        return nativeChargeFor(prefixSize, records, keyAndValueBytes);
    }

    /** Copies the parts into the io buffer (grown to at least {@code minCapacity}). */
    private ByteBuffer in(
            byte[] a, int aLength, byte[] b, int bLength, byte[] c, int cLength, int minCapacity) {
        checkLength(a, aLength);
        if (b != null) {
            checkLength(b, bLength);
        }
        if (c != null) {
            checkLength(c, cLength);
        }
        long total = (long) aLength + bLength + cLength;
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("falcon: map operation over 2 GB");
        }
        ByteBuffer io = cache.io(Math.max((int) total, minCapacity));
        io.clear();
        io.put(a, 0, aLength);
        if (b != null) {
            io.put(b, 0, bLength);
        }
        if (c != null) {
            io.put(c, 0, cLength);
        }
        return io;
    }

    private static void checkLength(byte[] array, int length) {
        if (length < 0 || length > array.length) {
            throw new IndexOutOfBoundsException(
                    "falcon: length " + length + " outside an array of " + array.length);
        }
    }

    /** A reusable scan chunk: packed records copied out of the io buffer. */
    public static final class ScanChunk {
        /** The io capacity to ask for: big enough for most maps in one chunk. */
        final int want;

        byte[] bytes;
        int length;
        int records;
        boolean more;

        public ScanChunk(int want) {
            this.want = want;
            this.bytes = new byte[Math.min(want, 4096)];
        }

        void ensure(int size) {
            if (bytes.length < size) {
                bytes = new byte[Math.max(size, bytes.length * 2)];
            }
        }

        public byte[] bytes() {
            return bytes;
        }

        public int length() {
            return length;
        }

        public int records() {
            return records;
        }

        public boolean more() {
            return more;
        }
    }

    private static native int nativeGet(long handle, int stateId, int prefixLength, int keyLength);

    private static native int nativeIsEmpty(long handle, int stateId, int prefixLength);

    private static native int nativeScan(
            long handle, int stateId, int prefixLength, int afterLength, boolean first);

    private static native int nativeLoad(
            long handle,
            int stateId,
            int prefixLength,
            int count,
            int packedLength,
            long maxMapBytes);

    private static native long nativeLoadGet(
            long handle,
            int stateId,
            int prefixLength,
            int keyLength,
            int count,
            int packedLength,
            long maxMapBytes);

    private static native int nativePut(
            long handle,
            int stateId,
            int prefixLength,
            int keyLength,
            int valueLength,
            long maxMapBytes);

    private static native int nativeRemove(
            long handle, int stateId, int prefixLength, int keyLength);

    private static native int nativeClear(long handle, int stateId, int prefixLength);

    private static native int nativeFill(
            long handle,
            int stateId,
            int prefixLength,
            int keyLength,
            int valueLength,
            long maxMapBytes);

    private static native int nativeWriteBackPartial(long handle, int stateId, int prefixLength);

    private static native void nativeStats(long handle, int stateId, long[] out);

    private static native long nativeChargeFor(int prefixSize, int records, int keyAndValueBytes);
}
