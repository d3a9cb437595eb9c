/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.log.FalconLog;

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.util.FileUtils;

import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * LZ4 in place of RocksDB's default Snappy for a column family ({@link
 * io.falconstate.flink.config.FalconOptions#TUNING_LZ4_COMPRESSION}).
 *
 * <p>The rule: a column family whose options carry RocksDB's default compression (Snappy, and a
 * per-level list that is empty or all Snappy, as Flink 1.19+ sets it from its default) gets LZ4 on
 * every level; any other compression is the user's choice and stays. Compression is a property of
 * each SST block, read back by whatever library opens the file, so this changes neither the state
 * nor who can restore it.
 *
 * <p>Whether the loaded RocksDB library has LZ4 at all is found once per JVM by opening a scratch
 * database with it ({@link #supported}): a column family created with a compression the library
 * lacks would fail to open. Thread-safe.
 */
public final class Lz4Compression {

    /** Flink 1.19+'s option for the per-level compression; absent from older minors. */
    static final ConfigOption<String> FLINK_COMPRESSION_PER_LEVEL =
            ConfigOptions.key("state.backend.rocksdb.compression.per.level")
                    .stringType()
                    .noDefaultValue();

    private static final Object PROBE_LOCK = new Object();
    private static volatile Boolean supported;

    private Lz4Compression() {}

    /**
     * Whether the user chose a compression in Flink's configuration ({@code
     * state.backend.rocksdb.compression.per.level}, Flink 1.19+); then no column family is changed.
     */
    public static boolean userConfigured(ReadableConfig rocksDbConfigurableOptions) {
        return rocksDbConfigurableOptions.getOptional(FLINK_COMPRESSION_PER_LEVEL).isPresent();
    }

    /** Whether {@code options} carry RocksDB's default compression, Snappy on every level. */
    public static boolean isRocksDbDefault(ColumnFamilyOptions options) {
        if (options.compressionType() != CompressionType.SNAPPY_COMPRESSION) {
            return false;
        }
        for (CompressionType level : options.compressionPerLevel()) {
            if (level != CompressionType.SNAPPY_COMPRESSION) {
                return false;
            }
        }
        return true;
    }

    /**
     * Sets LZ4 on every level when {@code options} carry RocksDB's default compression; returns
     * whether it did.
     */
    public static boolean applyIfDefault(ColumnFamilyOptions options) {
        if (!isRocksDbDefault(options)) {
            return false;
        }
        options.setCompressionType(CompressionType.LZ4_COMPRESSION);
        List<CompressionType> perLevel = options.compressionPerLevel();
        if (!perLevel.isEmpty()) {
            List<CompressionType> lz4 = new ArrayList<>(perLevel.size());
            for (int i = 0; i < perLevel.size(); i++) {
                lz4.add(CompressionType.LZ4_COMPRESSION);
            }
            options.setCompressionPerLevel(lz4);
        }
        return true;
    }

    /**
     * Whether the loaded RocksDB library compresses with LZ4: the first call opens a scratch
     * database under {@code scratchParent} with LZ4, writes and flushes one key, and removes it;
     * later calls return the answer. Logs {@link FalconLog#lz4MissingLine} once when it is not.
     * RocksDB's native library must be loaded.
     */
    public static boolean supported(File scratchParent) {
        Boolean known = supported;
        if (known != null) {
            return known;
        }
        synchronized (PROBE_LOCK) {
            if (supported == null) {
                String failure = probe(scratchParent);
                if (failure != null) {
                    FalconLog.LOG.warn(FalconLog.lz4MissingLine(failure));
                }
                supported = failure == null;
            }
            return supported;
        }
    }

    /**
     * Null when a database with LZ4 opened, wrote and flushed under {@code scratchParent} (and was
     * removed); otherwise why not.
     */
    @VisibleForTesting
    static String probe(File scratchParent) {
        File dir;
        try {
            Files.createDirectories(scratchParent.toPath());
            dir = Files.createTempDirectory(scratchParent.toPath(), "falcon-lz4-probe").toFile();
        } catch (IOException e) {
            return "no scratch directory: " + e.getMessage();
        }
        try (Options options =
                        new Options()
                                .setCreateIfMissing(true)
                                .setCompressionType(CompressionType.LZ4_COMPRESSION);
                RocksDB db = RocksDB.open(options, dir.getAbsolutePath());
                FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.put(new byte[] {1}, new byte[] {2});
            db.flush(flush);
            return null;
        } catch (RocksDBException e) {
            return e.getMessage();
        } finally {
            FileUtils.deleteDirectoryQuietly(dir);
        }
    }
}
