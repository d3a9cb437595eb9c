/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import io.falconstate.flink.cache.CacheSettings;
import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.log.FalconLog;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;

import java.io.Serializable;
import java.util.Locale;

/**
 * Falcon's options of one job ({@link FalconOptions}), read and validated once. Immutable and
 * serializable: it travels with the state backend from the client to the TaskManagers.
 *
 * <p>Derived switches follow the documented rules in one place: the cache is on when it is enabled
 * and some budget can hold entries; the hash memtable's {@code auto} follows the cache.
 */
public final class FalconSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The values of {@link FalconOptions#TUNING_VALUE_STATE_HASH_MEMTABLE}. */
    public enum HashMemtableMode {
        /** On exactly while the hot-state cache is on. */
        AUTO,
        ON,
        OFF;

        /** Whether ValueState column families get the HashLinkList memtable. */
        public boolean enabled(boolean cacheOn) {
            return this == ON || (this == AUTO && cacheOn);
        }
    }

    static final int MAX_TIMER_DEDUP_CAPACITY = 1 << 24;
    static final int MAX_TIMER_HELD_CAPACITY = 1 << 26;

    private final boolean nativeRequired;
    private final boolean cacheEnabled;
    private final CacheSettings cache;
    private final HashMemtableMode hashMemtable;
    private final boolean rangeFilter;
    private final long blockCacheMinShardBytes;
    private final boolean lz4Compression;
    private final int timerDedupCapacity;
    private final int timerHeldCapacity;

    private FalconSettings(
            boolean nativeRequired,
            boolean cacheEnabled,
            CacheSettings cache,
            HashMemtableMode hashMemtable,
            boolean rangeFilter,
            long blockCacheMinShardBytes,
            boolean lz4Compression,
            int timerDedupCapacity,
            int timerHeldCapacity) {
        this.nativeRequired = nativeRequired;
        this.cacheEnabled = cacheEnabled;
        this.cache = cache;
        this.hashMemtable = hashMemtable;
        this.rangeFilter = rangeFilter;
        this.blockCacheMinShardBytes = blockCacheMinShardBytes;
        this.lz4Compression = lz4Compression;
        this.timerDedupCapacity = timerDedupCapacity;
        this.timerHeldCapacity = timerHeldCapacity;
    }

    /**
     * Reads and validates every Falcon option; a bad value fails with its key, the value and what
     * is allowed. Logs a {@code [FALCON] WARN unknown option} line for each unknown key under
     * {@value FalconOptions#PREFIX} (once per key per JVM).
     */
    public static FalconSettings fromConfig(ReadableConfig config) {
        FalconOptions.rejectInplaceUpdates(config);
        for (String key : FalconOptions.unknownKeys(config)) {
            FalconLog.logUnknownOptionOnce(key, FalconOptions.closestKey(key));
        }
        return new FalconSettings(
                FalconOptions.readBoolean(config, FalconOptions.NATIVE_REQUIRED),
                FalconOptions.readBoolean(config, FalconOptions.CACHE_ENABLED),
                CacheSettings.fromConfig(config),
                hashMemtableMode(config),
                FalconOptions.readBoolean(config, FalconOptions.TUNING_MAP_STATE_RANGE_FILTER),
                config.get(FalconOptions.TUNING_BLOCK_CACHE_MIN_SHARD_SIZE).getBytes(),
                FalconOptions.readBoolean(config, FalconOptions.TUNING_LZ4_COMPRESSION),
                timerDedupCapacity(config),
                timerCapacity(config, FalconOptions.TIMERS_HELD_CAPACITY, MAX_TIMER_HELD_CAPACITY));
    }

    /** Every option at its default. */
    public static FalconSettings defaults() {
        return fromConfig(new Configuration());
    }

    /**
     * {@link FalconOptions#TUNING_VALUE_STATE_HASH_MEMTABLE}: {@code auto}, {@code true} or {@code
     * false} (any case, surrounding blanks ignored); anything else fails naming the key.
     */
    static HashMemtableMode hashMemtableMode(ReadableConfig config) {
        String value =
                config.get(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE)
                        .trim()
                        .toLowerCase(Locale.ROOT);
        switch (value) {
            case "auto":
                return HashMemtableMode.AUTO;
            case "true":
                return HashMemtableMode.ON;
            case "false":
                return HashMemtableMode.OFF;
            default:
                throw new IllegalConfigurationException(
                        String.format(
                                "%s: '%s' is not allowed; allowed: auto, true, false",
                                FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key(), value));
        }
    }

    /** {@link FalconOptions#TIMERS_DEDUP_CAPACITY}, checked against its allowed range. */
    static int timerDedupCapacity(ReadableConfig config) {
        return timerCapacity(config, FalconOptions.TIMERS_DEDUP_CAPACITY, MAX_TIMER_DEDUP_CAPACITY);
    }

    /** A timer option's capacity, checked against 0 (off) to {@code max}. */
    static int timerCapacity(ReadableConfig config, ConfigOption<Integer> option, int max) {
        int value = config.get(option);
        if (value < 0 || value > max) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %d is not allowed; allowed: 0 (off) to %d",
                            option.key(), value, max));
        }
        return value;
    }

    /**
     * Per RocksDB timer queue, the most timers remembered as present so that registering them again
     * skips RocksDB; 0 when off.
     */
    public int timerDedupCapacity() {
        return timerDedupCapacity;
    }

    /** {@link FalconOptions#TIMERS_HELD_CAPACITY}: per timer queue; 0 is off. */
    public int timerHeldCapacity() {
        return timerHeldCapacity;
    }

    /** Fail rather than fall back to stock when the native library cannot be loaded. */
    public boolean nativeRequired() {
        return nativeRequired;
    }

    /**
     * The hot-state cache is on: enabled, and a budget (managed memory or fixed) can hold entries.
     */
    public boolean cacheOn() {
        return cacheEnabled && cache.canHoldEntries();
    }

    /** Size, policy, bypass and dirty cap of the cache. */
    public CacheSettings cache() {
        return cache;
    }

    public HashMemtableMode hashMemtableMode() {
        return hashMemtable;
    }

    /** ValueState column families with fixed-length keys get the HashLinkList memtable. */
    public boolean hashMemtableOn() {
        return hashMemtable.enabled(cacheOn());
    }

    /** MapState column families with a fixed-length map prefix get the range filter. */
    public boolean rangeFilterOn() {
        return rangeFilter;
    }

    /**
     * {@link FalconOptions#TUNING_BLOCK_CACHE_MIN_SHARD_SIZE} in bytes: the smallest shard of a
     * slot's shared block cache; 0 keeps RocksDB's sharding.
     */
    public long blockCacheMinShardBytes() {
        return blockCacheMinShardBytes;
    }

    /**
     * {@link FalconOptions#TUNING_LZ4_COMPRESSION}: column families at RocksDB's default
     * compression get LZ4.
     */
    public boolean lz4CompressionOn() {
        return lz4Compression;
    }

    /** Any column-family tuning is on. */
    public boolean tuningOn() {
        return hashMemtableOn() || rangeFilterOn();
    }

    @Override
    public String toString() {
        return "FalconSettings{nativeRequired="
                + nativeRequired
                + ", cache="
                + (cacheOn() ? cache : "off")
                + ", hashMemtable="
                + hashMemtable
                + ", rangeFilter="
                + rangeFilter
                + ", blockCacheMinShardBytes="
                + blockCacheMinShardBytes
                + ", lz4Compression="
                + lz4Compression
                + ", timerDedupCapacity="
                + timerDedupCapacity
                + '}';
    }
}
