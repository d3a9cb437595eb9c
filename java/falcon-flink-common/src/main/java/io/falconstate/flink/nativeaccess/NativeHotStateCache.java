/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Owner of one native {@code falcon::HotStateCache} (one per keyed subtask) and the Java face of
 * its JNI binding.
 *
 * <p>Hot path: {@link #get}, {@link #put}, {@link #remove} and {@link #fill} take the key in a byte
 * array the caller reuses (only the first {@code keyLength} bytes count) and {@link #get} copies a
 * hit into the caller's reused value array, so nothing is allocated on either side of the JNI
 * boundary. Bytes cross the boundary through one direct "io" buffer per cache whose address the
 * native side keeps from {@link #nativeAttachIo}: the key (and a written value after it) is copied
 * in with plain memory stores, a hit comes back at its start, and the native method gets only
 * lengths. So a hot call is one native call and no JNI function call (no array pinning or region
 * copies on the native side); the buffer grows (and is attached again) only when a key plus value
 * does not fit.
 *
 * <p>Write-backs: the write calls return a code whose {@link #WRITE_PENDING} bit says that dirty
 * entries (eviction victims, or everything {@link #flush} emitted) wait in a native buffer; the
 * caller then calls {@link #drain} until it returns 0 and writes the records into RocksDB before
 * its next cache call, so RocksDB is never older than what the cache has let go of.
 *
 * <p>Not thread-safe: one task thread owns it, including {@link #close()}, which is idempotent and
 * releases the native memory; any call after close throws {@link IllegalStateException}.
 */
public final class NativeHotStateCache implements AutoCloseable {

    /** {@link #get}: not cached; read RocksDB, then {@link #fill}. */
    public static final int MISS = NativeLayout.GET_MISS;

    /** {@link #get}: cached as absent (tombstone or known absent): RocksDB must not be read. */
    public static final int ABSENT = NativeLayout.GET_ABSENT;

    /** {@link #get}: the key cannot be cached (over a limit); read RocksDB and do not fill. */
    public static final int BYPASS = NativeLayout.GET_BYPASS;

    /** {@link #get}: a hit of {@code NEED_BUFFER - result} bytes that does not fit the array. */
    public static final int NEED_BUFFER = NativeLayout.GET_NEED_BUFFER;

    /** Write calls: the cache did not take it; the caller writes RocksDB itself. */
    public static final int WRITE_NOT_CACHED = NativeLayout.WRITE_NOT_CACHED;

    /** Write calls: write-back records wait; call {@link #drain} until it returns 0. */
    public static final int WRITE_PENDING = NativeLayout.WRITE_PENDING;

    public static final int POLICY_W_TINY_LFU = NativeLayout.POLICY_W_TINY_LFU;
    public static final int POLICY_LRU = NativeLayout.POLICY_LRU;

    /** First capacity of the io buffer; it grows to the largest key + value seen. */
    static final int INITIAL_IO_BYTES = 4096;

    private long handle;

    /** The attached io buffer (native order), kept reachable while attached. */
    private ByteBuffer io;

    /** Creates a cache as {@code options} say. Requires the native library to be loaded. */
    public NativeHotStateCache(NativeCacheOptions options) {
        this.handle =
                nativeCreate(
                        options.policy(),
                        options.maxBytes(),
                        options.maxEntries(),
                        options.leaseHandle(),
                        options.dirtyCapBytes(),
                        options.dirtyLowWaterBytes(),
                        options.hugePages());
        try {
            attachIo(INITIAL_IO_BYTES);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Looks {@code key[0, keyLength)} up. Returns the value's length (copied into {@code
     * valueOut}), {@link #MISS}, {@link #ABSENT}, {@link #BYPASS}, or {@code NEED_BUFFER - size}
     * when {@code valueOut} is shorter than the value.
     */
    public int get(int stateId, byte[] key, int keyLength, byte[] valueOut) {
        int valueCapacity = valueOut.length; // NullPointerException before any native call
        ByteBuffer b = keyIn(key, keyLength);
        int result = nativeGet(handle, stateId, keyLength);
        if (result <= NEED_BUFFER) {
            // The value is larger than the io buffer: grow it and look again.
            b = keyIn(key, keyLength, NEED_BUFFER - result);
            result = nativeGet(handle, stateId, keyLength);
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

    /** Write-back update (dirty). Returns {@link #WRITE_NOT_CACHED}/{@link #WRITE_PENDING} bits. */
    public int put(int stateId, byte[] key, int keyLength, byte[] value, int valueLength) {
        keyAndValueIn(key, keyLength, value, valueLength);
        return nativePut(handle, stateId, keyLength, valueLength);
    }

    /** Write-back delete (dirty tombstone). Returns the write bits. */
    public int remove(int stateId, byte[] key, int keyLength) {
        keyIn(key, keyLength);
        return nativeRemove(handle, stateId, keyLength);
    }

    /**
     * Delete of a key RocksDB does not hold (its state's written-key filter has never seen it):
     * drops the cached entry, dirty or clean, and writes nothing back. Returns the write bits.
     */
    public int removeNotInDb(int stateId, byte[] key, int keyLength) {
        keyIn(key, keyLength);
        return nativeRemoveNotInDb(handle, stateId, keyLength);
    }

    /**
     * A ListState's append: {@code element} joins the cached list after {@code delimiter}, dirty.
     * {@link #WRITE_NOT_CACHED} when the key is not cached (nothing changed) or the list would grow
     * past {@code maxListBytes} or what the cache may hold (it left the cache, written back if
     * dirty): the caller then appends in RocksDB itself, after draining. Returns the write bits.
     */
    public int append(
            int stateId,
            byte[] key,
            int keyLength,
            byte[] element,
            int elementLength,
            byte delimiter,
            int maxListBytes) {
        keyAndValueIn(key, keyLength, element, elementLength);
        return nativeAppend(handle, stateId, keyLength, elementLength, delimiter, maxListBytes);
    }

    /**
     * After a {@link #MISS}: caches what RocksDB returned, clean; {@code value == null} caches
     * "known absent". Returns the write bits.
     */
    public int fill(int stateId, byte[] key, int keyLength, byte[] value, int valueLength) {
        if (value == null) {
            keyIn(key, keyLength);
            return nativeFill(handle, stateId, keyLength, -1);
        }
        keyAndValueIn(key, keyLength, value, valueLength);
        return nativeFill(handle, stateId, keyLength, valueLength);
    }

    // -- io buffer -------------------------------------------------------------------------------

    /** Copies the key to the start of the io buffer (grown if needed); returns the buffer. */
    private ByteBuffer keyIn(byte[] key, int keyLength) {
        return keyIn(key, keyLength, 0);
    }

    /** As above, with room for at least {@code minCapacity} bytes. */
    private ByteBuffer keyIn(byte[] key, int keyLength, int minCapacity) {
        // Null and bounds checks happen here, in Java, before any native call (and before a
        // bogus length could make the buffer grow).
        checkLength(key, keyLength);
        ByteBuffer b = io;
        int needed = Math.max(keyLength, minCapacity);
        if (needed > b.capacity()) {
            b = attachIo(needed);
        }
        b.clear();
        b.put(key, 0, keyLength);
        return b;
    }

    private void keyAndValueIn(byte[] key, int keyLength, byte[] value, int valueLength) {
        checkLength(key, keyLength);
        checkLength(value, valueLength);
        ByteBuffer b = io;
        if (keyLength + (long) valueLength > b.capacity()) {
            b = attachIo((int) Math.min(Integer.MAX_VALUE, keyLength + (long) valueLength));
        }
        b.clear();
        b.put(key, 0, keyLength);
        b.put(value, 0, valueLength);
    }

    /**
     * NullPointerException for a null array, IndexOutOfBoundsException unless {@code 0 <= length <=
     * array.length}.
     */
    private static void checkLength(byte[] array, int length) {
        if (length < 0 || length > array.length) {
            throw new IndexOutOfBoundsException(
                    "falcon: length " + length + " outside an array of " + array.length);
        }
    }

    /** The native handle, for {@link NativeMapCache}; 0 once closed. */
    long handle() {
        return handle;
    }

    /**
     * The attached io buffer, replaced by a larger one first when it has fewer than {@code
     * minCapacity} bytes; for {@link NativeMapCache}.
     */
    ByteBuffer io(int minCapacity) {
        return minCapacity > io.capacity() ? attachIo(minCapacity) : io;
    }

    /** Attaches a new io buffer of at least {@code capacity} bytes (the old one is dropped). */
    private ByteBuffer attachIo(int capacity) {
        if (handle == 0) {
            throw new IllegalStateException("falcon: the hot-state cache is closed");
        }
        int size = INITIAL_IO_BYTES;
        while (size < capacity) {
            size = size > (Integer.MAX_VALUE >> 1) ? Integer.MAX_VALUE : size << 1;
        }
        ByteBuffer b = ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder());
        nativeAttachIo(handle, b);
        io = b;
        return b;
    }

    /** Emits every dirty entry of one state ({@code stateId >= 0}) or of all states, sorted. */
    public int flush(int stateId) {
        return nativeFlush(handle, stateId);
    }

    /** Emits the coldest dirty entries until at most {@code maxDirtyBytes} stay dirty. */
    public int writeBackDirty(long maxDirtyBytes) {
        return nativeWriteBackDirty(handle, maxDirtyBytes);
    }

    /**
     * Emits up to {@code maxEntries} dirty entries, each call going on where the last stopped (a
     * slice of write-back ahead of a checkpoint barrier); they stay cached, clean.
     */
    public int writeBackSome(int maxEntries) {
        return nativeWriteBackSome(handle, maxEntries);
    }

    /**
     * Replaces the dirty-byte cap ({@code 0}: none): a write that leaves more than {@code capBytes}
     * dirty writes the coldest dirty entries back until {@code lowWaterBytes} stay dirty.
     */
    public void setDirtyCap(long capBytes, long lowWaterBytes) {
        if (capBytes < 0 || lowWaterBytes < 0 || lowWaterBytes > capBytes) {
            throw new IllegalArgumentException(
                    "bad dirty-byte cap: " + capBytes + ", low water " + lowWaterBytes);
        }
        nativeSetDirtyCap(handle, capBytes, lowWaterBytes);
    }

    /** Re-reads the budget lease's quota and evicts down to it. Returns the write bits. */
    public int shrinkToQuota() {
        return nativeShrinkToQuota(handle);
    }

    /** The budget lease's quota now, or the fixed bounds without a lease. */
    public CacheQuota quota() {
        long[] out = new long[NativeLayout.QUOTA_COUNT];
        nativeQuota(handle, out);
        return CacheQuota.of(out);
    }

    /**
     * Copies pending write-back records into the direct {@code buffer} from position 0. Returns the
     * bytes copied (0: nothing pending) or {@code -size} when the next record alone needs a buffer
     * of {@code size} bytes. Record layout: {@link NativeLayout}'s {@code RECORD_*}.
     */
    public int drain(ByteBuffer buffer) {
        return nativeDrain(handle, buffer);
    }

    /** Drops every entry of a state without writing anything back. */
    public void dropState(int stateId) {
        nativeDropState(handle, stateId);
    }

    /** Drops everything without writing anything back (dispose). */
    public void clear() {
        nativeClear(handle);
    }

    /** The statistics of one state ({@code stateId >= 0}) or of the whole cache ({@code < 0}). */
    public CacheStats stats(int stateId) {
        long[] out = new long[NativeLayout.STATS_COUNT];
        nativeStats(handle, stateId, out);
        return new CacheStats(out);
    }

    /** Bytes the cache charges for one entry with these sizes. */
    public static long chargeFor(int keySize, int valueSize) {
        return nativeChargeFor(keySize, valueSize);
    }

    public boolean isClosed() {
        return handle == 0;
    }

    @Override
    public void close() {
        long h = handle;
        if (h != 0) {
            handle = 0;
            // The io buffer stays: later calls reach the native side, which refuses handle 0.
            nativeDispose(h);
        }
    }

    private static native long nativeCreate(
            int policy,
            long maxBytes,
            long maxEntries,
            long leaseHandle,
            long dirtyCapBytes,
            long dirtyLowWaterBytes,
            boolean hugePages);

    private static native int nativeShrinkToQuota(long handle);

    private static native void nativeQuota(long handle, long[] out);

    private static native void nativeDispose(long handle);

    private static native void nativeAttachIo(long handle, ByteBuffer io);

    /** Key in io[0, keyLength); a hit comes back in io[0, result). */
    private static native int nativeGet(long handle, int stateId, int keyLength);

    /** Key in io[0, keyLength), value in io[keyLength, keyLength + valueLength). */
    private static native int nativePut(long handle, int stateId, int keyLength, int valueLength);

    /** As nativePut, the element after the key; appended after {@code delimiter}. */
    private static native int nativeAppend(
            long handle,
            int stateId,
            int keyLength,
            int elementLength,
            byte delimiter,
            int maxListBytes);

    /** As nativePut; valueLength -1 caches "known absent". */
    private static native int nativeFill(long handle, int stateId, int keyLength, int valueLength);

    private static native int nativeRemove(long handle, int stateId, int keyLength);

    private static native int nativeRemoveNotInDb(long handle, int stateId, int keyLength);

    private static native int nativeFlush(long handle, int stateId);

    private static native int nativeWriteBackDirty(long handle, long maxDirtyBytes);

    private static native void nativeSetDirtyCap(long handle, long capBytes, long lowWaterBytes);

    private static native int nativeWriteBackSome(long handle, int maxEntries);

    private static native int nativeDrain(long handle, ByteBuffer buffer);

    private static native void nativeDropState(long handle, int stateId);

    private static native void nativeClear(long handle);

    private static native void nativeStats(long handle, int stateId, long[] out);

    private static native long nativeChargeFor(int keySize, int valueSize);
}
