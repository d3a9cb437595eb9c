/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.log.FalconLog;
import io.falconstate.flink.nativeaccess.NativeLayout;
import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.HashLinkedListMemTableConfig;
import org.rocksdb.IndexType;
import org.rocksdb.PlainTableConfig;
import org.rocksdb.RocksDB;
import org.rocksdb.SkipListMemTableConfig;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link ColumnFamilyTuner}: decisions from serializers, options changed, log lines. */
class ColumnFamilyTunerTest {

    private final List<String> logLines = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private Logger logger;
    private AbstractAppender appender;

    @BeforeAll
    static void libraries() {
        RocksDB.loadLibrary();
        assertThat(NativeLibrary.load().isLoaded()).as(NativeLibrary.load().toString()).isTrue();
    }

    @BeforeEach
    void captureLog() {
        logger = (Logger) LogManager.getLogger(FalconLog.LOG.getName());
        appender =
                new AbstractAppender(
                        "tuning-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        logLines.add(
                                event.getLevel() + " " + event.getMessage().getFormattedMessage());
                    }
                };
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void release() throws Exception {
        logger.removeAppender(appender);
        appender.stop();
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private ColumnFamilyOptions flinkOptions() {
        ColumnFamilyOptions options =
                new ColumnFamilyOptions().setTableFormatConfig(new BlockBasedTableConfig());
        toClose.add(options);
        return options;
    }

    private ColumnFamilyTuner tuner(boolean hash, boolean range, int keyGroupBytes) {
        ColumnFamilyTuner tuner = new ColumnFamilyTuner(hash, range, keyGroupBytes);
        toClose.add(tuner);
        return tuner;
    }

    @Test
    void valueStateGetsHashLinkListAndLogsIt() {
        ColumnFamilyOptions options = flinkOptions();
        ColumnFamilyTuner tuner = tuner(true, true, 2);
        // Long key (8) + TimeWindow namespace (16) + 2 key-group bytes.
        TuningProfile p =
                tuner.tune(
                        "accState",
                        StateDescriptor.Type.VALUE,
                        LongSerializer.INSTANCE,
                        new TimeWindow.Serializer(),
                        options);
        assertThat(p.isHashMemtable()).isTrue();
        assertThat(options.memTableConfig()).isInstanceOf(HashLinkedListMemTableConfig.class);
        HashLinkedListMemTableConfig memtable =
                (HashLinkedListMemTableConfig) options.memTableConfig();
        assertThat(memtable.bucketCount()).isEqualTo(options.writeBufferSize() / 1024);
        assertThat(options.arenaBlockSize()).isEqualTo(1 << 20);
        assertThat(memtable.ifLogBucketDistWhenFlush()).isFalse();
        assertThat(((BlockBasedTableConfig) options.tableFormatConfig()).filterPolicy()).isNull();
        assertThat(logLines)
                .containsExactly(
                        "INFO [FALCON] accState is valueState, use HashLinkList as memTable structure (prefix 26 bytes)");
        assertThat(tuner.needsFlushBeforeScan("accState")).isTrue();
        assertThat(tuner.profileOf("accState")).isEqualTo(p);
    }

    /** Flink's write-buffer manager for 4 MiB of managed memory: 2/3 x 0.5 x 4 MiB. */
    private static final long SMALL_MANAGER = 1_398_101;

    private TuningProfile tuneLongKeyed(
            ColumnFamilyTuner tuner, String name, StateDescriptor.Type type) {
        return tuner.tune(
                name,
                type,
                LongSerializer.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                flinkOptions());
    }

    @Test
    void smallSlotWriteBuffersShrinkFixedBlocksAndHashMemtableStepsAside() {
        SlotWriteBuffers slot = new SlotWriteBuffers(SMALL_MANAGER);
        ColumnFamilyTuner tuner = tuner(true, true, 1);
        tuner.useSlotWriteBuffers(slot);

        TuningProfile map = tuneLongKeyed(tuner, "left-records", StateDescriptor.Type.MAP);
        assertThat(map.tuned()).isTrue();
        // capacity / 64 per memtable, instead of 2% of the 64 MiB write buffer (1.3 MiB).
        assertThat(map.fixedAllocationBytes()).isEqualTo(SMALL_MANAGER / 64);
        assertThat(map.arenaBlockSize()).isLessThanOrEqualTo(SMALL_MANAGER / 32);
        assertThat(slot.reserved()).isEqualTo(SMALL_MANAGER / 64);

        // 1024 buckets (8 KiB) do not fit in capacity / 64 (21 KiB)? They do; 2 MiB less do not.
        TuningProfile value = tuneLongKeyed(tuner, "accState", StateDescriptor.Type.VALUE);
        assertThat(value.isHashMemtable()).isTrue();
        assertThat(value.hashBucketCount()).isEqualTo(SMALL_MANAGER / 64 / 8);

        ColumnFamilyTuner tight = tuner(true, true, 1);
        tight.useSlotWriteBuffers(new SlotWriteBuffers(64 * 8 * 1024 - 64));
        TuningProfile refused = tuneLongKeyed(tight, "accState", StateDescriptor.Type.VALUE);
        assertThat(refused.tuned()).isFalse();
        assertThat(refused.reasonCode()).isEqualTo(NativeLayout.REASON_WRITE_BUFFERS_TOO_SMALL);
        assertThat(logLines)
                .contains(
                        "INFO [FALCON] accState left untuned: the slot's write buffers cannot"
                                + " carry a hash memtable's 1024 buckets in every memtable"
                                + " (write-buffer manager of 524224 bytes, 0 bytes of it held"
                                + " by tuned column families' memtables)");
    }

    @Test
    void slotWriteBuffersAreSharedByTheSlotsBackendsAndGivenBackOnClose() {
        SlotWriteBuffers slot = new SlotWriteBuffers(SMALL_MANAGER);
        ColumnFamilyTuner first = tuner(false, true, 1);
        ColumnFamilyTuner second = tuner(false, true, 1);
        first.useSlotWriteBuffers(slot);
        second.useSlotWriteBuffers(slot);
        long perMemtable = SMALL_MANAGER / 64;
        long slotLimit = SMALL_MANAGER / 8;

        // Each backend's maps take capacity / 64 until the slot's capacity / 8 is spent.
        int tuned = 0;
        for (int i = 0; slot.reserved() + perMemtable <= slotLimit; i++) {
            ColumnFamilyTuner tuner = i % 2 == 0 ? first : second;
            assertThat(
                            tuneLongKeyed(tuner, "map-" + i, StateDescriptor.Type.MAP)
                                    .fixedAllocationBytes())
                    .isEqualTo(perMemtable);
            tuned++;
        }
        assertThat(slot.reserved()).isEqualTo(tuned * perMemtable);
        // The rest of capacity / 8 is under 4 KiB or goes to one more, smaller bloom; after that
        // the range filter keeps its SST filter, without a memtable bloom, and says so.
        TuningProfile last = null;
        for (int i = 0; i < 3; i++) {
            last = tuneLongKeyed(second, "late-" + i, StateDescriptor.Type.MAP);
        }
        assertThat(last.tuned()).isTrue();
        assertThat(last.memtablePrefixBloomRatio()).isZero();
        assertThat(last.filter()).isEqualTo(TuningProfile.Filter.BLOOM);
        assertThat(slot.reserved()).isLessThanOrEqualTo(slotLimit);
        assertThat(logLines)
                .anyMatch(
                        l ->
                                l.startsWith(
                                        "INFO [FALCON] late-2 range filter without memtable"
                                                + " bloom: the slot's write buffers cannot carry"
                                                + " one in every memtable (write-buffer manager"
                                                + " of 1398101 bytes, "));

        // Tuning a column family again (a restore's temporary database) keeps one reservation.
        long before = slot.reserved();
        tuneLongKeyed(first, "map-0", StateDescriptor.Type.MAP);
        assertThat(slot.reserved()).isEqualTo(before);

        long secondsShare = slot.reserved();
        first.close();
        assertThat(slot.reserved()).isLessThan(secondsShare);
        first.close();
        second.close();
        assertThat(slot.reserved()).isZero();
    }

    @Test
    void oneAccountingPerWriteBufferManager() {
        Object manager = new Object();
        SlotWriteBuffers slot = SlotWriteBuffers.of(manager, SMALL_MANAGER);
        assertThat(SlotWriteBuffers.of(manager, SMALL_MANAGER)).isSameAs(slot);
        assertThat(SlotWriteBuffers.of(new Object(), SMALL_MANAGER)).isNotSameAs(slot);
        assertThatThrownBy(() -> new SlotWriteBuffers(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mapStateGetsRangeFilterAndLogsIt() {
        ColumnFamilyOptions options = flinkOptions();
        ColumnFamilyTuner tuner = tuner(true, true, 1);
        // SQL join-like: 1 + Long key 8 + VoidNamespace 1 = 10 bytes; another state: 22 bytes.
        TuningProfile p =
                tuner.tune(
                        "left-records",
                        StateDescriptor.Type.MAP,
                        LongSerializer.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        options);
        assertThat(p.tuned()).isTrue();
        assertThat(p.prefixLength()).isEqualTo(10);
        assertThat(options.memTableConfig()).isNull(); // skiplist kept
        assertThat(options.memtablePrefixBloomSizeRatio()).isEqualTo(0.02);
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        assertThat(table.filterPolicy()).isInstanceOf(BloomFilter.class);
        assertThat(table.wholeKeyFiltering()).isTrue();
        assertThat(table.partitionFilters()).isTrue();
        assertThat(table.indexType()).isEqualTo(IndexType.kTwoLevelIndexSearch);
        assertThat(options.optimizeFiltersForHits()).isTrue(); // no filter in the last level
        assertThat(logLines)
                .containsExactly(
                        "INFO [FALCON] left-records is map, use range filter (prefix 10 bytes)");
        assertThat(tuner.needsFlushBeforeScan("left-records")).isFalse();
    }

    @Test
    void aFilterFlinkAlreadyConfiguredIsKept() {
        ColumnFamilyOptions options = flinkOptions();
        BloomFilter flinks = new BloomFilter(10, false); // state.backend.rocksdb.use-bloom-filter
        toClose.add(flinks);
        ((BlockBasedTableConfig) options.tableFormatConfig()).setFilterPolicy(flinks);
        tuner(true, true, 1)
                .tune(
                        "m",
                        StateDescriptor.Type.MAP,
                        LongSerializer.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        options);
        assertThat(((BlockBasedTableConfig) options.tableFormatConfig()).filterPolicy())
                .isSameAs(flinks);
        // Flink's own filter keeps Flink's layout: partitioned only with its option.
        assertThat(((BlockBasedTableConfig) options.tableFormatConfig()).partitionFilters())
                .isFalse();
        assertThat(options.optimizeFiltersForHits()).isFalse();
    }

    @Test
    void untunedStatesLogWhy() {
        ColumnFamilyTuner tuner = tuner(true, true, 1);
        tuner.tune(
                "names",
                StateDescriptor.Type.VALUE,
                StringSerializer.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                flinkOptions());
        tuner.tune(
                "buffer",
                StateDescriptor.Type.LIST,
                LongSerializer.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                flinkOptions());
        tuner.tune(
                "perWindow",
                StateDescriptor.Type.MAP,
                LongSerializer.INSTANCE,
                StringSerializer.INSTANCE,
                flinkOptions());
        tuner.tune("restored", null, null, null, flinkOptions());
        assertThat(logLines)
                .containsExactly(
                        "INFO [FALCON] names left untuned: keys have no fixed serialized length "
                                + "(key serializer StringSerializer is variable-length)",
                        "INFO [FALCON] buffer left untuned: only value and map states are tuned",
                        "INFO [FALCON] perWindow left untuned: namespaces have no fixed serialized "
                                + "length (namespace serializer StringSerializer is variable-length)",
                        "INFO [FALCON] restored left untuned: state kind and serializers unknown");
        assertThat(tuner.needsFlushBeforeScan("names")).isFalse();
    }

    @Test
    void switchedOffTuningsLeaveOptionsUntouched() {
        ColumnFamilyTuner tuner = tuner(false, false, 1);
        ColumnFamilyOptions value = flinkOptions();
        ColumnFamilyOptions map = flinkOptions();
        tuner.tune(
                "v",
                StateDescriptor.Type.VALUE,
                LongSerializer.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                value);
        tuner.tune(
                "m",
                StateDescriptor.Type.MAP,
                LongSerializer.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                map);
        assertThat(value.memTableConfig()).isNull();
        assertThat(map.memtablePrefixBloomSizeRatio()).isZero();
        assertThat(((BlockBasedTableConfig) map.tableFormatConfig()).filterPolicy()).isNull();
        assertThat(logLines)
                .containsExactly(
                        "INFO [FALCON] v left untuned: value-state hash memtable is switched off",
                        "INFO [FALCON] m left untuned: map-state range filter is switched off");
    }

    @Test
    void timerAndDefaultColumnFamiliesAreNeverTunedNorLoggedAtInfo() {
        ColumnFamilyTuner tuner = tuner(true, true, 1);
        ColumnFamilyOptions timer = flinkOptions();
        ColumnFamilyOptions defaults = flinkOptions();
        // Even if a registry mistakenly had a type for them.
        assertThat(
                        tuner.tune(
                                        "_timer_state/event_window-timers",
                                        StateDescriptor.Type.VALUE,
                                        LongSerializer.INSTANCE,
                                        VoidNamespaceSerializer.INSTANCE,
                                        timer)
                                .reason())
                .isEqualTo("timer column family");
        assertThat(
                        tuner.tune(
                                        "default",
                                        StateDescriptor.Type.MAP,
                                        LongSerializer.INSTANCE,
                                        VoidNamespaceSerializer.INSTANCE,
                                        defaults)
                                .reason())
                .isEqualTo("default column family");
        assertThat(timer.memTableConfig()).isNull();
        assertThat(defaults.memtablePrefixBloomSizeRatio()).isZero();
        assertThat(logLines).noneMatch(l -> l.startsWith("INFO"));
    }

    @Test
    void optionsFromTheUsersFactoryWin() {
        ColumnFamilyTuner tuner = tuner(true, true, 1);
        ColumnFamilyOptions userMemtable =
                flinkOptions().setMemTableConfig(new SkipListMemTableConfig());
        TuningProfile p =
                tuner.tune(
                        "v",
                        StateDescriptor.Type.VALUE,
                        LongSerializer.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        userMemtable);
        assertThat(p.tuned()).isFalse();
        assertThat(p.reasonCode()).isEqualTo(ColumnFamilyTuner.REASON_OPTIONS_FACTORY_MEMTABLE);
        assertThat(userMemtable.memTableConfig()).isInstanceOf(SkipListMemTableConfig.class);

        ColumnFamilyOptions plain =
                new ColumnFamilyOptions().setTableFormatConfig(new PlainTableConfig());
        toClose.add(plain);
        TuningProfile m =
                tuner.tune(
                        "m",
                        StateDescriptor.Type.MAP,
                        LongSerializer.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        plain);
        assertThat(m.tuned()).isFalse();
        assertThat(m.reason()).isEqualTo("table format is not block-based (PlainTableConfig)");
        assertThat(plain.memtablePrefixBloomSizeRatio()).isZero();
        assertThat(logLines)
                .contains(
                        "INFO [FALCON] m left untuned: table format is not block-based (PlainTableConfig)");
        assertThat(tuner.needsFlushBeforeScan("v")).isFalse();
    }

    @Test
    void keyLengthCheckFailsLoudlyOnlyForHashColumnFamilies() {
        ColumnFamilyTuner tuner = tuner(true, true, 1);
        tuner.tune(
                "v",
                StateDescriptor.Type.VALUE,
                LongSerializer.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                flinkOptions());
        tuner.tune(
                "m",
                StateDescriptor.Type.MAP,
                LongSerializer.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                flinkOptions());
        KeyLengthInvariant.checkKeyLength(tuner, "v", 10);
        KeyLengthInvariant.checkKeyLength(
                tuner, "m", 18); // map keys are longer than their prefix: fine
        KeyLengthInvariant.checkKeyLength(tuner, "unknown", 3);
        assertThatThrownBy(() -> KeyLengthInvariant.checkKeyLength(tuner, "v", 11))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "[FALCON] state v uses a HashLinkList memtable over 10-byte keys, but a "
                                + "11-byte key was written; its serializers do not produce one "
                                + "fixed length. Set state.backend.falcon.tuning.value-state."
                                + "hash-memtable: false for this job.");
    }

    @Test
    void dbRuleSwitchesOffConcurrentMemtableWritesOnlyWithHashTuning() {
        DBOptions on = new DBOptions();
        DBOptions off = new DBOptions();
        toClose.add(on);
        toClose.add(off);
        assertThat(on.allowConcurrentMemtableWrite()).isTrue(); // RocksDB's and Flink's default
        DbRuleOptionsFactory.applyDbOptions(on, true);
        DbRuleOptionsFactory.applyDbOptions(off, false);
        assertThat(on.allowConcurrentMemtableWrite()).isFalse();
        assertThat(off.allowConcurrentMemtableWrite()).isTrue();
    }

    @Test
    void dbRuleWrapsTheUsersOptionsFactory() {
        RocksDBOptionsFactory user =
                new RocksDBOptionsFactory() {
                    @Override
                    public DBOptions createDBOptions(
                            DBOptions current, Collection<AutoCloseable> handles) {
                        return current.setMaxOpenFiles(77).setAllowConcurrentMemtableWrite(true);
                    }

                    @Override
                    public ColumnFamilyOptions createColumnOptions(
                            ColumnFamilyOptions current, Collection<AutoCloseable> handles) {
                        return current.setWriteBufferSize(1 << 20);
                    }
                };
        List<AutoCloseable> handles = new ArrayList<>();
        DBOptions db =
                new DbRuleOptionsFactory(user, true).createDBOptions(new DBOptions(), handles);
        ColumnFamilyOptions cf =
                new DbRuleOptionsFactory(user, true)
                        .createColumnOptions(new ColumnFamilyOptions(), handles);
        toClose.add(db);
        toClose.add(cf);
        assertThat(db.maxOpenFiles()).isEqualTo(77);
        assertThat(db.allowConcurrentMemtableWrite()).isFalse();
        assertThat(cf.writeBufferSize()).isEqualTo(1 << 20);
        DBOptions noUser =
                new DbRuleOptionsFactory(null, false).createDBOptions(new DBOptions(), handles);
        toClose.add(noUser);
        assertThat(noUser.allowConcurrentMemtableWrite()).isTrue();
    }

    @Test
    void keyGroupPrefixIsOneOrTwoBytes() {
        assertThatThrownBy(() -> new ColumnFamilyTuner(true, true, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ColumnFamilyTuner(true, true, 3))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void kindsFromColumnFamilyNames() {
        assertThat(ColumnFamilyTuner.kindOf("_timer_state/processing_t", null))
                .isEqualTo(TuningAdvisor.StateKind.TIMER);
        assertThat(ColumnFamilyTuner.kindOf("default", StateDescriptor.Type.VALUE))
                .isEqualTo(TuningAdvisor.StateKind.DEFAULT);
        assertThat(ColumnFamilyTuner.kindOf("x", StateDescriptor.Type.MAP))
                .isEqualTo(TuningAdvisor.StateKind.MAP);
        assertThat(ColumnFamilyTuner.kindOf("x", null)).isEqualTo(TuningAdvisor.StateKind.UNKNOWN);
    }
}
