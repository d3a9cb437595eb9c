/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.budget;

import io.falconstate.flink.nativeaccess.NativeMemoryBudget;

import org.apache.flink.runtime.memory.OpaqueMemoryResource;

/**
 * One keyed subtask's place in its slot's cache budget: its lease (quota = slot budget × its weight
 * / the sum of the weights of the slot's keyed subtasks, recomputed as subtasks come and go, and
 * rebalanced by demand while caches evict) and its reference to the slot's shared reservation.
 *
 * <p>{@link #close()} (idempotent) leaves the slot: it frees the lease unless a cache took it
 * ({@link #takeLease()}; the cache frees it when it is closed, so close the cache first) and
 * releases the reference to the slot's reservation. Used by the task thread of the subtask.
 */
public final class SubtaskCacheBudget implements AutoCloseable {

    private final OpaqueMemoryResource<SlotCacheBudget> slotResource;
    private final boolean fixedSize;
    private final long fixedBytes;
    private final long fixedEntries;
    private final int subtasksInSlot;
    private final long joinedQuotaBytes;
    private final long joinedQuotaEntries;
    private long lease;
    private boolean closed;

    SubtaskCacheBudget(
            OpaqueMemoryResource<SlotCacheBudget> slotResource,
            long lease,
            boolean fixedSize,
            long fixedBytes,
            long fixedEntries,
            int subtasksInSlot,
            long joinedQuotaBytes,
            long joinedQuotaEntries) {
        this.slotResource = slotResource;
        this.lease = lease;
        this.fixedSize = fixedSize;
        this.fixedBytes = fixedBytes;
        this.fixedEntries = fixedEntries;
        this.subtasksInSlot = subtasksInSlot;
        this.joinedQuotaBytes = joinedQuotaBytes;
        this.joinedQuotaEntries = joinedQuotaEntries;
    }

    /** The slot this subtask belongs to. */
    public SlotCacheBudget slot() {
        return slotResource.getResourceHandle();
    }

    /** Keyed subtasks in the slot when this one joined (itself included). */
    public int subtasksInSlot() {
        return subtasksInSlot;
    }

    /**
     * The quota in bytes when this subtask joined, with {@link #subtasksInSlot()} subtasks (the
     * fixed size if there is one).
     */
    public long joinedQuotaBytes() {
        return fixedSize ? fixedBytes : joinedQuotaBytes;
    }

    /** The entry quota when this subtask joined (0: no cap; the fixed cap if there is one). */
    public long joinedQuotaEntries() {
        return fixedSize ? fixedEntries : joinedQuotaEntries;
    }

    /** True when the cache has a fixed size per subtask instead of a managed-memory quota. */
    public boolean isFixedSize() {
        return fixedSize;
    }

    /** The quota now, in bytes (the lease's, or the fixed size). Valid until the cache closes. */
    public long quotaBytes() {
        return fixedSize ? fixedBytes : NativeMemoryBudget.quotaBytes(lease);
    }

    /** The entry quota now; 0: no cap. */
    public long quotaEntries() {
        return fixedSize ? fixedEntries : NativeMemoryBudget.quotaEntries(lease);
    }

    /**
     * The lease handle for the subtask's native cache, which owns it from then on; 0 with a fixed
     * size (the cache then has fixed bounds and the lease only counts).
     */
    public long takeLease() {
        if (fixedSize) {
            return 0;
        }
        long l = lease;
        lease = 0;
        return l;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        NativeMemoryBudget.releaseLease(lease);
        lease = 0;
        try {
            slotResource.close();
        } catch (Exception e) {
            throw new IllegalStateException("[FALCON] releasing the slot's cache budget failed", e);
        }
    }
}
