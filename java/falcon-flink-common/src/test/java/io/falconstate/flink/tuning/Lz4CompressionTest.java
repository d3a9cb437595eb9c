/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.tuning.TunedBackends.SnapshotKind;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileReader;
import org.rocksdb.TableProperties;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LZ4 in place of RocksDB's default Snappy: the rule on column-family options, the library probe,
 * and, through real keyed backends, that Falcon's SST files are LZ4 (Snappy with the option off)
 * and that the stock backend restores a Falcon checkpoint and savepoint of them.
 */
class Lz4CompressionTest {

    private static final int KEYS = 3_000;
    private static final String VALUES = "values";
    private static final String MAPS = "maps";
    private static final String LISTS = "lists";

    @TempDir Path dir;
    private MockEnvironment env;

    @BeforeAll
    static void loadRocksDb() {
        RocksDB.loadLibrary();
    }

    @BeforeEach
    void createEnvironment() {
        env = MockEnvironment.builder().build();
    }

    @AfterEach
    void closeEnvironment() throws Exception {
        env.close();
    }

    @Test
    void rocksDbsDefaultBecomesLz4OnEveryLevel() {
        try (ColumnFamilyOptions fresh = new ColumnFamilyOptions();
                ColumnFamilyOptions flinkPerLevel =
                        new ColumnFamilyOptions()
                                .setCompressionPerLevel(
                                        Collections.singletonList(
                                                CompressionType.SNAPPY_COMPRESSION))) {
            assertThat(fresh.compressionType()).isEqualTo(CompressionType.SNAPPY_COMPRESSION);
            assertThat(Lz4Compression.applyIfDefault(fresh)).isTrue();
            assertThat(fresh.compressionType()).isEqualTo(CompressionType.LZ4_COMPRESSION);
            assertThat(fresh.compressionPerLevel()).isEmpty();

            // Flink 1.19+ sets the per-level list from its default, [SNAPPY].
            assertThat(Lz4Compression.applyIfDefault(flinkPerLevel)).isTrue();
            assertThat(flinkPerLevel.compressionType()).isEqualTo(CompressionType.LZ4_COMPRESSION);
            assertThat(flinkPerLevel.compressionPerLevel())
                    .containsExactly(CompressionType.LZ4_COMPRESSION);
        }
    }

    @Test
    void aCompressionTheUserChoseStays() {
        try (ColumnFamilyOptions zstd =
                        new ColumnFamilyOptions()
                                .setCompressionType(CompressionType.ZSTD_COMPRESSION);
                ColumnFamilyOptions none =
                        new ColumnFamilyOptions()
                                .setCompressionType(CompressionType.NO_COMPRESSION);
                ColumnFamilyOptions perLevel =
                        new ColumnFamilyOptions()
                                .setCompressionPerLevel(
                                        Arrays.asList(
                                                CompressionType.NO_COMPRESSION,
                                                CompressionType.SNAPPY_COMPRESSION))) {
            assertThat(Lz4Compression.applyIfDefault(zstd)).isFalse();
            assertThat(zstd.compressionType()).isEqualTo(CompressionType.ZSTD_COMPRESSION);
            assertThat(Lz4Compression.applyIfDefault(none)).isFalse();
            assertThat(none.compressionType()).isEqualTo(CompressionType.NO_COMPRESSION);
            assertThat(Lz4Compression.applyIfDefault(perLevel)).isFalse();
            assertThat(perLevel.compressionPerLevel())
                    .containsExactly(
                            CompressionType.NO_COMPRESSION, CompressionType.SNAPPY_COMPRESSION);
        }

        Configuration configured = new Configuration();
        assertThat(Lz4Compression.userConfigured(configured)).isFalse();
        configured.setString("state.backend.rocksdb.compression.per.level", "ZSTD_COMPRESSION");
        assertThat(Lz4Compression.userConfigured(configured)).isTrue();
    }

