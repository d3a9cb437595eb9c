/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.tuning.KeyLengthInvariant;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Moves the cache's pending write-back records into RocksDB: drains them into a direct buffer it
 * owns, puts them into one {@link WriteBatch} per drained chunk (records of a flush arrive sorted
 * by key within each state) and writes that batch with the backend's write options (WAL off, as
 * Flink writes state).
 *
 * <p>Puts go through direct-buffer views, so writing back a value allocates nothing on the Java
 * heap; deletes need the key as an array (RocksJava 6.20 has no direct-buffer delete in batches).
 *
 * <p>A state whose column family has a HashLinkList memtable must only ever get keys of its one
 * fixed length ({@link #requireKeyLength}): a shorter key is hashed on bytes past its end and lost
 * silently. Each record's key length is compared with it (an array read and an int compare) and a
 * violation throws before the batch is written, naming the state.
 *
 * <p>Every key it puts for a state with a {@link WrittenKeyFilter} goes into that filter first (a
 * ValueState's whole key, a MapState record's map prefix, which the record header carries), so the
 * filter knows every key, or map, its column family can hold.
 *
 * <p>Not thread-safe: the task thread owning the cache drives it.
 */
final class WriteBackWriter implements AutoCloseable {

    private static final int INITIAL_BUFFER_BYTES = 256 * 1024;

    private final RocksDB db;
    private final WriteOptions writeOptions;
    private final WriteBatch batch = new WriteBatch();
    private ColumnFamilyHandle[] columnFamilies = new ColumnFamilyHandle[8];

    /** Per state id: the one key length its column family takes, or -1 (any). */
    private int[] requiredKeyLengths = unchecked(8);

    private String[] stateNames = new String[8];

    /** Per state id: the filter of the keys written into its column family, or null. */
    private WrittenKeyFilter[] writtenKeyFilters = new WrittenKeyFilter[8];

    private ByteBuffer buffer;
    private ByteBuffer keyView;
    private ByteBuffer valueView;
    private ByteBuffer littleEndianView;

    private long recordsWritten;
    private long bytesWritten;

    WriteBackWriter(RocksDB db, WriteOptions writeOptions) {
        this.db = db;
        this.writeOptions = writeOptions;
        allocate(INITIAL_BUFFER_BYTES);
    }

    /** Records where a state's entries go. */
    void setColumnFamily(int stateId, ColumnFamilyHandle columnFamily) {
        ensureCapacity(stateId);
        columnFamilies[stateId] = columnFamily;
    }

    /** Keys put for state {@code stateId} from now on go into {@code filter} (null: none). */
    void setWrittenKeyFilter(int stateId, WrittenKeyFilter filter) {
        ensureCapacity(stateId);
        writtenKeyFilters[stateId] = filter;
    }

    /**
     * Every key of state {@code stateId} must be exactly {@code keyLength} bytes ({@code -1}: no
     * requirement): its column family has a HashLinkList memtable over keys of that length.
     */
    void requireKeyLength(int stateId, String stateName, int keyLength) {
        ensureCapacity(stateId);
        requiredKeyLengths[stateId] = keyLength;
        stateNames[stateId] = stateName;
    }

    /**
     * Throws when {@code keyLength} breaks state {@code stateId}'s required length; for keys the
     * cache writes into RocksDB itself, outside a write-back.
     */
    void checkKeyLength(int stateId, int keyLength) {
        if (stateId < requiredKeyLengths.length) {
            int required = requiredKeyLengths[stateId];
            if (required >= 0 && keyLength != required) {
                throw new IllegalStateException(
                        KeyLengthInvariant.keyLengthViolation(
                                stateNames[stateId], required, keyLength));
            }
        }
    }

    private void ensureCapacity(int stateId) {
        if (stateId >= columnFamilies.length) {
            int capacity = Math.max(stateId + 1, columnFamilies.length * 2);
            int old = requiredKeyLengths.length;
            columnFamilies = Arrays.copyOf(columnFamilies, capacity);
            requiredKeyLengths = Arrays.copyOf(requiredKeyLengths, capacity);
            Arrays.fill(requiredKeyLengths, old, capacity, -1);
            stateNames = Arrays.copyOf(stateNames, capacity);
            writtenKeyFilters = Arrays.copyOf(writtenKeyFilters, capacity);
        }
    }

    private static int[] unchecked(int capacity) {
        int[] lengths = new int[capacity];
        Arrays.fill(lengths, -1);
        return lengths;
    }

    /** Writes every pending record of {@code cache} into RocksDB. */
    void drain(NativeHotStateCache cache) throws RocksDBException {
        while (true) {
            buffer.clear();
            int n = cache.drain(buffer);
            if (n == 0) {
                return;
            }
            if (n < 0) {
                allocate(Math.max(-n, buffer.capacity() * 2));
                continue;
            }
            int position = 0;
            while (position < n) {
                int stateId = buffer.getInt(position + NativeLayout.RECORD_STATE_ID_OFFSET);
                int keyLength = buffer.getInt(position + NativeLayout.RECORD_KEY_LENGTH_OFFSET);
                int valueLength = buffer.getInt(position + NativeLayout.RECORD_VALUE_LENGTH_OFFSET);
                int prefixLength =
                        buffer.getInt(position + NativeLayout.RECORD_PREFIX_LENGTH_OFFSET);
                position += NativeLayout.RECORD_HEADER_BYTES;
                int required = requiredKeyLengths[stateId];
                if (required >= 0 && keyLength != required) {
                    // Nothing of this chunk reaches RocksDB; the task fails with the cause.
                    batch.clear();
                    throw new IllegalStateException(
                            KeyLengthInvariant.keyLengthViolation(
                                    stateNames[stateId], required, keyLength));
                }
                ColumnFamilyHandle columnFamily = columnFamilies[stateId];
                if (valueLength == NativeLayout.RECORD_DELETE) {
                    byte[] key = new byte[keyLength];
                    ByteBuffer source = keyView;
                    source.clear();
                    source.position(position);
                    source.get(key);
                    batch.delete(columnFamily, key);
                } else {
                    WrittenKeyFilter filter = writtenKeyFilters[stateId];
                    if (filter != null) {
                        filter.add(
                                littleEndianView,
                                position,
                                prefixLength > 0 ? prefixLength : keyLength);
                    }
                    keyView.clear();
                    keyView.position(position).limit(position + keyLength);
                    valueView.clear();
                    valueView
                            .position(position + keyLength)
                            .limit(position + keyLength + valueLength);
                    batch.put(columnFamily, keyView, valueView);
                    position += valueLength;
                }
                position += keyLength;
                recordsWritten++;
            }
            bytesWritten += n;
            db.write(writeOptions, batch);
            batch.clear();
        }
    }

    /** Records written back since creation. */
    long recordsWritten() {
        return recordsWritten;
    }

    /** Bytes of write-back records (keys, values, 12-byte headers) since creation. */
    long bytesWritten() {
        return bytesWritten;
    }

    private void allocate(int capacity) {
        buffer = ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        keyView = buffer.duplicate();
        valueView = buffer.duplicate();
        littleEndianView = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public void close() {
        batch.close();
    }
}
