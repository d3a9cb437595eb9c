/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.apache.flink.annotation.VisibleForTesting;

import java.util.Map;
import java.util.WeakHashMap;

/**
 * The write-buffer manager of one slot, as the column-family tuning sees it: its capacity, and the
 * bytes that tuned column families of every keyed backend in the slot allocate up front in each of
 * their memtables (hash bucket arrays, memtable blooms), which the manager charges even while a
 * memtable is empty.
 *
 * <p>Flink gives each slot one manager, shared by all RocksDB instances in it (from Flink 1.17,
 * with {@code state.backend.rocksdb.memory.fixed-per-tm}, one per TaskManager); {@link #of} returns
 * one instance per manager object, so every backend sharing it reserves against the same count. The
 * {@link TuningAdvisor} decides from {@link #capacity()} and {@link #reserved()} how large a column
 * family's fixed blocks may be; {@link ColumnFamilyTuner} reserves what it applied and releases it
 * when its backend closes. Instances are forgotten with their manager.
 *
 * <p>Thread-safe: backends of one slot register states on different task threads. Advice and
 * reservation happen under the instance's lock ({@link #reserve}).
 */
public final class SlotWriteBuffers {

    /**
     * No write-buffer manager (RocksDB's memory not managed): memtables are bounded by their write
     * buffer alone, and nothing is counted.
     */
    public static final SlotWriteBuffers UNBOUNDED = new SlotWriteBuffers();

    private static final Map<Object, SlotWriteBuffers> BY_MANAGER = new WeakHashMap<>();

    private final long capacity;
    private long reserved;

    @VisibleForTesting
    SlotWriteBuffers(long capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be > 0, got " + capacity);
        }
        this.capacity = capacity;
    }

    private SlotWriteBuffers() {
        this.capacity = 0;
    }

    /**
     * The accounting of the slot whose write-buffer manager is {@code manager} (compared by
     * identity: Flink shares one object per slot) of {@code capacity} bytes.
     */
    public static SlotWriteBuffers of(Object manager, long capacity) {
        synchronized (BY_MANAGER) {
            SlotWriteBuffers slot = BY_MANAGER.get(manager);
            if (slot == null || slot.capacity != capacity) {
                slot = new SlotWriteBuffers(capacity);
                BY_MANAGER.put(manager, slot);
            }
            return slot;
        }
    }

    /** The manager's capacity in bytes; 0 for {@link #UNBOUNDED}. */
    public long capacity() {
        return capacity;
    }

    /** False for {@link #UNBOUNDED}. */
    public boolean bounded() {
        return capacity > 0;
    }

    /** Fixed memtable bytes the slot's tuned column families hold now. */
    public synchronized long reserved() {
        return reserved;
    }

    /**
     * Runs {@code decide} with the bytes reserved so far and reserves what the profile it returns
     * allocates per memtable, atomically with respect to the other backends of the slot.
     */
    synchronized TuningProfile reserve(Decision decide) {
        TuningProfile profile = decide.profile(reserved);
        if (bounded()) {
            reserved += profile.fixedAllocationBytes();
        }
        return profile;
    }

    /** Gives back bytes an earlier {@link #reserve} took. */
    synchronized void release(long bytes) {
        if (bounded()) {
            reserved = Math.max(0, reserved - bytes);
        }
    }

    /** The advice for one column family, given the bytes the slot has reserved so far. */
    interface Decision {
        TuningProfile profile(long reservedBytes);
    }
}