    @Test
    void theProbeFindsLz4AndLeavesNothingBehind() throws Exception {
        File scratch = dir.resolve("probe").toFile();
        assertThat(Lz4Compression.probe(scratch)).isNull();
        assertThat(Lz4Compression.supported(scratch)).isTrue();
        try (Stream<Path> left = Files.list(scratch.toPath())) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void falconsFilesAreLz4AndTheStockBackendRestoresThem() throws Exception {
        TunedBackends.Snapshots snapshots = new TunedBackends.Snapshots();
        Path falconFiles = dir.resolve("falcon");
        AbstractKeyedStateBackend<Long> falcon =
                TunedBackends.keyed(falcon(true, falconFiles), env, Collections.emptyList());
        KeyedStateHandle checkpoint;
        KeyedStateHandle savepoint;
        try {
            write(falcon);
            TunedBackends.pushToSst(falcon, VALUES, MAPS, LISTS);
            assertThat(sstCompressions(falconFiles))
                    .as("compression of each column family's SST files")
                    .containsEntry(VALUES, Collections.singletonList("LZ4"))
                    .containsEntry(MAPS, Collections.singletonList("LZ4"))
                    .containsEntry(LISTS, Collections.singletonList("LZ4"));
            checkpoint = snapshots.take(falcon, SnapshotKind.CHECKPOINT);
            savepoint = snapshots.take(falcon, SnapshotKind.NATIVE_SAVEPOINT);
        } finally {
            falcon.dispose();
        }

        for (KeyedStateHandle snapshot : Arrays.asList(checkpoint, savepoint)) {
            AbstractKeyedStateBackend<Long> stock =
                    TunedBackends.keyed(stock(dir), env, TunedBackends.from(snapshot));
            try {
                assertThat(read(stock)).isEqualTo(expected());
            } finally {
                stock.dispose();
            }
        }
    }

    @Test
    void switchedOffTheFilesAreSnappyAsStock() throws Exception {
        Path falconFiles = dir.resolve("falcon-off");
        AbstractKeyedStateBackend<Long> falcon =
                TunedBackends.keyed(falcon(false, falconFiles), env, Collections.emptyList());
        try {
            write(falcon);
            TunedBackends.pushToSst(falcon, VALUES, MAPS, LISTS);
            assertThat(sstCompressions(falconFiles))
                    .containsEntry(VALUES, Collections.singletonList("Snappy"))
                    .containsEntry(MAPS, Collections.singletonList("Snappy"))
                    .containsEntry(LISTS, Collections.singletonList("Snappy"));
        } finally {
            falcon.dispose();
        }
    }

    private static StateBackend falcon(boolean lz4, Path files) {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
        rocksDb.setDbStoragePath(files.toString());
        Configuration config = new Configuration();
        config.set(FalconOptions.TUNING_LZ4_COMPRESSION, lz4);
        return new FalconStateBackend(rocksDb)
                .configure(config, Lz4CompressionTest.class.getClassLoader());
    }

    private static StateBackend stock(Path dir) {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(true);
        rocksDb.setDbStoragePath(dir.resolve("stock-" + UUID.randomUUID()).toString());
        return rocksDb.configure(new Configuration(), Lz4CompressionTest.class.getClassLoader());
    }

    /** Compressible values (repeated text), so that the blocks are stored compressed. */
    private static String text(long key) {
        StringBuilder text = new StringBuilder("value of key ").append(key);
        for (int i = 0; i < 4; i++) {
            text.append(" -- the same words again and again,");
        }
        return text.toString();
    }

    private static void write(AbstractKeyedStateBackend<Long> kb) throws Exception {
        for (long k = 0; k < KEYS; k++) {
            kb.setCurrentKey(k);
            values(kb).update(text(k));
            maps(kb).put(k % 7, text(k));
            lists(kb).add(text(k));
            lists(kb).add(text(k + 1));
        }
    }

    private static List<String> read(AbstractKeyedStateBackend<Long> kb) throws Exception {
        List<String> read = new ArrayList<>();
        for (long k = 0; k < KEYS; k++) {
            kb.setCurrentKey(k);
            List<String> list = new ArrayList<>();
            lists(kb).get().forEach(list::add);
            Map<Long, String> map = new TreeMap<>();
            for (Map.Entry<Long, String> e : maps(kb).entries()) {
                map.put(e.getKey(), e.getValue());
            }
            read.add(k + ": " + values(kb).value() + " " + map + " " + list);
        }
        return read;
    }

    private static List<String> expected() {
        List<String> expected = new ArrayList<>();
        for (long k = 0; k < KEYS; k++) {
            expected.add(
                    k
                            + ": "
                            + text(k)
                            + " "
                            + Collections.singletonMap(k % 7, text(k))
                            + " "
                            + Arrays.asList(text(k), text(k + 1)));
        }
        return expected;
    }

    private static ValueState<String> values(AbstractKeyedStateBackend<Long> kb) throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>(VALUES, StringSerializer.INSTANCE));
    }

    private static MapState<Long, String> maps(AbstractKeyedStateBackend<Long> kb)
            throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new MapStateDescriptor<>(MAPS, LongSerializer.INSTANCE, StringSerializer.INSTANCE));
    }

    private static ListState<String> lists(AbstractKeyedStateBackend<Long> kb) throws Exception {
        return kb.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new ListStateDescriptor<>(LISTS, StringSerializer.INSTANCE));
    }

    /**
     * Column family -> the distinct compression names of its SST files under {@code root}. A
     * background compaction may delete a listed file before it is opened; then the listing is taken
     * again.
     */
    private static Map<String, List<String>> sstCompressions(Path root) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return sstCompressionsOnce(root);
            } catch (RocksDBException | IOException | UncheckedIOException e) {
                if (attempt == 10) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private static Map<String, List<String>> sstCompressionsOnce(Path root) throws Exception {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".sst")).collect(Collectors.toList());
        }
        Map<String, List<String>> byColumnFamily = new TreeMap<>();
        for (Path file : files) {
            try (Options options = new Options();
                    SstFileReader reader = new SstFileReader(options)) {
                reader.open(file.toString());
                TableProperties properties = reader.getTableProperties();
                String columnFamily =
                        new String(properties.getColumnFamilyName(), StandardCharsets.UTF_8);
                List<String> names =
                        byColumnFamily.computeIfAbsent(columnFamily, cf -> new ArrayList<>());
                if (!names.contains(properties.getCompressionName())) {
                    names.add(properties.getCompressionName());
                }
            }
        }
        return byColumnFamily;
    }
}
