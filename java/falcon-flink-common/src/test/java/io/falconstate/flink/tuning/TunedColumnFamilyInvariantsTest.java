/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.TableProperties;
import org.rocksdb.WriteOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The RocksDB facts the tuner relies on, checked on FRocksDB 6.20.3 (frocksdbjni, the library Flink
 * 1.16 ships) with keys laid out by Flink's own {@link SerializedCompositeKeyBuilder}, and with
 * data both in SST files and in the memtable. Where a fact is a hazard, the test shows the hazard
 * and then the safeguard Falcon uses. Profiles are built like production ones (advisor inputs from
 * {@link CompositeKeyLayout}), applied by {@link ColumnFamilyTuner#apply}.
 */
class TunedColumnFamilyInvariantsTest {

    /** Max parallelism 128 → 1 key-group byte; Long key (8) + VoidNamespace (1) → 10 bytes. */
    private static final int KEY_GROUPS = 128;

    private static final int KEY_GROUP_BYTES = 1;
    private static final int KEY_LENGTH = 10;
    private static final int IN_SST = 300; // keys 0..299 are flushed to an SST file
    private static final int IN_MEMTABLE = 200; // keys 300..499 stay in the memtable
    private static final int TOTAL = IN_SST + IN_MEMTABLE;

    @TempDir Path dir;

    private final List<AutoCloseable> closeLast = new ArrayList<>();
    private final List<AutoCloseable> closeFirst = new ArrayList<>();
    private RocksDB db;
    private ColumnFamilyHandle cf;
    private LRUCache cache;

    @BeforeAll
    static void loadRocksDb() {
        RocksDB.loadLibrary();
    }

    @BeforeEach
    void noDbYet() {
        db = null;
        cf = null;
    }

    @AfterEach
    void closeAll() throws Exception {
        Collections.reverse(closeFirst);
        for (AutoCloseable c : closeFirst) {
            c.close();
        }
        if (db != null) {
            db.close();
        }
        for (AutoCloseable c : closeLast) {
            c.close();
        }
    }

    // -- helpers ------------------------------------------------------------------------------

    private static final SerializedCompositeKeyBuilder<Long> KEYS =
            new SerializedCompositeKeyBuilder<>(LongSerializer.INSTANCE, KEY_GROUP_BYTES, 32);

    /** Flink's bytes for (key group of k, k, VoidNamespace). Key group = k % 7 for grouping. */
    private static byte[] valueKey(long k) {
        KEYS.setKeyAndKeyGroup(k, keyGroupOf(k));
        return KEYS.buildCompositeKeyNamespace(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE);
    }

    private static byte[] mapKey(long k, long userKey) throws IOException {
        KEYS.setKeyAndKeyGroup(k, keyGroupOf(k));
        return KEYS.buildCompositeKeyNamesSpaceUserKey(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                userKey,
                LongSerializer.INSTANCE);
    }

    private static byte[] mapPrefix(long k) {
        return valueKey(k);
    }

    private static int keyGroupOf(long k) {
        return (int) (k % 7);
    }

    private static byte[] value(long k) {
        return ("v" + k).getBytes(StandardCharsets.UTF_8);
    }

    private ColumnFamilyTuner tuner() {
        ColumnFamilyTuner tuner = new ColumnFamilyTuner(true, true, KEY_GROUP_BYTES);
        closeLast.add(tuner);
        return tuner;
    }

    /** Options as Flink's resource container builds them: block-based table, shared LRU cache. */
    private ColumnFamilyOptions flinkLikeOptions() {
        cache = new LRUCache(8 << 20);
        closeLast.add(cache);
        BlockBasedTableConfig table =
                new BlockBasedTableConfig()
                        .setBlockCache(cache)
                        .setCacheIndexAndFilterBlocks(true)
                        .setCacheIndexAndFilterBlocksWithHighPriority(true)
                        .setPinL0FilterAndIndexBlocksInCache(true);
        ColumnFamilyOptions options = new ColumnFamilyOptions().setTableFormatConfig(table);
        closeLast.add(options);
        return options;
    }

    private TuningProfile valueProfile() {
        TuningProfile profile =
                tuner().advise(
                                "accState",
                                org.apache.flink.api.common.state.StateDescriptor.Type.VALUE,
                                LongSerializer.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                64 << 20);
        assertThat(profile.isHashMemtable()).as(profile.toString()).isTrue();
        assertThat(profile.prefixLength()).isEqualTo(KEY_LENGTH);
        return profile;
    }

    private TuningProfile mapProfile() {
        TuningProfile profile =
                tuner().advise(
                                "left-records",
                                org.apache.flink.api.common.state.StateDescriptor.Type.MAP,
                                LongSerializer.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                64 << 20);
        assertThat(profile.tuned()).as(profile.toString()).isTrue();
        assertThat(profile.isHashMemtable()).isFalse();
        assertThat(profile.prefixLength()).isEqualTo(KEY_LENGTH);
        return profile;
    }

    /** Opens a DB with the DB rule applied and one column family with {@code options}. */
    private void open(ColumnFamilyOptions options, boolean dbRule) throws RocksDBException {
        DBOptions dbOptions =
                new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        closeLast.add(dbOptions);
        DbRuleOptionsFactory.applyDbOptions(dbOptions, dbRule);
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        ColumnFamilyOptions defaultOptions = new ColumnFamilyOptions();
        closeLast.add(defaultOptions);
        db =
                RocksDB.open(
                        dbOptions,
                        dir.toString(),
                        Arrays.asList(
                                new ColumnFamilyDescriptor(
                                        RocksDB.DEFAULT_COLUMN_FAMILY, defaultOptions),
                                new ColumnFamilyDescriptor(
                                        "state".getBytes(StandardCharsets.UTF_8), options)),
                        handles);
        closeFirst.addAll(handles);
        cf = handles.get(1);
    }

    private WriteOptions writeOptions() {
        WriteOptions w = new WriteOptions().setDisableWAL(true); // as Flink
        closeFirst.add(w);
        return w;
    }

    /** Value keys 0..TOTAL-1; the first IN_SST flushed to an SST file, the rest in the memtable. */
    private void writeValueKeysToSstAndMemtable() throws RocksDBException {
        WriteOptions w = writeOptions();
        for (long k = 0; k < IN_SST; k++) {
            db.put(cf, w, valueKey(k), value(k));
        }
        flush(db, cf);
        for (long k = IN_SST; k < TOTAL; k++) {
            db.put(cf, w, valueKey(k), value(k));
        }
        assertThat(db.getLongProperty(cf, "rocksdb.num-entries-active-mem-table"))
                .isEqualTo(IN_MEMTABLE);
        assertThat(db.getLongProperty(cf, "rocksdb.estimate-num-keys")).isGreaterThan(IN_SST - 1);
    }

    private Set<String> scanAll(ReadOptions readOptions) {
        Set<String> keys = new TreeSet<>();
        try (RocksIterator it = db.newIterator(cf, readOptions)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                keys.add(Arrays.toString(it.key()));
            }
        }
        return keys;
    }

    /** Keys a Flink prefix scan sees: seek(prefix), next() while the prefix matches. */
    private List<byte[]> prefixScan(ReadOptions readOptions, byte[] prefix) {
        return scanFrom(readOptions, prefix, prefix);
    }

    /** seek(target), next() while {@code prefix} matches. */
    private List<byte[]> scanFrom(ReadOptions readOptions, byte[] target, byte[] prefix) {
        List<byte[]> keys = new ArrayList<>();
        try (RocksIterator it = db.newIterator(cf, readOptions)) {
            for (it.seek(target); it.isValid() && startsWith(it.key(), prefix); it.next()) {
                keys.add(it.key());
            }
        }
        return keys;
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        if (key.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (key[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    // -- the DB-wide rule ---------------------------------------------------------------------

    @Test
    void hashMemtableNeedsConcurrentMemtableWritesOffAtDbOpen() throws Exception {
        ColumnFamilyOptions options = flinkLikeOptions();
        TuningApplier.apply(valueProfile(), options, closeLast);
        // Flink's default DB options keep allow_concurrent_memtable_write = true.
        assertThatThrownBy(() -> open(options, false))
                .isInstanceOf(RocksDBException.class)
                .hasMessageContaining("allow_concurrent_memtable_write");
        closeFirst.clear();
        // The same options open with the DB rule.
        open(options, true);
        db.put(cf, valueKey(1), value(1));
        assertThat(db.get(cf, valueKey(1))).isEqualTo(value(1));
    }

    // -- ValueState on HashLinkList -----------------------------------------------------------

    @Test
    void pointOperationsOnHashColumnFamilySeeMemtableAndSst() throws Exception {
        ColumnFamilyOptions options = flinkLikeOptions();
        TuningApplier.apply(valueProfile(), options, closeLast);
        open(options, true);
        writeValueKeysToSstAndMemtable();
        WriteOptions w = writeOptions();

        // Flink's RocksDBValueState.value(): db.get(cf, key) with default ReadOptions.
        for (long k = 0; k < TOTAL; k++) {
            assertThat(db.get(cf, valueKey(k))).as("key %s", k).isEqualTo(value(k));
        }
        for (long k = TOTAL; k < TOTAL + 100; k++) {
            assertThat(db.get(cf, valueKey(k))).as("absent key %s", k).isNull();
        }
        // update() of a key in SST, and of a key in the memtable; clear() of both.
        db.put(cf, w, valueKey(5), value(1005));
        db.put(cf, w, valueKey(IN_SST + 5), value(1305));
        db.delete(cf, w, valueKey(6));
        db.delete(cf, w, valueKey(IN_SST + 6));
        assertThat(db.get(cf, valueKey(5))).isEqualTo(value(1005));
        assertThat(db.get(cf, valueKey(IN_SST + 5))).isEqualTo(value(1305));
        assertThat(db.get(cf, valueKey(6))).isNull();
        assertThat(db.get(cf, valueKey(IN_SST + 6))).isNull();
        flush(db, cf);
        assertThat(db.get(cf, valueKey(IN_SST + 5))).isEqualTo(value(1305));
        assertThat(db.get(cf, valueKey(IN_SST + 6))).isNull();
    }

    /**
     * Invariant 1: with the prefix extractor and default ReadOptions (what getKeys, entry counts,
     * migration and canonical savepoints use), seekToFirst skips every memtable entry. A flush of
     * the column family, or total-order seek, makes the scan complete.
     */
    @Test
    void wholeColumnFamilyScanOfHashMemtableNeedsFlushOrTotalOrder() throws Exception {
        ColumnFamilyOptions options = flinkLikeOptions();
        TuningApplier.apply(valueProfile(), options, closeLast);
        open(options, true);
        writeValueKeysToSstAndMemtable();

        // The hazard: only the SST part is seen.
        try (ReadOptions defaults = new ReadOptions()) {
            assertThat(scanAll(defaults)).hasSize(IN_SST);
        }
        // Canonical savepoints read with new ReadOptions() and a snapshot: same hazard.
        Snapshot snapshot = db.getSnapshot();
        try (ReadOptions savepointLike = new ReadOptions().setSnapshot(snapshot)) {
            assertThat(scanAll(savepointLike)).hasSize(IN_SST);
        } finally {
            db.releaseSnapshot(snapshot);
        }
        // Safeguard A: total-order seek.
        try (ReadOptions totalOrder = new ReadOptions().setTotalOrderSeek(true)) {
            assertThat(scanAll(totalOrder)).hasSize(TOTAL);
        }
        // Safeguard B (what Falcon does): flush the column family first.
        flush(db, cf);
        assertThat(db.getLongProperty(cf, "rocksdb.num-entries-active-mem-table")).isZero();
        try (ReadOptions defaults = new ReadOptions()) {
            assertThat(scanAll(defaults)).hasSize(TOTAL);
        }
    }

    /**
     * Invariant 2: key-group seeks (1–2 bytes, shorter than the extractor) are correct on a hash
     * column family only while its data is in SST files, which is the case on rescaling's temporary
     * databases (just restored, empty memtable). With memtable data they miss entries, which is why
     * hash tuning is never applied to timer column families.
     */
    @Test
    void keyGroupSeeksOnHashColumnFamilyAreCompleteOnlyForSstData() throws Exception {
        ColumnFamilyOptions options = flinkLikeOptions();
        TuningApplier.apply(valueProfile(), options, closeLast);
        open(options, true);
        writeValueKeysToSstAndMemtable();

        int expectedInGroup3 = 0;
        for (long k = 0; k < TOTAL; k++) {
            expectedInGroup3 += keyGroupOf(k) == 3 ? 1 : 0;
        }
        byte[] group3 = {3};
        // The hazard: with data in the memtable the short seek misses memtable entries.
        try (ReadOptions defaults = new ReadOptions()) {
            assertThat(prefixScan(defaults, group3).size()).isLessThan(expectedInGroup3);
        }
        // Data only in SST (as on a restored temporary DB): every key of the group is seen.
        flush(db, cf);
        try (ReadOptions defaults = new ReadOptions()) {
            for (int group = 0; group < 7; group++) {
                int expected = 0;
                for (long k = 0; k < TOTAL; k++) {
                    expected += keyGroupOf(k) == group ? 1 : 0;
                }
                assertThat(prefixScan(defaults, new byte[] {(byte) group}))
                        .as("key group %s", group)
                        .hasSize(expected);
            }
        }
    }

    /**
     * Invariant 3: a key shorter than the extractor's length lands in a bucket chosen from bytes
     * past the user key, so a get of the same key misses it while it is in the memtable: silent
     * loss. The tuner's length check turns that into an exception.
     */
    @Test
    void keyOfWrongLengthInHashColumnFamilyIsLostSilentlyUnlessChecked() throws Exception {
        ColumnFamilyOptions options = flinkLikeOptions();
        ColumnFamilyTuner tuner = tuner();
        TuningProfile profile =
                tuner.tune(
                        "accState",
                        org.apache.flink.api.common.state.StateDescriptor.Type.VALUE,
                        LongSerializer.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        options);
        open(options, true);
        WriteOptions w = writeOptions();
        int missed = 0;
        for (int i = 0; i < 8; i++) {
            byte[] shortKey = Arrays.copyOf(valueKey(i), KEY_LENGTH - 2);
            db.put(cf, w, shortKey, value(i));
            missed += db.get(cf, shortKey) == null ? 1 : 0;
        }
        assertThat(missed).as("short keys not found right after put").isGreaterThan(0);

        assertThatThrownBy(
                        () -> KeyLengthInvariant.checkKeyLength(tuner, "accState", KEY_LENGTH - 2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("accState")
                .hasMessageContaining(profile.prefixLength() + "-byte keys");
        KeyLengthInvariant.checkKeyLength(tuner, "accState", KEY_LENGTH); // the right length passes
    }

    // -- MapState with the range filter ---------------------------------------------------------

    /** Maps 0..59 with 12 entries each: maps 0..19 in SST, 20..39 split, 40..59 in the memtable. */
    private void writeMaps() throws Exception {
        WriteOptions w = writeOptions();
        for (long m = 0; m < 40; m++) {
            for (long u = 0; u < (m < 20 ? 12 : 6); u++) {
                db.put(cf, w, mapKey(m, u), value(u));
            }
        }
        flush(db, cf);
        for (long m = 20; m < 60; m++) {
            for (long u = (m < 40 ? 6 : 0); u < 12; u++) {
                db.put(cf, w, mapKey(m, u), value(u));
            }
        }
    }

    @Test
    void mapPrefixSeeksGetsAndRemovesAreExactWithRangeFilter() throws Exception {
        ColumnFamilyOptions options = flinkLikeOptions();
        TuningApplier.apply(mapProfile(), options, closeLast);
        open(options, true);
        writeMaps();
        WriteOptions w = writeOptions();

        try (ReadOptions flinkReadOptions = new ReadOptions()) {
            for (long m = 0; m < 60; m++) {
                // RocksDBMapState iterator/entries/isEmpty: seek(prefix), scan while it matches.
                List<byte[]> entries = prefixScan(flinkReadOptions, mapPrefix(m));
                assertThat(entries).as("map %s", m).hasSize(12);
                for (int u = 0; u < 12; u++) {
                    assertThat(entries.get(u)).isEqualTo(mapKey(m, u));
                }
                // get/contains of present and absent user keys.
                assertThat(db.get(cf, mapKey(m, 3))).isEqualTo(value(3));
                assertThat(db.get(cf, mapKey(m, 99))).isNull();
            }
            // Absent maps: isEmpty() is true, iteration yields nothing.
            for (long m = 60; m < 200; m++) {
                assertThat(prefixScan(flinkReadOptions, mapPrefix(m))).as("map %s", m).isEmpty();
                assertThat(db.get(cf, mapKey(m, 0))).isNull();
            }
            // remove() of an SST entry and of a memtable entry, then re-seek.
            db.delete(cf, w, mapKey(5, 0));
            db.delete(cf, w, mapKey(45, 11));
            assertThat(prefixScan(flinkReadOptions, mapPrefix(5))).hasSize(11);
            assertThat(prefixScan(flinkReadOptions, mapPrefix(45))).hasSize(11);
            assertThat(db.get(cf, mapKey(5, 0))).isNull();
            // Re-seek from the last key read, as RocksDBMapIterator does on cache reload.
            List<byte[]> tail = scanFrom(flinkReadOptions, mapKey(30, 7), mapPrefix(30));
            assertThat(tail).hasSize(5); // 7..11
        }
    }

    /**
     * Rescaling and timers seek to 1–2-byte key-group prefixes; getKeys seeks to first. On a
     * range-filtered map column family (skiplist memtable) such out-of-domain seeks are neither
     * bloom-filtered nor bucketed, so they see every entry in memtable and SST.
     */
    @Test
    void keyGroupSeeksAndFullScansOnRangeFilteredMapSeeEverything() throws Exception {
        ColumnFamilyOptions options = flinkLikeOptions();
        TuningApplier.apply(mapProfile(), options, closeLast);
        open(options, true);
        writeMaps();
        try (ReadOptions defaults = new ReadOptions()) {
            assertThat(scanAll(defaults)).hasSize(60 * 12);
            int total = 0;
            for (int group = 0; group < 7; group++) {
                int expected = 0;
                for (long m = 0; m < 60; m++) {
                    expected += keyGroupOf(m) == group ? 12 : 0;
                }
                List<byte[]> seen = prefixScan(defaults, new byte[] {(byte) group});
                assertThat(seen).as("key group %s", group).hasSize(expected);
                total += seen.size();
            }
            assertThat(total).isEqualTo(60 * 12);
        }
    }

    /**
     * Why the map prefix is exactly key group + key + namespace: a capped extractor longer than
     * that (here + the 8-byte user key) makes the map seek's target an in-domain "prefix" that no
     * stored prefix matches, so the SST's filter rejects it and map iteration loses SST data.
     */
    @Test
    void cappedPrefixLongerThanMapPrefixLosesSstEntries() throws Exception {
        ColumnFamilyOptions options = flinkLikeOptions();
        TuningApplier.apply(mapProfile(), options, closeLast);
        options.useCappedPrefixExtractor(KEY_LENGTH + 8); // the mistake
        open(options, true);
        writeMaps();
        flush(db, cf);
        int seen = 0;
        try (ReadOptions defaults = new ReadOptions()) {
            for (long m = 0; m < 60; m++) {
                seen += prefixScan(defaults, mapPrefix(m)).size();
            }
        }
        assertThat(seen).isLessThan(60 * 12 / 2);
    }

    @Test
    void rangeFilterGoesIntoFlinksTableConfigAndKeepsItsCacheSettings() throws Exception {
        ColumnFamilyOptions options = flinkLikeOptions();
        BlockBasedTableConfig flinks = (BlockBasedTableConfig) options.tableFormatConfig();
        TuningApplier.apply(mapProfile(), options, closeLast);

        assertThat(options.tableFormatConfig()).isSameAs(flinks);
        assertThat(flinks.filterPolicy()).isNotNull();
        assertThat(flinks.wholeKeyFiltering()).isTrue();
        assertThat(flinks.partitionFilters()).isTrue();
        assertThat(flinks.cacheIndexAndFilterBlocks()).isTrue();
        assertThat(flinks.pinL0FilterAndIndexBlocksInCache()).isTrue();
        assertThat(options.memtablePrefixBloomSizeRatio()).isGreaterThan(0.0).isLessThan(0.25);

        // SST files carry the bloom filter over prefixes of exactly the map prefix, and their
        // filter and index blocks live in the (shared) block cache of Flink's table config.
        open(options, true);
        writeMaps();
        flush(db, cf);
        Map<String, TableProperties> tables = db.getPropertiesOfAllTables(cf);
        assertThat(tables).isNotEmpty();
        for (TableProperties table : tables.values()) {
            assertThat(table.getFilterPolicyName()).isEqualTo("rocksdb.BuiltinBloomFilter");
            assertThat(table.getFilterSize()).isGreaterThan(0);
            assertThat(table.getPrefixExtractorName())
                    .isEqualTo("rocksdb.FixedPrefix." + KEY_LENGTH);
        }
        assertThat(db.get(cf, mapKey(1000, 0))).isNull();
        assertThat(cache.getUsage()).isGreaterThan(0);
    }

    /** Flushes one column family's memtable and waits until it is written. */
    private static void flush(RocksDB db, ColumnFamilyHandle columnFamily) throws RocksDBException {
        try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
            db.flush(options, columnFamily);
        }
    }
}
