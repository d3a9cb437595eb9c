/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.lowmem;

import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.HistogramType;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.TickerType;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An options factory that gives every database it configures one RocksDB {@link Statistics} object,
 * so a test or benchmark can count what RocksDB did: flushes ({@code rocksdb.db.flush.micros}
 * samples), write-stall time ({@code rocksdb.stall.micros}), flushed bytes, and, read from the open
 * database, the stall causes and level-0 files. It changes no option: install it with {@code
 * EmbeddedRocksDBStateBackend#setRocksDBOptions} on stock and Falcon alike.
 *
 * <p>One instance per backend under test; {@link #close()} releases the statistics after the
 * database is closed. Not serializable in any useful way (the statistics are native): for tests and
 * benchmarks that build backends in one JVM only.
 */
public final class RocksDbWriteStatistics implements RocksDBOptionsFactory, AutoCloseable {

    private static final long serialVersionUID = 1L;

    /**
     * The per-cause stall counts of {@code rocksdb.stats}, e.g. "Stalls(count): 3 level0_slowdown,
     * ...".
     */
    private static final Pattern STALL_COUNTS = Pattern.compile("Stalls\\(count\\): (.*)");

    private static final Pattern COUNT_AND_CAUSE = Pattern.compile("(\\d+) ([a-z_0-9 ]+)");

    private transient Statistics statistics;

    @Override
    public synchronized DBOptions createDBOptions(
            DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        if (statistics == null) {
            statistics = new Statistics();
            statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
        }
        return currentOptions.setStatistics(statistics);
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(
            ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return currentOptions;
    }

    /** Memtable flushes so far (each one a sample of the flush-time histogram). */
    public synchronized long flushes() {
        return statistics == null
                ? 0
                : statistics.getHistogramData(HistogramType.FLUSH_TIME).getCount();
    }

    /** Microseconds writers spent delayed or stopped by RocksDB's write controller. */
    public synchronized long stallMicros() {
        return statistics == null ? 0 : statistics.getTickerCount(TickerType.STALL_MICROS);
    }

    /** Bytes flushes wrote to level-0 files. */
    public synchronized long flushedBytes() {
        return statistics == null ? 0 : statistics.getTickerCount(TickerType.FLUSH_WRITE_BYTES);
    }

    /**
     * The write-stall causes RocksDB counted in the given column families of {@code db} ({@code
     * rocksdb.cfstats}), as {@code cause=count} pairs of the non-zero ones, "none" when there were
     * none: level-0 slowdowns and stops, pending-compaction limits, and memtable limits ({@code
     * memtable_compaction} is a stop for too many unflushed memtables).
     */
    public static String stallCauses(RocksDB db, Collection<ColumnFamilyHandle> columnFamilies)
            throws RocksDBException {
        Map<String, Long> counts = new TreeMap<>();
        for (ColumnFamilyHandle columnFamily : columnFamilies) {
            Matcher lines = STALL_COUNTS.matcher(db.getProperty(columnFamily, "rocksdb.cfstats"));
            while (lines.find()) {
                Matcher pairs = COUNT_AND_CAUSE.matcher(lines.group(1));
                while (pairs.find()) {
                    String cause = pairs.group(2).trim().replace(' ', '_');
                    if (!cause.startsWith("interval") && !cause.startsWith("total")) {
                        counts.merge(cause, Long.parseLong(pairs.group(1)), Long::sum);
                    }
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Long> count : counts.entrySet()) {
            if (count.getValue() > 0) {
                out.append(out.length() == 0 ? "" : ",")
                        .append(count.getKey())
                        .append('=')
                        .append(count.getValue());
            }
        }
        return out.length() == 0 ? "none" : out.toString();
    }

    @Override
    public synchronized void close() {
        if (statistics != null) {
            statistics.close();
            statistics = null;
        }
    }
}
