/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.nativeaccess;

/**
 * One slot's native {@code falcon::MemoryBudget} (created with one slot): the slot's cache bytes
 * and optional entry cap, shared by the slot's keyed subtasks in proportion to their weights (their
 * managed-memory fractions). {@link #register} returns a lease handle whose quota the budget
 * recomputes whenever a subtask of the slot registers or leaves; a cache created with the lease
 * (see {@link NativeHotStateCache}) follows that quota by evicting.
 *
 * <p>Thread-safe (task threads of one slot register and leave concurrently; the native side takes a
 * mutex). Never used per record. {@link #close()} is idempotent; leases keep the native budget
 * alive, so closing it while leases live is safe.
 */
public final class NativeMemoryBudget implements AutoCloseable {

    private long handle;

    /** {@code slotEntries}: 0 = no entry cap. */
    public NativeMemoryBudget(long slotBytes, long slotEntries) {
        this.handle = nativeCreate(slotBytes, slotEntries);
    }

    /**
     * Registers a keyed subtask with {@code weight > 0}; returns a lease handle that the caller
     * owns: hand it to a {@link NativeHotStateCache} or free it with {@link #releaseLease}.
     */
    public synchronized long register(double weight, String name) {
        return nativeRegister(handle, weight, name);
    }

    /** Leaves the slot (the others' quotas grow). The handle must not be used again. */
    public static void releaseLease(long lease) {
        if (lease != 0) {
            nativeReleaseLease(lease);
        }
    }

    public static long quotaBytes(long lease) {
        return nativeQuotaBytes(lease);
    }

    /** 0: no entry cap. */
    public static long quotaEntries(long lease) {
        return nativeQuotaEntries(lease);
    }

    /**
     * What the slot looked like when {@code lease} registered, recorded natively in the same step
     * as the registration. Other subtasks joining or leaving at the same time cannot make these
     * disagree.
     */
    public static JoinedFacts joinedFacts(long lease) {
        long[] out = new long[NativeLayout.JOINED_COUNT];
        nativeJoinedFacts(lease, out);
        return new JoinedFacts(
                (int) out[NativeLayout.JOINED_SUBTASKS],
                out[NativeLayout.JOINED_QUOTA_BYTES],
                out[NativeLayout.JOINED_QUOTA_ENTRIES]);
    }

    /** A lease's slot as it found it when it registered. Immutable. */
    public static final class JoinedFacts {
        private final int subtasks;
        private final long quotaBytes;
        private final long quotaEntries;

        JoinedFacts(int subtasks, long quotaBytes, long quotaEntries) {
            this.subtasks = subtasks;
            this.quotaBytes = quotaBytes;
            this.quotaEntries = quotaEntries;
        }

        /** Keyed subtasks in the slot, the lease's own included. */
        public int subtasks() {
            return subtasks;
        }

        /** The lease's quota in bytes then. */
        public long quotaBytes() {
            return quotaBytes;
        }

        /** The lease's entry quota then (0: no cap). */
        public long quotaEntries() {
            return quotaEntries;
        }
    }

    /**
     * How many entries of {@code typicalEntryBytes} (key + value) fit into {@code bytes}, capped by
     * {@code entryCap} when it is not 0 (the per-entry overhead of the cache included).
     */
    public static long estimateEntries(long bytes, long entryCap, long typicalEntryBytes) {
        return nativeEstimateEntries(bytes, entryCap, typicalEntryBytes);
    }

    @Override
    public synchronized void close() {
        long h = handle;
        if (h != 0) {
            handle = 0;
            nativeDispose(h);
        }
    }

    private static native long nativeCreate(long slotBytes, long slotEntries);

    private static native void nativeDispose(long handle);

    private static native long nativeRegister(long handle, double weight, String name);

    private static native void nativeReleaseLease(long lease);

    private static native long nativeQuotaBytes(long lease);

    private static native long nativeQuotaEntries(long lease);

    private static native void nativeJoinedFacts(long lease, long[] out);

    private static native long nativeEstimateEntries(long bytes, long entryCap, long typical);
}
