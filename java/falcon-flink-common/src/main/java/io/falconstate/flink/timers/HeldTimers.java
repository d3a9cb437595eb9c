/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.timers;

import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.log.FalconLog;

import org.apache.flink.contrib.streaming.state.RocksDBWriteBatchWrapper;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.util.FlinkRuntimeException;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One timer queue in RocksDB whose timers Falcon holds on the JVM heap and writes back: Flink's own
 * queue classes (a set per key group over the queue's column family, {@code
 * RocksDBCachingPriorityQueueSet}) with a {@link HeldTimerBytes} cache per key group that holds all
 * of the key group's timers, and a write batch ({@link #writes()}) that drops the sets' writes
 * while the caches hold. {@link #writeBack()} puts into RocksDB the timers added and deletes those
 * that left since the last write-back; Falcon's backend calls it before every snapshot, and Flink's
 * sets call it (through the batch's flush) before they read the column family, so RocksDB holds
 * exactly the queue's timers whenever anything reads it. A timer registered and fired between two
 * snapshots — most of a window's timers — never reaches RocksDB.
 *
 * <p>Bounded: when more than {@code capacity} timers would be held, or the TaskManager's share of
 * heap for held timers is taken ({@link HeldTimerBudget}), the queue writes everything back, logs a
 * {@code [FALCON]} line and steps aside for good: the caches become Flink's bounded caches and the
 * batch writes through, as in stock Flink.
 *
 * <p>Not thread-safe: the task thread, as Flink's queue. {@link #heldTimers()} and {@link
 * #writtenBack()} may be read by a metrics thread, which may see them late.
 */
public final class HeldTimers {

    /** Flink's per-key-group cache size in its RocksDB timer sets (its DEFAULT_CACHES_SIZE). */
    static final int FLINK_CACHE_SIZE = 128;

    /** Changes per write batch at a write-back, bounding the batch's native memory. */
    private static final int WRITE_BACK_BATCH = 4096;

    private final String stateName;
    private final RocksDB db;
    private final WriteOptions writeOptions;
    private final ColumnFamilyHandle handle;
    private final int capacity;
    private final KeyGroupRange keyGroups;
    private final HeldTimerBytes[] caches;
    private final Writes writes;

    private boolean holding = true;
    private boolean disposed;
    private int held;
    private long writtenBack;

    /** Timers reserved from the {@link HeldTimerBudget}: at least {@link #held}. */
    private long reserved;

    /**
     * @param stateName the queue's state name (log lines)
     * @param db the backend's database; valid while this queue is used
     * @param writeOptions the backend's write options
     * @param handle the queue's column family
     * @param keyGroups the backend's key groups
     * @param capacity the most timers held; at least 1
     */
    public HeldTimers(
            String stateName,
            RocksDB db,
            WriteOptions writeOptions,
            ColumnFamilyHandle handle,
            KeyGroupRange keyGroups,
            int capacity) {
        this.stateName = stateName;
        this.db = db;
        this.writeOptions = writeOptions;
        this.handle = handle;
        this.keyGroups = keyGroups;
        this.capacity = capacity;
        this.caches = new HeldTimerBytes[keyGroups.getNumberOfKeyGroups()];
        this.writes = new Writes(db, writeOptions);
    }

    /** The ordered cache of {@code keyGroup}'s set (Flink's queue asks once per key group). */
    public HeldTimerBytes cacheFor(int keyGroup) {
        int index = keyGroup - keyGroups.getStartKeyGroup();
        if (caches[index] == null) {
            caches[index] = new HeldTimerBytes(this);
        }
        return caches[index];
    }

    /** The write batch every set of this queue writes through. */
    public RocksDBWriteBatchWrapper writes() {
        return writes;
    }

    /** The queue's state name (its column family). */
    public String stateName() {
        return stateName;
    }

    /** Whether the caches hold every timer (false once the queue stepped aside). */
    public boolean holding() {
        return holding;
    }

    /** Timers held on the heap now (0 once the queue stepped aside). */
    public int heldTimers() {
        return held;
    }

    /** Timer puts and deletes written to RocksDB by write-backs so far. */
    public long writtenBack() {
        return writtenBack;
    }

    /**
     * Writes every change RocksDB has not got, then what the batch holds: afterwards RocksDB holds
     * exactly the queue's timers.
     */
    public void writeBack() {
        try {
            if (holding) {
                writeUnwritten();
            }
            writes.flushThrough();
        } catch (RocksDBException e) {
            throw new FlinkRuntimeException(
                    "[FALCON] writing the timers of '" + stateName + "' to RocksDB failed", e);
        }
    }

    /** Releases the batch and the heap reservation without writing (the backend is disposed). */
    public void dispose() {
        if (disposed) {
            return;
        }
        disposed = true;
        writes.release();
        HeldTimerBudget.release(reserved);
        reserved = 0;
    }

    void timerAdded() {
        held++;
        if (held > reserved || held > capacity) {
            reserveOrStepAside();
        }
    }

    void timerRemoved() {
        held--;
        if (reserved - held > 2L * HeldTimerBudget.CHUNK) {
            HeldTimerBudget.release(HeldTimerBudget.CHUNK);
            reserved -= HeldTimerBudget.CHUNK;
        }
    }

    void timersLoaded(int count) {
        held += count;
        while (holding && (held > reserved || held > capacity)) {
            reserveOrStepAside();
        }
    }

    private void reserveOrStepAside() {
        if (held > capacity) {
            stepAside(FalconOptions.TIMERS_HELD_CAPACITY.key() + " (" + capacity + ")");
        } else if (HeldTimerBudget.reserveChunk()) {
            reserved += HeldTimerBudget.CHUNK;
        } else {
            stepAside(
                    "the heap share for held timers ("
                            + HeldTimerBudget.limit()
                            + " timers, a tenth of the JVM heap)");
        }
    }

    private void stepAside(String limit) {
        int count = held;
        writeBack();
        holding = false;
        held = 0;
        HeldTimerBudget.release(reserved);
        reserved = 0;
        FalconLog.timersStepAside(stateName, count, limit);
    }

    private void writeUnwritten() throws RocksDBException {
        long written = 0;
        WriteBatch batch = new WriteBatch();
        try {
            BatchFull full =
                    b -> {
                        if (b.count() >= WRITE_BACK_BATCH) {
                            db.write(writeOptions, b);
                            b.clear();
                        }
                    };
            for (HeldTimerBytes cache : caches) {
                if (cache != null && cache.hasUnwritten()) {
                    written += cache.writeUnwritten(batch, handle, full);
                }
            }
            if (batch.count() > 0) {
                db.write(writeOptions, batch);
            }
        } finally {
            batch.close();
        }
        writtenBack += written;
    }

    /** Writes a write-back batch that reached its size, and clears it. */
    @FunctionalInterface
    interface BatchFull {
        void writeIfFull(WriteBatch batch) throws RocksDBException;
    }

    /**
     * The sets' write batch: while the caches hold, their puts and deletes are dropped (the caches
     * record the changes) and a flush writes the caches' changes first; after stepping aside, it is
     * Flink's batch.
     */
    private final class Writes extends RocksDBWriteBatchWrapper {

        Writes(RocksDB db, WriteOptions writeOptions) {
            super(db, writeOptions);
        }

        @Override
        public void put(ColumnFamilyHandle columnFamily, byte[] key, byte[] value)
                throws RocksDBException {
            if (!holding) {
                super.put(columnFamily, key, value);
            }
        }

        @Override
        public void remove(ColumnFamilyHandle columnFamily, byte[] key) throws RocksDBException {
            if (!holding) {
                super.remove(columnFamily, key);
            }
        }

        @Override
        public void flush() throws RocksDBException {
            // A set reads the column family after this: RocksDB must hold every timer.
            if (holding) {
                writeUnwritten();
            }
            super.flush();
        }

        void flushThrough() throws RocksDBException {
            super.flush();
        }

        void release() {
            try {
                // A holding batch is empty; a stepped-aside one writes its rest into the
                // still-open database first, as Flink's batch does at dispose.
                super.close();
            } catch (RocksDBException e) {
                // The backend is being disposed and never read again.
            }
        }
    }
}
