/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.lowmem;

import io.falconstate.flink.lowmem.LowMemoryRun.Config;
import io.falconstate.flink.nativeaccess.NativeLibrary;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Falcon's defaults cause no RocksDB memtable flushes or write stalls that the stock backend does
 * not have, in slots with little managed memory and many states: the same command stream ({@link
 * LowMemoryWorkload}) on both, counted by RocksDB's own statistics, not timed. The cells are where
 * fixed memtable blocks sized from the write buffer alone (hash buckets, memtable blooms) once made
 * RocksDB flush at almost every write: a few MiB per slot, and many states in a mid-sized slot.
 */
class LowMemoryWriteStallTest {

    private static final long OPERATIONS = 30_000;
    private static final int CHECKPOINTS = 4;

    @BeforeAll
    static void nativeLibrary() {
        assertThat(NativeLibrary.load().isLoaded()).as("libfalcon_jni.so loaded").isTrue();
    }

    @ParameterizedTest(name = "{0} MiB managed memory, {1} states")
    @CsvSource({"4, 20", "64, 50", "256, 50"})
    void defaultsFlushAndStallNoMoreThanStock(long managedMb, int states) throws Exception {
        LowMemoryRun.Result stock =
                LowMemoryRun.run(
                        Config.ROCKSDB, managedMb << 20, states, OPERATIONS, CHECKPOINTS, 7);
        LowMemoryRun.Result falcon =
                LowMemoryRun.run(
                        Config.DEFAULTS, managedMb << 20, states, OPERATIONS, CHECKPOINTS, 7);

        assertThat(falcon.checksum).as("what both read").isEqualTo(stock.checksum);
        assertThat(falcon.flushes)
                .as("memtable flushes, Falcon vs stock: %s / %s", falcon, stock)
                .isLessThanOrEqualTo(stock.flushes);
        assertThat(falcon.stallMicros)
                .as("write-stall micros, Falcon vs stock: %s / %s", falcon, stock)
                .isLessThanOrEqualTo(stock.stallMicros);
    }
}
