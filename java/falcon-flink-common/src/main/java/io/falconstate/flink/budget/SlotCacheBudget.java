/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.budget;

import io.falconstate.flink.nativeaccess.NativeMemoryBudget;

/**
 * The cache budget of one slot: the bytes the slot's managed-memory reservation holds (or 0 with a
 * fixed size per subtask, when it only counts the slot's keyed subtasks), its entry cap, and the
 * native budget that divides them among the slot's keyed subtasks.
 *
 * <p>It is the value of a slot-wide shared resource of the slot's {@code MemoryManager} (see {@link
 * CacheBudgets}), so Flink keys it by slot, reference-counts it over the slot's keyed subtasks and
 * closes it, releasing the reservation, when the last one leaves. Thread-safe.
 */
public final class SlotCacheBudget implements AutoCloseable {

    private final long slotBytes;
    private final long slotEntries;
    private final NativeMemoryBudget budget;

    SlotCacheBudget(long slotBytes, long slotEntries) {
        this.slotBytes = slotBytes;
        this.slotEntries = slotEntries;
        this.budget = new NativeMemoryBudget(slotBytes, slotEntries);
    }

    /** Bytes all keyed subtasks of the slot may cache together. */
    public long slotBytes() {
        return slotBytes;
    }

    /** Entries all keyed subtasks of the slot may cache together; 0: no cap. */
    public long slotEntries() {
        return slotEntries;
    }

    NativeMemoryBudget budget() {
        return budget;
    }

    @Override
    public void close() {
        budget.close();
    }
}
