/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackendFactory;
import org.apache.flink.contrib.streaming.state.RocksDBConfigurableOptions;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBResourceContainer;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.AbstractManagedMemoryStateBackend;
import org.apache.flink.runtime.state.StateBackendLoader;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.TimerSerializer;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Parity: for the same configuration, the stock {@code EmbeddedRocksDBStateBackend} and Falcon open
 * RocksDB with the same DB options and column-family options (read back from the OPTIONS file
 * RocksDB persists in the instance directory), build the inner backend with the same settings, and
 * reserve the same managed memory from the slot.
 */
class FalconParityTest {

    private static final long SLOT_MANAGED_MEMORY = 64L << 20;
    private static final double FRACTION = 0.7;

    @TempDir Path tmp;

    /** Configurations, each given the backend's own root directory. */
    static Stream<Arguments> configurations() {
        Map<String, Function<File, Configuration>> cases = new LinkedHashMap<>();
        cases.put("defaults", root -> localDir(root));
        cases.put(
                "state.backend.rocksdb.* options",
                root -> {
                    Configuration c = localDir(root);
                    c.setString("state.backend.rocksdb.thread.num", "3");
                    c.setString("state.backend.rocksdb.files.open", "512");
                    c.setString("state.backend.rocksdb.writebuffer.size", "8mb");
                    c.setString("state.backend.rocksdb.writebuffer.count", "3");
                    c.setString("state.backend.rocksdb.writebuffer.number-to-merge", "2");
                    c.setString("state.backend.rocksdb.block.blocksize", "16kb");
                    c.setString("state.backend.rocksdb.block.metadata-blocksize", "8kb");
                    c.setString("state.backend.rocksdb.compaction.style", "UNIVERSAL");
                    c.setString(
                            "state.backend.rocksdb.compaction.level.target-file-size-base", "32mb");
                    c.setString("state.backend.rocksdb.use-bloom-filter", "true");
                    c.setString("state.backend.rocksdb.bloom-filter.bits-per-key", "12");
                    c.setString("state.backend.rocksdb.log.file-num", "7");
                    return c;
                });
        cases.put(
                "predefined options",
                root -> {
                    Configuration c = localDir(root);
                    c.setString(
                            "state.backend.rocksdb.predefined-options",
                            "SPINNING_DISK_OPTIMIZED_HIGH_MEM");
                    return c;
                });
        cases.put(
                "options factory",
                root -> {
                    Configuration c = localDir(root);
                    c.setString(
                            "state.backend.rocksdb.options-factory",
                            ParityOptionsFactory.class.getName());
                    c.set(ParityOptionsFactory.L0_TRIGGER, 9);
                    return c;
                });
        cases.put(
                "managed memory off",
                root -> {
                    Configuration c = localDir(root);
                    c.setString("state.backend.rocksdb.memory.managed", "false");
                    c.setString("state.backend.rocksdb.block.cache-size", "16mb");
                    return c;
                });
        cases.put(
                "fixed memory per slot",
                root -> {
                    Configuration c = localDir(root);
                    c.setString("state.backend.rocksdb.memory.fixed-per-slot", "24mb");
                    return c;
                });
        cases.put(
                "memory ratios and partitioned index/filters",
                root -> {
                    Configuration c = localDir(root);
                    c.setString("state.backend.rocksdb.memory.write-buffer-ratio", "0.3");
                    c.setString("state.backend.rocksdb.memory.high-prio-pool-ratio", "0.2");
                    c.setString("state.backend.rocksdb.memory.partitioned-index-filters", "true");
                    c.setString("state.backend.rocksdb.use-bloom-filter", "true");
                    return c;
                });
        cases.put(
                "incremental checkpoints",
                root -> {
                    Configuration c = localDir(root);
                    c.setString("state.backend.incremental", "true");
                    c.setString("state.backend.rocksdb.checkpoint.transfer.thread.num", "2");
                    c.setString("state.backend.rocksdb.write-batch-size", "1mb");
                    return c;
                });
        cases.put(
                "two local directories",
                root -> {
                    Configuration c = new Configuration();
                    c.setString(
                            "state.backend.rocksdb.localdir",
                            new File(root, "a").getAbsolutePath()
                                    + ","
                                    + new File(root, "b").getAbsolutePath());
                    c.setString("state.backend.falcon.cache.enabled", "false");
                    c.setString("state.backend.falcon.tuning.map-state.range-filter", "false");
                    c.setString("state.backend.falcon.tuning.lz4-compression", "false");
                    return c;
                });
        cases.put(
                "heap timers",
                root -> {
                    Configuration c = localDir(root);
                    c.setString("state.backend.rocksdb.timer-service.factory", "HEAP");
                    return c;
                });
        cases.put(
                "timer set cache size and manual compaction (Flink 1.19, 1.20)",
                root -> {
                    Configuration c = localDir(root);
                    c.setString("state.backend.rocksdb.timer-service.cache-size", "64");
                    c.setString("state.backend.rocksdb.manual-compaction.min-interval", "2 min");
                    return c;
                });
        cases.put(
                "native metrics",
                root -> {
                    Configuration c = localDir(root);
                    c.setString("state.backend.rocksdb.metrics.estimate-num-keys", "true");
                    c.setString("state.backend.rocksdb.metrics.block-cache-usage", "true");
                    return c;
                });
        return cases.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    private static Configuration localDir(File root) {
        Configuration c = new Configuration();
        c.setString("state.backend.rocksdb.localdir", root.getAbsolutePath());
        // The cache's own a·f reservation is CacheBudgetTest's subject, the column-family
        // tuning's options TunedColumnFamilyInvariantsTest's, LZ4 the test below; with the cache
        // off (a = 0, and the hash memtable with it), the range filter and LZ4 off, RocksDB must
        // be opened exactly as by the stock backend.
        c.setString("state.backend.falcon.cache.enabled", "false");
        c.setString("state.backend.falcon.tuning.map-state.range-filter", "false");
        c.setString("state.backend.falcon.tuning.lz4-compression", "false");
        return c;
    }

    /**
     * LZ4 on, with and without a compression the user chose; the boolean: whether the user's choice
     * reaches RocksDB (Flink before 1.19 has no per-level compression option).
     */
    static Stream<Arguments> lz4Configurations() {
        return Stream.of(
                Arguments.of(
                        "RocksDB's default compression",
                        (Function<File, Configuration>) FalconParityTest::lz4On,
                        false),
                Arguments.of(
                        "an options factory's compression",
                        (Function<File, Configuration>)
                                root -> {
                                    Configuration c = lz4On(root);
                                    c.setString(
                                            "state.backend.rocksdb.options-factory",
                                            ParityOptionsFactory.class.getName());
                                    c.set(ParityOptionsFactory.COMPRESSION, "ZSTD_COMPRESSION");
                                    return c;
                                },
                        true),
                Arguments.of(
                        "Snappy chosen in compression.per.level",
                        (Function<File, Configuration>)
                                root -> {
                                    Configuration c = lz4On(root);
                                    c.setString(
                                            "state.backend.rocksdb.compression.per.level",
                                            "SNAPPY_COMPRESSION");
                                    return c;
                                },
                        flinkHasCompressionPerLevel()));
    }

    private static boolean flinkHasCompressionPerLevel() {
        try {
            RocksDBConfigurableOptions.class.getField("COMPRESSION_PER_LEVEL");
            return true;
        } catch (NoSuchFieldException e) {
            return false;
        }
    }

    private static Configuration lz4On(File root) {
        Configuration c = localDir(root);
        c.setString("state.backend.falcon.tuning.lz4-compression", "true");
        return c;
    }

    /**
     * With LZ4 on, every column family at RocksDB's default compression differs from stock's in its
     * compression alone; a compression the user chose is left as stock has it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("lz4Configurations")
    void withLz4OnlyTheDefaultCompressionDiffers(
            String name, Function<File, Configuration> configuration, boolean userChose)
            throws Exception {
        Opened stock =
                open(EmbeddedRocksDBStateBackendFactory.class.getName(), "stock", configuration);
        Opened falcon = open(FalconStateBackendFactory.class.getName(), "falcon", configuration);

        assertThat(falcon.options.keySet()).isEqualTo(stock.options.keySet());
        int columnFamilies = 0;
        for (String section : stock.options.keySet()) {
            Map<String, String> stockSection = stock.options.get(section);
            List<String> expected = new ArrayList<>();
            if (section.startsWith("CFOptions ")) {
                columnFamilies++;
                String perLevel = stockSection.getOrDefault("compression_per_level", "");
                if (!userChose) {
                    expected.add("compression: kSnappyCompression -> kLZ4Compression");
                    if (!perLevel.isEmpty()) {
                        expected.add(
                                "compression_per_level: kSnappyCompression -> kLZ4Compression");
                    }
                }
            }
            assertThat(differences(stockSection, falcon.options.get(section)))
                    .as("options of section [%s] that differ (stock -> falcon)", section)
                    .isEqualTo(expected);
        }
        assertThat(columnFamilies).as("default, three states and a timer queue").isEqualTo(5);
        assertThat(falcon.settings).as("builder settings").isEqualTo(stock.settings);

        String cfDefault = "CFOptions \"default\"";
        switch (name) {
            case "RocksDB's default compression":
                assertThat(falcon.options.get(cfDefault))
                        .containsEntry("compression", "kLZ4Compression");
                break;
            case "an options factory's compression":
                assertThat(falcon.options.get(cfDefault)).containsEntry("compression", "kZSTD");
                break;
            case "Snappy chosen in compression.per.level":
                if (userChose) {
                    assertThat(falcon.options.get(cfDefault))
                            .containsEntry("compression_per_level", "kSnappyCompression");
                }
                break;
            default:
                break;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configurations")
    void stockAndFalconOpenRocksDbTheSameWay(
            String name, Function<File, Configuration> configuration) throws Exception {
        Opened stock =
                open(EmbeddedRocksDBStateBackendFactory.class.getName(), "stock", configuration);
        Opened falcon = open(FalconStateBackendFactory.class.getName(), "falcon", configuration);

        assertThat(falcon.falconKeyed).as("Falcon's keyed backend is in front").isTrue();
        assertThat(stock.falconKeyed).isFalse();

        assertThat(falcon.options.keySet())
                .as("the same sections (DB, every column family, table options)")
                .isEqualTo(stock.options.keySet());
        for (String section : stock.options.keySet()) {
            assertThat(differences(stock.options.get(section), falcon.options.get(section)))
                    .as("options of section [%s] that differ (stock -> falcon)", section)
                    .isEmpty();
        }
        assertThat(falcon.settings).as("builder settings").isEqualTo(stock.settings);
        assertThat(falcon.reservedManagedMemory)
                .as("managed memory reserved from the slot")
                .isEqualTo(stock.reservedManagedMemory);

        // The configuration took effect at all (so equal is not trivially equal).
        String cfDefault = "CFOptions \"default\"";
        switch (name) {
            case "state.backend.rocksdb.* options":
                assertThat(stock.options.get("DBOptions")).containsEntry("max_open_files", "512");
                assertThat(stock.options.get(cfDefault))
                        .containsEntry("compaction_style", "kCompactionStyleUniversal");
                break;
            case "options factory":
                assertThat(stock.options.get(cfDefault))
                        .containsEntry("level0_file_num_compaction_trigger", "9");
                assertThat(stock.options.get("DBOptions")).containsEntry("max_subcompactions", "3");
                break;
            case "managed memory off":
            case "fixed memory per slot":
                assertThat(stock.reservedManagedMemory).isZero();
                break;
            case "timer set cache size and manual compaction (Flink 1.19, 1.20)":
                if (stock.settings.containsKey("timerSetCacheSize")) {
                    assertThat(stock.settings).containsEntry("timerSetCacheSize", 64);
                }
                if (stock.settings.containsKey("sstMergeManager")) {
                    assertThat((String) stock.settings.get("sstMergeManager")).endsWith("Impl");
                }
                break;
            case "heap timers":
                assertThat(stock.options.keySet()).noneMatch(s -> s.contains("_timer_state"));
                break;
            case "two local directories":
                assertThat(stock.instanceParent).isIn("a", "b");
                assertThat(falcon.instanceParent).isIn("a", "b");
                break;
            default:
                break;
        }
        if (!name.equals("managed memory off") && !name.equals("fixed memory per slot")) {
            assertThat(stock.reservedManagedMemory)
                    .isEqualTo((long) Math.floor(SLOT_MANAGED_MEMORY * FRACTION));
        }
        if (!name.equals("heap timers")) {
            assertThat(stock.options.keySet()).anyMatch(s -> s.contains("_timer_state/event_t"));
        }
        assertThat(stock.options.keySet())
                .contains("CFOptions \"value\"", "CFOptions \"map\"", "CFOptions \"list\"");
    }

    /** What one backend did, read while it was open. */
    private static final class Opened {
        Map<String, Map<String, String>> options;
        Map<String, Object> settings;
        long reservedManagedMemory;
        boolean falconKeyed;
        String instanceParent;
    }

    private Opened open(String factory, String label, Function<File, Configuration> configuration)
            throws Exception {
        File root = Files.createDirectories(tmp.resolve(label)).toFile();
        Configuration config = configuration.apply(root);
        config.setString(StateBackendOptions.STATE_BACKEND, factory);
        AbstractManagedMemoryStateBackend backend =
                (AbstractManagedMemoryStateBackend)
                        StateBackendLoader.loadStateBackendFromConfig(
                                config, getClass().getClassLoader(), null);

        Opened opened = new Opened();
        try (MockEnvironment env =
                MockEnvironment.builder().setManagedMemorySize(SLOT_MANAGED_MEMORY).build()) {
            long before = env.getMemoryManager().availableMemory();
            AbstractKeyedStateBackend<Integer> keyed = KeyedBackends.create(backend, env, FRACTION);
            try {
                opened.reservedManagedMemory = before - env.getMemoryManager().availableMemory();
                opened.falconKeyed = keyed instanceof FalconKeyedStateBackend;
                RocksDBKeyedStateBackend<Integer> rocksDb =
                        opened.falconKeyed
                                ? ((FalconKeyedStateBackend<Integer>) keyed)
                                        .getRocksDBKeyedStateBackend()
                                : (RocksDBKeyedStateBackend<Integer>) keyed;

                registerStatesAndTimers(keyed);
                opened.settings = settingsOf(rocksDb);
                File instance = (File) field(rocksDb, "instanceBasePath");
                opened.instanceParent = instance.getParentFile().getName();
                opened.options = normalize(parseOptionsFile(latestOptionsFile(instance)), root);
            } finally {
                keyed.dispose();
            }
            assertThat(env.getMemoryManager().availableMemory())
                    .as("dispose releases the reservation")
                    .isEqualTo(before);
        }
        return opened;
    }

    private static void registerStatesAndTimers(AbstractKeyedStateBackend<Integer> keyed)
            throws Exception {
        keyed.setCurrentKey(1);
        keyed.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>("value", LongSerializer.INSTANCE))
                .update(1L);
        keyed.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new MapStateDescriptor<>(
                                "map", StringSerializer.INSTANCE, LongSerializer.INSTANCE))
                .put("a", 1L);
        keyed.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ListStateDescriptor<>("list", LongSerializer.INSTANCE))
                .add(1L);
        keyed.create(
                "_timer_state/event_timers",
                new TimerSerializer<>(IntSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE));
    }

    /** The settings the builder applied, read from the built backend. */
    private static Map<String, Object> settingsOf(RocksDBKeyedStateBackend<Integer> rocksDb)
            throws Exception {
        Map<String, Object> settings = new TreeMap<>();
        settings.put("writeBatchSize", field(rocksDb, "writeBatchSize"));
        settings.put("keyGroupPrefixBytes", rocksDb.getKeyGroupPrefixBytes());
        settings.put(
                "checkpointSnapshotStrategy",
                field(rocksDb, "checkpointSnapshotStrategy").getClass().getName());
        settings.put(
                "priorityQueueFactory",
                field(rocksDb, "priorityQueueFactory").getClass().getName());
        settings.put("nativeMetricMonitor", field(rocksDb, "nativeMetricMonitor") != null);
        RocksDBResourceContainer container =
                (RocksDBResourceContainer) field(rocksDb, "optionsContainer");
        settings.put("writeBufferManagerCapacity", container.getWriteBufferManagerCapacity());
        settings.put("latencyTracking", rocksDb.getLatencyTrackingStateConfig().isEnabled());
        settings.put("compression", rocksDb.getKeyGroupCompressionDecorator().getClass().getName());
        Object priorityQueues = field(rocksDb, "priorityQueueFactory");
        if (hasField(priorityQueues, "cacheSize")) { // configurable from Flink 1.19
            settings.put("timerSetCacheSize", field(priorityQueues, "cacheSize"));
        }
        if (hasField(rocksDb, "sstMergeManager")) { // manual compaction, Flink 1.20
            settings.put("sstMergeManager", field(rocksDb, "sstMergeManager").getClass().getName());
        }
        return settings;
    }

    private static boolean hasField(Object target, String name) {
        for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (field.getName().equals(name)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Object field(Object target, String name) throws Exception {
        Class<?> type = target.getClass();
        while (type != null) {
            try {
                Field field = type.getDeclaredField(name);
                field.setAccessible(true);
                return field.get(target);
            } catch (NoSuchFieldException e) {
                type = type.getSuperclass();
            }
        }
        throw new NoSuchFieldException(name);
    }

    /** RocksDB rewrites {@code OPTIONS-<n>} on open and on every column-family creation. */
    private static Path latestOptionsFile(File instanceBasePath) throws IOException {
        Path db = instanceBasePath.toPath().resolve("db");
        try (Stream<Path> files = Files.list(db)) {
            Optional<Path> latest =
                    files.filter(p -> p.getFileName().toString().matches("OPTIONS-\\d+"))
                            .max(
                                    Comparator.comparingLong(
                                            p ->
                                                    Long.parseLong(
                                                            p.getFileName()
                                                                    .toString()
                                                                    .substring(8))));
            assertThat(latest).as("OPTIONS file in %s", db).isPresent();
            return latest.get();
        }
    }

    /** Sections {@code [name]} → key → value, in file order. */
    private static Map<String, Map<String, String>> parseOptionsFile(Path file) throws IOException {
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        Map<String, String> current = null;
        for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String line = raw.trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                current = new TreeMap<>();
                sections.put(line.substring(1, line.length() - 1), current);
            } else if (current != null) {
                int eq = line.indexOf('=');
                current.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
            }
        }
        // The version section says which RocksDB wrote the file, not how it was opened.
        sections.remove("Version");
        return sections;
    }

    /** Backend-specific paths and native pointers are not options. */
    private static Map<String, Map<String, String>> normalize(
            Map<String, Map<String, String>> sections, File root) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        sections.forEach(
                (section, values) ->
                        out.put(
                                section,
                                values.entrySet().stream()
                                        .collect(
                                                Collectors.toMap(
                                                        Map.Entry::getKey,
                                                        e ->
                                                                e.getValue()
                                                                        .replace(
                                                                                root
                                                                                        .getAbsolutePath(),
                                                                                "<root>")
                                                                        .replaceAll(
                                                                                "job_[0-9a-f]+_op_[^/]+_uuid_[0-9a-f-]+",
                                                                                "<instance>")
                                                                        // random pick among
                                                                        // several local dirs
                                                                        .replaceAll(
                                                                                "<root>/[ab]/",
                                                                                "<root>/<dir>/")
                                                                        .replaceAll(
                                                                                "0x[0-9a-fA-F]+",
                                                                                "0x?"),
                                                        (a, b) -> b,
                                                        TreeMap::new))));
        return out;
    }

    /** {@code key: stock -> falcon} for every key whose values differ. */
    private static List<String> differences(Map<String, String> stock, Map<String, String> falcon) {
        List<String> out = new ArrayList<>();
        TreeMap<String, String> all = new TreeMap<>(stock);
        falcon.forEach(all::putIfAbsent);
        for (String key : all.keySet()) {
            String a = stock.get(key);
            String b = falcon.get(key);
            if (a == null ? b != null : !a.equals(b)) {
                out.add(key + ": " + a + " -> " + b);
            }
        }
        return out;
    }
}
