/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackendFactory;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.AbstractManagedMemoryStateBackend;
import org.apache.flink.runtime.state.StateBackendLoader;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The slot's shared block cache as RocksDB itself reports it: the {@code block_cache_options} that
 * RocksDB prints into its info LOG when a column family opens (capacity and {@code num_shard_bits}
 * of the cache object the DB uses), for stock and for Falcon.
 */
class SlotBlockCacheShardsTest {

    private static final long SLOT_MANAGED_MEMORY = 64L << 20;
    private static final double FRACTION = 0.7;
    private static final Pattern CAPACITY = Pattern.compile("^\\s*capacity : (\\d+)\\s*$");
    private static final Pattern SHARD_BITS =
            Pattern.compile("^\\s*num_shard_bits : (-?\\d+)\\s*$");

    @TempDir Path tmp;

    /** What RocksDB's LOG says about the block cache: capacity and shard bits. */
    private static final class LoggedCache {
        final long capacity;
        final int shardBits;

        LoggedCache(long capacity, int shardBits) {
            this.capacity = capacity;
            this.shardBits = shardBits;
        }
    }

    @Test
    void falconsSlotCacheHasShardsOfAtLeastTheMinimum() throws Exception {
        LoggedCache stock = open(EmbeddedRocksDBStateBackendFactory.class.getName(), "stock", null);
        LoggedCache falcon;
        List<String> lines;
        try (LogCapture log = new LogCapture("io.falconstate")) {
            falcon = open(FalconStateBackendFactory.class.getName(), "falcon", null);
            lines = log.falconLines();
        }

        // RocksDB's own choice for a cache of tens of MB: 64 shards of under a MB.
        assertThat(stock.shardBits).isEqualTo(6);
        // The cache takes a tenth of the state backend's memory, RocksDB the rest.
        assertThat(falcon.capacity).isLessThan(stock.capacity);
        long minShard = 16L << 20;
        assertThat(falcon.shardBits).isEqualTo(1);
        assertThat(falcon.capacity >> falcon.shardBits).isGreaterThanOrEqualTo(minShard);
        assertThat(falcon.capacity >> (falcon.shardBits + 1)).isLessThan(minShard);
        assertThat(lines)
                .contains(
                        "INFO [FALCON] slot's RocksDB block cache: "
                                + new MemorySize(falcon.capacity)
                                + " in 2 shards (RocksDB's default: 64)");
    }

    @Test
    void theMinimumIsConfigurableAndZeroIsRocksDbsSharding() throws Exception {
        LoggedCache fourMb = open(FalconStateBackendFactory.class.getName(), "four", "4mb");
        LoggedCache zero;
        try (LogCapture log = new LogCapture("io.falconstate")) {
            zero = open(FalconStateBackendFactory.class.getName(), "zero", "0");
            assertThat(log.falconLines()).noneMatch(l -> l.contains("block cache"));
        }

        assertThat(fourMb.capacity >> fourMb.shardBits).isGreaterThanOrEqualTo(4L << 20);
        assertThat(fourMb.capacity >> (fourMb.shardBits + 1)).isLessThan(4L << 20);
        assertThat(fourMb.shardBits).isEqualTo(3);
        assertThat(zero.shardBits).isEqualTo(6);
    }

    @Test
    void aFixedSizePerSlotIsShardedTheSameWay() throws Exception {
        LoggedCache falcon =
                open(
                        FalconStateBackendFactory.class.getName(),
                        "fixed",
                        null,
                        "state.backend.rocksdb.memory.fixed-per-slot",
                        "24mb");
        // 24 MB less the write buffers' share: one shard of about 20 MB.
        assertThat(falcon.capacity).isBetween(16L << 20, 32L << 20);
        assertThat(falcon.shardBits).isZero();
    }

    private LoggedCache open(String factory, String label, String minShardSize, String... extra)
            throws Exception {
        Path root = Files.createDirectories(tmp.resolve(label));
        Configuration config = new Configuration();
        config.setString("state.backend.rocksdb.localdir", root.toString());
        config.setString("state.backend.rocksdb.log.level", "INFO_LEVEL");
        if (minShardSize != null) {
            config.setString(
                    "state.backend.falcon.tuning.block-cache.min-shard-size", minShardSize);
        }
        for (int i = 0; i < extra.length; i += 2) {
            config.setString(extra[i], extra[i + 1]);
        }
        config.setString(StateBackendOptions.STATE_BACKEND, factory);
        AbstractManagedMemoryStateBackend backend =
                (AbstractManagedMemoryStateBackend)
                        StateBackendLoader.loadStateBackendFromConfig(
                                config, getClass().getClassLoader(), null);
        try (MockEnvironment env =
                MockEnvironment.builder().setManagedMemorySize(SLOT_MANAGED_MEMORY).build()) {
            AbstractKeyedStateBackend<Integer> keyed = KeyedBackends.create(backend, env, FRACTION);
            try {
                keyed.setCurrentKey(1);
                keyed.getPartitionedState(
                                VoidNamespace.INSTANCE,
                                VoidNamespaceSerializer.INSTANCE,
                                new ValueStateDescriptor<>("value", LongSerializer.INSTANCE))
                        .update(7L);
                return loggedCache(root);
            } finally {
                keyed.dispose();
            }
        }
    }

    /**
     * The block cache of the column family RocksDB opened last, from its LOG under {@code root}.
     */
    private static LoggedCache loggedCache(Path root) throws IOException {
        List<Path> logs;
        try (Stream<Path> files = Files.walk(root)) {
            logs =
                    files.filter(p -> p.getFileName().toString().equals("LOG"))
                            .collect(Collectors.toList());
        }
        assertThat(logs).as("RocksDB's info LOG under %s", root).hasSize(1);
        List<String> lines = Files.readAllLines(logs.get(0), StandardCharsets.ISO_8859_1);
        long capacity = -1;
        int shardBits = Integer.MIN_VALUE;
        for (String line : lines) {
            Matcher c = CAPACITY.matcher(line);
            if (c.matches()) {
                capacity = Long.parseLong(c.group(1));
            }
            Matcher s = SHARD_BITS.matcher(line);
            if (s.matches()) {
                shardBits = Integer.parseInt(s.group(1));
            }
        }
        assertThat(capacity).as("block cache capacity in %s", logs.get(0)).isPositive();
        assertThat(shardBits).as("num_shard_bits in %s", logs.get(0)).isNotNegative();
        return new LoggedCache(capacity, shardBits);
    }
}
