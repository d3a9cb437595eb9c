/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.tuning.KeyLengthInvariant;

import org.apache.flink.contrib.streaming.state.RocksIteratorWrapper;
import org.apache.flink.util.FlinkRuntimeException;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

import javax.annotation.Nullable;

import java.nio.ByteBuffer;

/**
 * The RocksDB side of one cached state: its column family, the backend's read and write options,
 * its written-key filter and its key-length rule. Every read, write and scan the cache makes in
 * RocksDB for the state goes through here — a miss's read, a write to a map or value that is not
 * cached, a write-back record, a map load — so each rule is applied in one place:
 *
 * <ul>
 *   <li>Point reads use RocksDB's default read options, as Flink's own {@code RocksDBValueState}
 *       and {@code RocksDBMapState} do; scans use the backend's read options, as Flink's iterators
 *       do; writes use the backend's write options (no WAL).
 *   <li>Every key put goes into the written-key filter first (a ValueState's whole key, a map
 *       record's map prefix), so the filter knows every key, or map, the column family can hold.
 *   <li>A column family with a HashLinkList memtable takes keys of one length only ({@link
 *       #requireKeyLength}): a shorter key would be hashed on bytes past its end and lost silently.
 *       Every key written is checked, and a violation throws before anything is written, naming the
 *       state.
 * </ul>
 *
 * <p>Not thread-safe: the task thread of its state.
 */
final class StateColumnFamily {

    private final RocksDB db;
    private final ReadOptions scanOptions;
    private final org.rocksdb.WriteOptions writeOptions;
    private final String stateName;

    /** The keys (or map prefixes) the column family may hold, or null: no filter. */
    @Nullable private final WrittenKeyFilter writtenKeys;

    /** What of a stored key the filter holds: the whole key, or a map record's prefix. */
    private final WrittenKeyFilter.KeyPrefix filteredPrefix;

    private ColumnFamilyHandle handle;

    /** The one key length the column family takes, or -1: any. */
    private int requiredKeyLength = -1;

    /** Merges made through {@link #merge} (a ListState's adds the cache did not hold). */
    private long merges;

    StateColumnFamily(
            RocksDB db,
            ReadOptions scanOptions,
            org.rocksdb.WriteOptions writeOptions,
            String stateName,
            ColumnFamilyHandle handle,
            @Nullable WrittenKeyFilter writtenKeys,
            WrittenKeyFilter.KeyPrefix filteredPrefix) {
        this.db = db;
        this.scanOptions = scanOptions;
        this.writeOptions = writeOptions;
        this.stateName = stateName;
        this.handle = handle;
        this.writtenKeys = writtenKeys;
        this.filteredPrefix = filteredPrefix;
    }

    /** After a re-registration, the state's column family (the handle may be a new one). */
    void setHandle(ColumnFamilyHandle handle) {
        this.handle = handle;
    }

    ColumnFamilyHandle handle() {
        return handle;
    }

    String stateName() {
        return stateName;
    }

    @Nullable
    WrittenKeyFilter writtenKeys() {
        return writtenKeys;
    }

    /**
     * Every key written from now on must be exactly {@code keyLength} bytes ({@code -1}: any
     * length): the column family has a HashLinkList memtable over keys of that length.
     */
    void requireKeyLength(int keyLength) {
        this.requiredKeyLength = keyLength;
    }

    // --- reads ---

    /**
     * Reads the value of the first {@code keyLength} bytes of {@code key} into {@code into} (grown
     * as needed): its size, or -1 when the column family has no such key.
     */
    int get(byte[] key, int keyLength, ValueBuffer into) {
        try {
            while (true) {
                byte[] bytes = into.bytes();
                int size = db.get(handle, key, 0, keyLength, bytes, 0, bytes.length);
                if (size == RocksDB.NOT_FOUND) {
                    return -1;
                }
                if (size <= bytes.length) {
                    return size;
                }
                into.grow(size);
            }
        } catch (RocksDBException e) {
            throw failure("reading", e);
        }
    }

