/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The keys one cached state's column family may hold: a Bloom filter over every key that went into
 * it (a ValueState's whole keys; a MapState's map prefixes, key group + key + namespace), so that a
 * cache miss on a key or map the filter has never seen is answered "absent" without a RocksDB
 * {@code get} or {@code seek} (docs/cache.md, "Keys RocksDB cannot hold").
 *
 * <p>Window aggregates read each (key, window slice) first for a key nobody wrote yet, and a join
 * probes the other side's map for keys that side never had; stock RocksDB answers such a read by
 * probing the memtables and every SST file's index and data blocks. The filter is exact about what
 * it has not seen as long as every write into the column family passes {@link #add}: the cache's
 * write-back ({@link WriteBackWriter}), its uncached puts ({@link CachedValueState#update}, {@link
 * CachedMapState#put}), and nothing else. Writes it cannot see (the state's direct mode, see {@link
 * CacheSwitch}) call {@link #markStale()}; deletes need nothing (a superset stays correct).
 *
 * <p>It starts unbuilt and is built by scanning the column family ({@link #build}) on the task
 * thread, outside a write-back, when the first read needs it: a new state's column family is empty,
 * a restored one holds its restored keys. When the keys added since outgrow its capacity it is
 * rebuilt from the keys RocksDB holds then, with four times their number as capacity, so the scans
 * cost O(1) per added key. A column family of more than half of {@code maxKeys} keys is not
 * filtered (its reads mostly find their keys): the filter is dropped for good.
 *
 * <p>Layout: blocks of 512 bits (one cache line), 12 bits per key of capacity; a key sets 6 bits of
 * one block (false-positive rate under 1% at capacity).
 *
 * <p>Not thread-safe: the task thread; metric threads only read {@link #knownAbsentReads()}.
 */
final class WrittenKeyFilter {

    /** How many leading bytes of a stored RocksDB key the filter holds. */
    interface KeyPrefix {
        /** The length, or -1 when {@code key} cannot be parsed (the filter is then given up). */
        int lengthOf(byte[] key);
    }

    /** A ValueState's: the whole key. */
    static final KeyPrefix WHOLE_KEY = key -> key.length;

    /** Smallest capacity in keys (24 KiB of filter). */
    static final int MIN_KEYS = 1 << 14;

    /**
     * Keys of one map a build steps over before it seeks past the map: a seek costs about as much
     * as this many steps, so a map of a few entries is stepped through and a large one (a hot
     * key's, a distinct count's) costs one seek instead of a read of every entry.
     */
    static final int STEPS_BEFORE_SEEK = 16;

    private static final int BITS_PER_KEY = 12;
    private static final int LONGS_PER_BLOCK = 8;
    private static final int BITS_PER_PROBE = 9; // 512 bits per block
    private static final int PROBES = 6;

    private final int maxKeys;

    private long[] blocks;
    private int blockMask;
    private int capacity;
    private int added;
    private boolean usable;
    private boolean needsBuild = true;
    private boolean dropped;

    /** Plain: read by metric threads, where a stale value is fine (64-bit JVMs read it whole). */
    private long knownAbsentReads;

    private long builds;

    /**
     * @param maxKeys the largest capacity; column families over half of it (keys, or maps) are not
     *     filtered
     */
    WrittenKeyFilter(int maxKeys) {
        this.maxKeys = Math.max(MIN_KEYS, maxKeys);
    }

    /** Whether a scan must run before the filter answers again. */
    boolean needsBuild() {
        return needsBuild;
    }

    /**
     * True when the column family cannot hold {@code key}: nothing ever wrote it. Counts the read.
     */
    boolean knowsAbsent(byte[] key, int length) {
        if (!usable || mayContain(hash(key, length))) {
            return false;
        }
        knownAbsentReads++;
        return true;
    }

    /** A key written into the column family (the first {@code length} bytes of {@code key}). */
    void add(byte[] key, int length) {
        if (usable) {
            insert(hash(key, length));
        }
    }

    /**
     * A key written into the column family: {@code length} bytes of {@code buffer} at {@code at}.
     */
    void add(ByteBuffer buffer, int at, int length) {
        if (usable) {
            insert(hash(buffer, at, length));
        }
    }

    /** Something wrote into the column family past the filter: it must be built again. */
    void markStale() {
        if (usable) {
            usable = false;
            needsBuild = !dropped;
        }
    }

    /**
     * Scans the column family's keys (total order: a HashLinkList memtable is invisible to a
     * prefix-mode iterator) into a new filter with four times their number as capacity, or drops
     * the filter for good when they are more than half of {@code maxKeys}. Precondition: every key
     * written so far is in RocksDB (no write-back records pending).
     *
     * <p>With a {@code prefix} shorter than the key (a MapState's map), the keys after the first of
     * a map start with its prefix and are skipped unparsed, and a map of more than {@link
     * #STEPS_BEFORE_SEEK} keys is left with a seek to the first key after its prefix: Flink's own
     * map iteration and {@code clear} rely on no map's prefix starting with another's.
     */
    void build(RocksDB db, ColumnFamilyHandle columnFamily, KeyPrefix prefix) {
        needsBuild = false;
        usable = false;
        builds++;
        int limit = maxKeys / 2;
        int count = 0;
        long[] hashes = new long[1024];
        byte[] last = null;
        int lastLength = 0;
        int steps = 0;
        try (ReadOptions options = new ReadOptions().setTotalOrderSeek(true);
                RocksIterator it = db.newIterator(columnFamily, options)) {
            it.seekToFirst();
            while (it.isValid()) {
                byte[] key = it.key();
                if (last != null && lastLength < key.length && startsWith(key, last, lastLength)) {
                    // The same map: step over a few keys, seek past a large map.
                    if (++steps < STEPS_BEFORE_SEEK) {
                        it.next();
                    } else if (!seekPast(it, last, lastLength)) {
                        break; // no key can follow this map's prefix
                    }
                    continue;
                }
                steps = 0;
                if (count == limit) {
                    drop();
                    return;
                }
                int length = prefix.lengthOf(key);
                if (length < 0) {
                    drop(); // a key of a layout the filter does not know: seek, as stock
                    return;
                }
                if (count == hashes.length) {
                    hashes = Arrays.copyOf(hashes, count * 2);
                }
                hashes[count++] = hash(key, length);
                if (length < key.length) {
                    last = key;
                    lastLength = length;
                } else {
                    last = null;
                }
                it.next();
            }
        }
        allocate(Math.min(maxKeys, Math.max(MIN_KEYS, count * 4)));
        for (int i = 0; i < count; i++) {
            insert(hashes[i]);
        }
        usable = true;
    }

    /** Reads answered "absent" by the filter (metric threads may read it). */
    long knownAbsentReads() {
        return knownAbsentReads;
    }

    /** Scans so far (tests). */
    long builds() {
        return builds;
    }

    /** Whether the filter answers reads now (tests). */
    boolean usable() {
        return usable;
    }

    /** Whether the filter was given up for good (tests). */
    boolean dropped() {
        return dropped;
    }

    /**
     * Positions {@code it} at the first key that does not start with the first {@code length} bytes
     * of {@code key}: a seek to the prefix's successor in unsigned byte order. False when there is
     * none (the prefix is all 0xFF bytes): no key can follow.
     */
    private static boolean seekPast(RocksIterator it, byte[] key, int length) {
        byte[] successor = Arrays.copyOf(key, length);
        for (int i = length - 1; i >= 0; i--) {
            if (successor[i] != (byte) 0xFF) {
                successor[i]++;
                it.seek(Arrays.copyOf(successor, i + 1));
                return true;
            }
        }
        return false;
    }

    private static boolean startsWith(byte[] key, byte[] prefix, int length) {
        for (int i = 0; i < length; i++) {
            if (key[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** Off for good: every key may be in the column family from now on. */
    void drop() {
        dropped = true;
        usable = false;
        needsBuild = false;
        blocks = null;
    }

    private void allocate(int keys) {
        long bits = (long) keys * BITS_PER_KEY;
        int blockCount = Integer.highestOneBit((int) Math.max(1, (bits + 511) / 512));
        if ((long) blockCount * 512 < bits) {
            blockCount <<= 1;
        }
        if (blocks == null || blocks.length != blockCount * LONGS_PER_BLOCK) {
            blocks = new long[blockCount * LONGS_PER_BLOCK];
        } else {
            Arrays.fill(blocks, 0L);
        }
        blockMask = blockCount - 1;
        capacity = keys;
        added = 0;
    }

    private void insert(long hash) {
        if (mayContain(hash)) {
            return; // written before (or covered): counting it again would only saturate
        }
        if (added >= capacity) {
            // Saturated: rebuilt from what RocksDB holds at the next read.
            usable = false;
            needsBuild = true;
            return;
        }
        added++;
        int base = ((int) (hash >>> 32) & blockMask) * LONGS_PER_BLOCK;
        long probes = hash * 0x9E3779B97F4A7C15L;
        for (int i = 0; i < PROBES; i++) {
            int bit = (int) (probes >>> (i * BITS_PER_PROBE)) & 511;
            blocks[base + (bit >>> 6)] |= 1L << bit;
        }
    }

    private boolean mayContain(long hash) {
        int base = ((int) (hash >>> 32) & blockMask) * LONGS_PER_BLOCK;
        long probes = hash * 0x9E3779B97F4A7C15L;
        for (int i = 0; i < PROBES; i++) {
            int bit = (int) (probes >>> (i * BITS_PER_PROBE)) & 511;
            if ((blocks[base + (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    // -- hashing: the same 64-bit value for the same bytes, from an array or a buffer ------------

    static long hash(byte[] key, int length) {
        long h = 0x27D4EB2F165667C5L ^ (length * 0xC2B2AE3D27D4EB4FL);
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            h = step(h, littleEndianLong(key, i));
        }
        if (i < length) {
            long tail = 0;
            for (int shift = 0; i < length; i++, shift += 8) {
                tail |= (key[i] & 0xFFL) << shift;
            }
            h = step(h, tail);
        }
        return finish(h);
    }

    static long hash(ByteBuffer buffer, int at, int length) {
        long h = 0x27D4EB2F165667C5L ^ (length * 0xC2B2AE3D27D4EB4FL);
        boolean little = buffer.order() == ByteOrder.LITTLE_ENDIAN;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            long word = buffer.getLong(at + i);
            h = step(h, little ? word : Long.reverseBytes(word));
        }
        if (i < length) {
            long tail = 0;
            for (int shift = 0; i < length; i++, shift += 8) {
                tail |= (buffer.get(at + i) & 0xFFL) << shift;
            }
            h = step(h, tail);
        }
        return finish(h);
    }

    /** Java 8 (Flink 1.16's floor) has no byte-array view handles: eight loads and shifts. */
    private static long littleEndianLong(byte[] b, int i) {
        return (b[i] & 0xFFL)
                | (b[i + 1] & 0xFFL) << 8
                | (b[i + 2] & 0xFFL) << 16
                | (b[i + 3] & 0xFFL) << 24
                | (b[i + 4] & 0xFFL) << 32
                | (b[i + 5] & 0xFFL) << 40
                | (b[i + 6] & 0xFFL) << 48
                | (b[i + 7] & 0xFFL) << 56;
    }

    private static long step(long h, long word) {
        return Long.rotateLeft(h ^ (word * 0x9E3779B97F4A7C15L), 29) * 0xBF58476D1CE4E5B9L;
    }

    private static long finish(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }
}
