/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.HashLinkedListMemTableConfig;
import org.rocksdb.IndexType;
import org.rocksdb.TableFormatConfig;

import java.util.Collection;

/**
 * Writes a {@link TuningProfile} into the {@link ColumnFamilyOptions} Flink's resource container
 * built for a column family (a new object per column family):
 *
 * <ul>
 *   <li>a hash profile: {@code HashLinkedListMemTableConfig} and {@code
 *       useFixedLengthPrefixExtractor(n)} (the DB needs {@link DbRuleOptionsFactory}'s rule);
 *   <li>a range-filter profile: {@code useFixedLengthPrefixExtractor(p)}, a memtable prefix bloom,
 *       and in the {@link BlockBasedTableConfig} Flink built (the same object, so its shared block
 *       cache and cache-index-and-filter settings stay) a bloom filter when it has none,
 *       partitioned (a two-level index), none in the last level ({@code
 *       optimize_filters_for_hits}), and whole-key filtering on.
 * </ul>
 *
 * <p>Stateless.
 */
public final class TuningApplier {

    private TuningApplier() {}

    /**
     * Applies {@code profile} to {@code options}. Native objects it creates (a bloom filter) are
     * added to {@code createdHandles}; close them after the column family's DB is closed. Returns
     * {@code profile}, or an untuned profile when the options already carry a memtable of the
     * user's options factory or a table format that is not block-based (then nothing is changed).
     */
    public static TuningProfile apply(
            TuningProfile profile,
            ColumnFamilyOptions options,
            Collection<AutoCloseable> createdHandles) {
        if (!profile.tuned()) {
            return profile;
        }
        if (options.memTableConfig() != null) {
            return TuningProfile.untuned(
                    ColumnFamilyTuner.REASON_OPTIONS_FACTORY_MEMTABLE,
                    "the options factory already set a memtable ("
                            + options.memTableConfig().getClass().getSimpleName()
                            + ")");
        }
        TableFormatConfig tableFormat = options.tableFormatConfig();
        boolean needsTable =
                profile.filter() != TuningProfile.Filter.KEEP
                        || profile.wholeKeyFiltering() != null;
        if (needsTable && !(tableFormat instanceof BlockBasedTableConfig)) {
            return TuningProfile.untuned(
                    ColumnFamilyTuner.REASON_TABLE_FORMAT_NOT_BLOCK_BASED,
                    "table format is not block-based ("
                            + (tableFormat == null
                                    ? "none set"
                                    : tableFormat.getClass().getSimpleName())
                            + ")");
        }

        if (profile.isHashMemtable()) {
            options.setMemTableConfig(
                    new HashLinkedListMemTableConfig()
                            .setBucketCount(profile.hashBucketCount())
                            // Logging bucket statistics walks every bucket on each flush.
                            .setIfLogBucketDistWhenFlush(false));
        }
        if (profile.prefixLength() > 0) {
            options.useFixedLengthPrefixExtractor(profile.prefixLength());
        }
        if (profile.arenaBlockSize() > 0) {
            options.setArenaBlockSize(profile.arenaBlockSize());
        }
        if (profile.memtablePrefixBloomRatio() > 0) {
            options.setMemtablePrefixBloomSizeRatio(profile.memtablePrefixBloomRatio());
        }
        if (needsTable) {
            BlockBasedTableConfig table = (BlockBasedTableConfig) tableFormat;
            if (profile.filter() == TuningProfile.Filter.BLOOM && table.filterPolicy() == null) {
                BloomFilter filter = new BloomFilter(profile.bloomBitsPerKey(), false);
                createdHandles.add(filter);
                table.setFilterPolicy(filter);
                // Partitioned, as Flink's partitioned-index-filters option does for every column
                // family: a full filter block of a large SST file (about a megabyte per million
                // keys) does not stay in a shard of the slot's block cache, and each lookup read
                // it again; partitions of a data block's size do, the top level pinned
                // (docs/decisions/0011).
                table.setIndexType(IndexType.kTwoLevelIndexSearch);
                table.setPartitionFilters(true);
                table.setPinTopLevelIndexAndFilter(true);
                // No filter in the last level, which holds most keys: a lookup that gets there
                // mostly finds its key (a join probing rows it has), so a filter there is built
                // by every compaction into it and checked by every such lookup for nothing
                // (docs/decisions/0019). Absent keys are still answered by the levels above.
                options.setOptimizeFiltersForHits(true);
            }
            if (profile.wholeKeyFiltering() != null) {
                table.setWholeKeyFiltering(profile.wholeKeyFiltering());
            }
            // Re-install the same config object: RocksJava builds the native table factory from
            // it, keeping its block cache (the slot's shared cache) and every other setting.
            options.setTableFormatConfig(table);
        }
        return profile;
    }
}