    /**
     * True when the column family holds no key starting with the first {@code length} bytes of
     * {@code key} (as the filter is keyed): the filter, built first if it must be, has never seen
     * them. Call it only when no write-back is pending (between two operations).
     */
    boolean neverWritten(byte[] key, int length) {
        if (writtenKeys == null) {
            return false;
        }
        if (writtenKeys.needsBuild()) {
            writtenKeys.build(db, handle, filteredPrefix);
        }
        return writtenKeys.knowsAbsent(key, length);
    }

    /** No filter from now on: every key may be in the column family. */
    void dropFilter() {
        if (writtenKeys != null) {
            writtenKeys.drop();
        }
    }

    /** A write the filter does not see (Flink's own state wrote the key): it must be rebuilt. */
    void markFilterStale() {
        if (writtenKeys != null) {
            writtenKeys.markStale();
        }
    }

    /** A new RocksDB iterator with the backend's read options; the caller closes it. */
    RocksIterator newIterator() {
        return db.newIterator(handle, scanOptions);
    }

    /** As {@link #newIterator()}, in Flink's wrapper (its status checks). */
    RocksIteratorWrapper newIteratorWrapper() {
        return new RocksIteratorWrapper(newIterator());
    }

    // --- writes ---

    /**
     * Puts the first {@code keyLength} bytes of {@code key} with the first {@code valueLength}
     * bytes of {@code value}; the filter learns the key's first {@code filteredLength} bytes.
     */
    void put(byte[] key, int keyLength, int filteredLength, byte[] value, int valueLength) {
        checkKeyLength(keyLength);
        if (writtenKeys != null) {
            writtenKeys.add(key, filteredLength);
        }
        try {
            db.put(handle, writeOptions, key, 0, keyLength, value, 0, valueLength);
        } catch (RocksDBException e) {
            throw failure("writing", e);
        }
    }

    /**
     * Merges the first {@code valueLength} bytes of {@code value} into the first {@code keyLength}
     * bytes of {@code key} (a ListState's append: RocksDB's merge operator joins the elements); the
     * filter learns the whole key.
     */
    void merge(byte[] key, int keyLength, byte[] value, int valueLength) {
        checkKeyLength(keyLength);
        if (writtenKeys != null) {
            writtenKeys.add(key, keyLength);
        }
        merges++;
        try {
            db.merge(handle, writeOptions, key, 0, keyLength, value, 0, valueLength);
        } catch (RocksDBException e) {
            throw failure("writing", e);
        }
    }

    /** How many merges {@link #merge} made. */
    long merges() {
        return merges;
    }

    /** Deletes the first {@code keyLength} bytes of {@code key}. */
    void delete(byte[] key, int keyLength) {
        checkKeyLength(keyLength);
        try {
            db.delete(handle, writeOptions, key, 0, keyLength);
        } catch (RocksDBException e) {
            throw failure("writing", e);
        }
    }

    /**
     * Adds a write-back put to {@code batch}: the key and value are the views' remaining bytes;
     * {@code littleEndianRecord} views the same bytes, where the filter reads the key's first
     * {@code filteredLength} bytes from {@code keyAt}.
     */
    void putInto(
            WriteBatch batch,
            ByteBuffer key,
            ByteBuffer value,
            ByteBuffer littleEndianRecord,
            int keyAt,
            int filteredLength)
            throws RocksDBException {
        checkKeyLength(key.remaining());
        if (writtenKeys != null) {
            writtenKeys.add(littleEndianRecord, keyAt, filteredLength);
        }
        batch.put(handle, key, value);
    }

    /** Adds a write-back delete of {@code key} to {@code batch}. */
    void deleteInto(WriteBatch batch, byte[] key) throws RocksDBException {
        checkKeyLength(key.length);
        batch.delete(handle, key);
    }

    /** Throws when {@code keyLength} breaks the column family's required key length. */
    void checkKeyLength(int keyLength) {
        if (requiredKeyLength >= 0 && keyLength != requiredKeyLength) {
            throw new IllegalStateException(
                    KeyLengthInvariant.keyLengthViolation(stateName, requiredKeyLength, keyLength));
        }
    }

    private FlinkRuntimeException failure(String what, RocksDBException e) {
        return new FlinkRuntimeException(
                "[FALCON] " + what + " state '" + stateName + "' in RocksDB failed", e);
    }
}
