/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.nativeaccess.NativeHotStateCache;
import io.falconstate.flink.nativeaccess.NativeLayout;

import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Moves the cache's pending write-back records into RocksDB: drains them into a direct buffer it
 * owns, adds each to one {@link WriteBatch} per drained chunk through its state's {@link
 * StateColumnFamily} (which applies the state's key-length rule and written-key filter) and writes
 * that batch with the backend's write options (WAL off, as Flink writes state). Records of a flush
 * arrive sorted by key within each state.
 *
 * <p>Puts go through direct-buffer views, so writing back a value allocates nothing on the Java
 * heap; deletes need the key as an array (RocksJava 6.20 has no direct-buffer delete in batches). A
 * record that breaks its state's key-length rule fails the whole chunk: nothing of it reaches
 * RocksDB.
 *
 * <p>Not thread-safe: the task thread owning the cache drives it.
 */
final class WriteBackWriter implements AutoCloseable {

    private static final int INITIAL_BUFFER_BYTES = 256 * 1024;

    private final RocksDB db;
    private final WriteOptions writeOptions;
    private final WriteBatch batch = new WriteBatch();

    /** Per state id: where its records go. */
    private StateColumnFamily[] columns = new StateColumnFamily[8];

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

    /** Records of state {@code stateId} go to {@code column} from now on. */
    void setColumn(int stateId, StateColumnFamily column) {
        if (stateId >= columns.length) {
            columns = Arrays.copyOf(columns, Math.max(stateId + 1, columns.length * 2));
        }
        columns[stateId] = column;
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
            try {
                addToBatch(n);
                db.write(writeOptions, batch);
            } finally {
                batch.clear();
            }
            bytesWritten += n;
        }
    }

    /** Adds the {@code n} bytes of drained records to {@link #batch}. */
    private void addToBatch(int n) throws RocksDBException {
        int position = 0;
        while (position < n) {
            int stateId = buffer.getInt(position + NativeLayout.RECORD_STATE_ID_OFFSET);
            int keyLength = buffer.getInt(position + NativeLayout.RECORD_KEY_LENGTH_OFFSET);
            int valueLength = buffer.getInt(position + NativeLayout.RECORD_VALUE_LENGTH_OFFSET);
            int prefixLength = buffer.getInt(position + NativeLayout.RECORD_PREFIX_LENGTH_OFFSET);
            position += NativeLayout.RECORD_HEADER_BYTES;
            StateColumnFamily column = columns[stateId];
            if (valueLength == NativeLayout.RECORD_DELETE) {
                byte[] key = new byte[keyLength];
                keyView.clear();
                keyView.position(position);
                keyView.get(key);
                column.deleteInto(batch, key);
            } else {
                keyView.clear();
                keyView.position(position).limit(position + keyLength);
                valueView.clear();
                valueView.position(position + keyLength).limit(position + keyLength + valueLength);
                column.putInto(
                        batch,
                        keyView,
                        valueView,
                        littleEndianView,
                        position,
                        prefixLength > 0 ? prefixLength : keyLength);
                position += valueLength;
            }
            position += keyLength;
            recordsWritten++;
        }
    }

    /** Records written back since creation. */
    long recordsWritten() {
        return recordsWritten;
    }

    /** Bytes of write-back records (keys, values, their headers) since creation. */
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
