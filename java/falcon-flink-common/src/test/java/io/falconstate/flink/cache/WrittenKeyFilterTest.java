/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link WrittenKeyFilter} against a real RocksDB column family. */
class WrittenKeyFilterTest {

    @TempDir Path dir;

    private DBOptions dbOptions;
    private ColumnFamilyOptions cfOptions;
    private RocksDB db;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();

    @BeforeEach
    void open() throws RocksDBException {
        RocksDB.loadLibrary();
        dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        cfOptions = new ColumnFamilyOptions();
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions));
        descriptors.add(new ColumnFamilyDescriptor(bytes("state"), cfOptions));
        db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
    }

    @AfterEach
    void close() {
        handles.forEach(ColumnFamilyHandle::close);
        db.close();
        cfOptions.close();
        dbOptions.close();
    }

    private ColumnFamilyHandle state() {
        return handles.get(1);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] key(int i) {
        return bytes("key-" + i + "-namespace");
    }

    @Test
    void arraysAndBuffersOfTheSameBytesHashAlike() {
        for (int length = 0; length < 40; length++) {
            byte[] key = new byte[length];
            for (int i = 0; i < length; i++) {
                key[i] = (byte) (31 * i + length);
            }
            long fromArray = WrittenKeyFilter.hash(key, length);
            for (ByteOrder order :
                    new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
                ByteBuffer buffer = ByteBuffer.allocateDirect(length + 7).order(order);
                buffer.position(7);
                buffer.put(key);
                assertThat(WrittenKeyFilter.hash(buffer, 7, length)).isEqualTo(fromArray);
            }
        }
        assertThat(WrittenKeyFilter.hash(key(1), key(1).length))
                .isNotEqualTo(WrittenKeyFilter.hash(key(2), key(2).length));
    }

    @Test
    void anEmptyColumnFamilyKnowsEveryKeyAbsentUntilItIsWritten() {
        WrittenKeyFilter filter = new WrittenKeyFilter(1 << 20);
        assertThat(filter.needsBuild()).isTrue();
        filter.build(db, state(), WrittenKeyFilter.WHOLE_KEY);
        assertThat(filter.usable()).isTrue();
        byte[] k = key(7);
        assertThat(filter.knowsAbsent(k, k.length)).isTrue();
        filter.add(k, k.length);
        assertThat(filter.knowsAbsent(k, k.length)).isFalse();
        ByteBuffer buffer = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        byte[] other = key(8);
        buffer.position(3);
        buffer.put(other);
        filter.add(buffer, 3, other.length);
        assertThat(filter.knowsAbsent(other, other.length)).isFalse();
        assertThat(filter.knownAbsentReads()).isEqualTo(1);
    }

    @Test
    void noAddedKeyIsEverAbsentAndFewOthersArePresent() {
        WrittenKeyFilter filter = new WrittenKeyFilter(1 << 20);
        filter.build(db, state(), WrittenKeyFilter.WHOLE_KEY); // empty: capacity MIN_KEYS
        int n = WrittenKeyFilter.MIN_KEYS;
        for (int i = 0; i < n; i++) {
            byte[] k = key(i);
            filter.add(k, k.length);
        }
        assertThat(filter.usable()).isTrue();
        for (int i = 0; i < n; i++) {
            byte[] k = key(i);
            assertThat(filter.knowsAbsent(k, k.length)).as("key %d", i).isFalse();
        }
        int falsePositives = 0;
        int probes = 100_000;
        for (int i = n; i < n + probes; i++) {
            byte[] k = key(i);
            if (!filter.knowsAbsent(k, k.length)) {
                falsePositives++;
            }
        }
        assertThat((double) falsePositives / probes).isLessThan(0.02);
    }

    @Test
    void aSaturatedFilterIsRebuiltFromWhatRocksDbHolds() throws RocksDBException {
        WrittenKeyFilter filter = new WrittenKeyFilter(1 << 20);
        filter.build(db, state(), WrittenKeyFilter.WHOLE_KEY);
        int n = WrittenKeyFilter.MIN_KEYS * 2; // past its capacity even with false positives
        for (int i = 0; i < n; i++) {
            byte[] k = key(i);
            filter.add(k, k.length);
            db.put(state(), k, bytes("v"));
        }
        assertThat(filter.usable()).isFalse();
        assertThat(filter.needsBuild()).isTrue();
        // Half the keys are deleted again: the rebuild knows the rest, and nothing else.
        for (int i = 0; i < n; i += 2) {
            db.delete(state(), key(i));
        }
        filter.build(db, state(), WrittenKeyFilter.WHOLE_KEY);
        assertThat(filter.usable()).isTrue();
        assertThat(filter.builds()).isEqualTo(2);
        int knownAbsent = 0;
        for (int i = 0; i < n; i++) {
            byte[] k = key(i);
            boolean absent = filter.knowsAbsent(k, k.length);
            if (i % 2 == 1) {
                assertThat(absent).as("key %d", i).isFalse();
            } else if (absent) {
                knownAbsent++;
            }
        }
        assertThat(knownAbsent).isGreaterThan(n / 2 * 9 / 10);
    }

    @Test
    void aStaleFilterAnswersNothingUntilRebuilt() throws RocksDBException {
        WrittenKeyFilter filter = new WrittenKeyFilter(1 << 20);
        filter.build(db, state(), WrittenKeyFilter.WHOLE_KEY);
        db.put(state(), key(1), bytes("written past the filter"));
        filter.markStale();
        byte[] k = key(1);
        assertThat(filter.knowsAbsent(k, k.length)).isFalse();
        assertThat(filter.needsBuild()).isTrue();
        filter.build(db, state(), WrittenKeyFilter.WHOLE_KEY);
        assertThat(filter.knowsAbsent(k, k.length)).isFalse();
        byte[] never = key(2);
        assertThat(filter.knowsAbsent(never, never.length)).isTrue();
    }

    /** A map's key: "map-" + map + "|" (its prefix, up to the bar) + user key. */
    private static byte[] mapKey(int map, int userKey) {
        return bytes("map-" + map + "|" + userKey);
    }

    private static final WrittenKeyFilter.KeyPrefix UP_TO_THE_BAR =
            key -> {
                for (int i = 0; i < key.length; i++) {
                    if (key[i] == '|') {
                        return i + 1;
                    }
                }
                throw new AssertionError("no bar in a map key");
            };

    @Test
    void aMapColumnFamilyIsFilteredByMapPrefixesCountingMapsNotEntries() throws RocksDBException {
        int maxKeys = WrittenKeyFilter.MIN_KEYS;
        int maps = maxKeys / 2 - 1; // under the limit, with three times as many entries
        for (int map = 0; map < maps; map++) {
            for (int userKey = 0; userKey < 3; userKey++) {
                db.put(state(), mapKey(map, userKey), bytes("v"));
            }
        }
        WrittenKeyFilter filter = new WrittenKeyFilter(maxKeys);
        filter.build(db, state(), UP_TO_THE_BAR);
        assertThat(filter.dropped()).isFalse();
        assertThat(filter.usable()).isTrue();
        int knownAbsent = 0;
        for (int map = 0; map < 2 * maps; map++) {
            byte[] prefix = bytes("map-" + map + "|");
            boolean absent = filter.knowsAbsent(prefix, prefix.length);
            if (map < maps) {
                assertThat(absent).as("map %d", map).isFalse();
            } else if (absent) {
                knownAbsent++;
            }
        }
        assertThat(knownAbsent).isGreaterThan(maps * 9 / 10);
        // One more map than the limit: not filtered.
        db.put(state(), mapKey(maps, 0), bytes("v"));
        db.put(state(), mapKey(maps + 1, 0), bytes("v"));
        WrittenKeyFilter full = new WrittenKeyFilter(maxKeys);
        full.build(db, state(), UP_TO_THE_BAR);
        assertThat(full.dropped()).isTrue();
    }

    /**
     * Maps of 1 to 300 keys at prefixes whose successors carry (0x00FF to 0x0100) or do not exist
     * (0xFFFF): the build steps over small maps and seeks past large ones, and finds every map.
     */
    @Test
    @Timeout(60)
    void largeMapsAreSkippedWithASeekAndNoMapIsMissed() throws RocksDBException {
        int steps = WrittenKeyFilter.STEPS_BEFORE_SEEK;
        int[][] maps = {
            {0x00FE, 1},
            {0x00FF, 300},
            {0x0100, 1},
            {0x0101, steps},
            {0x0102, steps + 1},
            {0x7FFF, 300},
            {0x8000, 1},
            {0xFFFE, 2},
            {0xFFFF, 300}
        };
        for (int[] map : maps) {
            for (int userKey = 0; userKey < map[1]; userKey++) {
                db.put(
                        state(),
                        new byte[] {
                            (byte) (map[0] >> 8),
                            (byte) map[0],
                            (byte) (userKey >> 8),
                            (byte) userKey
                        },
                        bytes("v"));
            }
        }
        WrittenKeyFilter filter = new WrittenKeyFilter(1 << 20);
        filter.build(db, state(), key -> 2);
        assertThat(filter.usable()).isTrue();
        for (int[] map : maps) {
            byte[] prefix = {(byte) (map[0] >> 8), (byte) map[0]};
            assertThat(filter.knowsAbsent(prefix, 2)).as("map %04x", map[0]).isFalse();
        }
        int knownAbsent = 0;
        for (int never = 0x0200; never < 0x0300; never++) {
            if (filter.knowsAbsent(new byte[] {(byte) (never >> 8), (byte) never}, 2)) {
                knownAbsent++;
            }
        }
        assertThat(knownAbsent).isGreaterThan(240);
    }

    @Test
    void aKeyThatCannotBeParsedGivesTheFilterUp() throws RocksDBException {
        db.put(state(), mapKey(1, 0), bytes("v"));
        db.put(state(), bytes("no bar here"), bytes("v"));
        WrittenKeyFilter filter = new WrittenKeyFilter(1 << 20);
        filter.build(
                db,
                state(),
                key ->
                        new String(key, StandardCharsets.UTF_8).contains("|")
                                ? UP_TO_THE_BAR.lengthOf(key)
                                : -1);
        assertThat(filter.dropped()).isTrue();
        byte[] never = bytes("map-2|");
        assertThat(filter.knowsAbsent(never, never.length)).isFalse();
    }

    @Test
    void aColumnFamilyOfMoreThanHalfTheMaximumIsNotFiltered() throws RocksDBException {
        int maxKeys = WrittenKeyFilter.MIN_KEYS;
        for (int i = 0; i <= maxKeys / 2; i++) {
            db.put(state(), key(i), bytes("v"));
        }
        WrittenKeyFilter filter = new WrittenKeyFilter(maxKeys);
        filter.build(db, state(), WrittenKeyFilter.WHOLE_KEY);
        assertThat(filter.dropped()).isTrue();
        assertThat(filter.needsBuild()).isFalse();
        byte[] never = key(maxKeys * 4);
        assertThat(filter.knowsAbsent(never, never.length)).isFalse();
        filter.markStale();
        assertThat(filter.needsBuild()).isFalse();
    }
}
