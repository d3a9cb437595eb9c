/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.config.FalconOptions;
import io.falconstate.flink.nativeaccess.NativeCacheOptions;
import io.falconstate.flink.nativeaccess.NativeHotStateCache;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

import java.io.Serializable;
import java.time.Duration;
import java.util.Locale;

/**
 * The hot-state cache settings of one job (budget, policy, self-switching, dirty cap; whether the
 * cache is on at all is {@code FalconOptions#CACHE_ENABLED}), read and validated from the
 * configuration ({@code state.backend.falcon.cache.*}). Immutable and serializable: it travels with
 * the state backend from the client to the TaskManagers.
 *
 * <p>Two ways to size the cache (docs/cache.md, "Memory budget"): from managed memory (share {@link
 * #managedMemoryShare()} of the state-backend fraction, the default), or, when {@link
 * #fixedBytesPerSubtask()} is above 0, a fixed size per subtask outside managed memory.
 */
public final class CacheSettings implements Serializable {

    private static final long serialVersionUID = 5L;

    /** The smallest self-switching window: a window must hold a meaningful hit ratio. */
    static final int MIN_SWITCH_WINDOW = 16;

    /** Largest share of the state-backend managed memory the cache may take. */
    public static final double MAX_MANAGED_MEMORY_SHARE = 0.9;

    private static final long MAX_BYTES = 1L << 40;

    private static final long MIN_BYTES_PER_MAP = 1L << 10;

    /** 2^28 keys: a 384 MiB filter, far past any state a filter helps. */
    private static final int MAX_WRITTEN_KEY_FILTER_KEYS = 1 << 28;

    /** A map body is one cache entry value: at most 8 MiB - 1 bytes. */
    private static final long MAX_BYTES_PER_MAP = (8L << 20) - 1;

    /**
     * Flink's {@code execution.checkpointing.interval}, read (not owned) here: the pre-barrier
     * write-back's first guess at the rhythm of barriers.
     */
    private static final ConfigOption<Duration> CHECKPOINTING_INTERVAL =
            ConfigOptions.key("execution.checkpointing.interval").durationType().noDefaultValue();

    private static final Duration MAX_WRITE_BACK_PAUSE_TARGET = Duration.ofMinutes(10);

    /** The pre-barrier window opens at most half an interval before the expected barrier. */
    private static final double MAX_PRE_BARRIER_LEAD = 0.5;

    private final String policy;
    private final double managedMemoryShare;
    private final long entriesPerTaskManager;
    private final long fixedBytesPerSubtask;
    private final long fixedEntriesPerSubtask;
    private final long maxDirtyBytes;
    private final long writeBackPauseTargetNanos;
    private final double preBarrierLead;
    private final long checkpointIntervalMillis;
    private final double bypassHitRatio;
    private final double mapBypassHitRatio;
    private final int switchWindow;
    private final long switchRetryOperations;
    private final boolean hugePages;
    private final boolean listStateEnabled;
    private final int maxBytesPerList;
    private final boolean mapStateEnabled;
    private final long maxBytesPerMap;
    private final int writtenKeyFilterMaxKeys;
    private final int writtenKeyFilterMaxMaps;

    private CacheSettings(
            String policy,
            double managedMemoryShare,
            long entriesPerTaskManager,
            long fixedBytesPerSubtask,
            long fixedEntriesPerSubtask,
            long maxDirtyBytes,
            long writeBackPauseTargetNanos,
            double preBarrierLead,
            long checkpointIntervalMillis,
            double bypassHitRatio,
            double mapBypassHitRatio,
            int switchWindow,
            long switchRetryOperations,
            boolean hugePages,
            boolean listStateEnabled,
            int maxBytesPerList,
            boolean mapStateEnabled,
            long maxBytesPerMap,
            int writtenKeyFilterMaxKeys,
            int writtenKeyFilterMaxMaps) {
        this.policy = policy;
        this.managedMemoryShare = managedMemoryShare;
        this.entriesPerTaskManager = entriesPerTaskManager;
        this.fixedBytesPerSubtask = fixedBytesPerSubtask;
        this.fixedEntriesPerSubtask = fixedEntriesPerSubtask;
        this.maxDirtyBytes = maxDirtyBytes;
        this.writeBackPauseTargetNanos = writeBackPauseTargetNanos;
        this.preBarrierLead = preBarrierLead;
        this.checkpointIntervalMillis = checkpointIntervalMillis;
        this.bypassHitRatio = bypassHitRatio;
        this.mapBypassHitRatio = mapBypassHitRatio;
        this.switchWindow = switchWindow;
        this.switchRetryOperations = switchRetryOperations;
        this.hugePages = hugePages;
        this.listStateEnabled = listStateEnabled;
        this.maxBytesPerList = maxBytesPerList;
        this.mapStateEnabled = mapStateEnabled;
        this.maxBytesPerMap = maxBytesPerMap;
        this.writtenKeyFilterMaxKeys = writtenKeyFilterMaxKeys;
        this.writtenKeyFilterMaxMaps = writtenKeyFilterMaxMaps;
    }

    /** Reads and validates; a bad value fails with the key, the value and the allowed range. */
    public static CacheSettings fromConfig(ReadableConfig config) {
        String policy = config.get(FalconOptions.CACHE_POLICY).trim().toLowerCase(Locale.ROOT);
        if (!policy.equals("w-tinylfu") && !policy.equals("lru")) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: '%s' is not a cache policy; allowed: w-tinylfu, lru",
                            FalconOptions.CACHE_POLICY.key(), policy));
        }
        double share = config.get(FalconOptions.CACHE_MANAGED_MEMORY_SHARE);
        if (!(share >= 0.0 && share <= MAX_MANAGED_MEMORY_SHARE)) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %s is out of range; allowed: 0 to %s",
                            FalconOptions.CACHE_MANAGED_MEMORY_SHARE.key(),
                            share,
                            MAX_MANAGED_MEMORY_SHARE));
        }
        long tmEntries = config.get(FalconOptions.CACHE_ENTRIES_PER_TASKMANAGER);
        if (tmEntries < 0) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %d is out of range; allowed: 0 (no cap) or more",
                            FalconOptions.CACHE_ENTRIES_PER_TASKMANAGER.key(), tmEntries));
        }
        long size = checkBytes(config, FalconOptions.CACHE_SIZE_PER_SUBTASK);
        long entries = config.get(FalconOptions.CACHE_ENTRIES_PER_SUBTASK);
        if (entries < 0) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %d is out of range; allowed: 0 (no cap) or more",
                            FalconOptions.CACHE_ENTRIES_PER_SUBTASK.key(), entries));
        }
        long dirty = checkBytes(config, FalconOptions.CACHE_MAX_DIRTY_BYTES);
        Duration pause = config.get(FalconOptions.CACHE_WRITE_BACK_PAUSE_TARGET);
        if (pause.isNegative() || pause.compareTo(MAX_WRITE_BACK_PAUSE_TARGET) > 0) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %s is out of range; allowed: 0 (off) to 10 min",
                            FalconOptions.CACHE_WRITE_BACK_PAUSE_TARGET.key(), pause));
        }
        double lead = config.get(FalconOptions.CACHE_PRE_BARRIER_LEAD);
        if (!(lead >= 0.0 && lead <= MAX_PRE_BARRIER_LEAD)) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %s is out of range; allowed: 0 (off) to %s",
                            FalconOptions.CACHE_PRE_BARRIER_LEAD.key(),
                            lead,
                            MAX_PRE_BARRIER_LEAD));
        }
        double bypass = checkHitRatio(config, FalconOptions.CACHE_BYPASS_HIT_RATIO);
        double mapBypass = checkHitRatio(config, FalconOptions.CACHE_MAP_STATE_BYPASS_HIT_RATIO);
        int switchWindow = config.get(FalconOptions.CACHE_SWITCH_WINDOW);
        if (switchWindow < MIN_SWITCH_WINDOW) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %d is out of range; allowed: %d or more",
                            FalconOptions.CACHE_SWITCH_WINDOW.key(),
                            switchWindow,
                            MIN_SWITCH_WINDOW));
        }
        long retry = config.get(FalconOptions.CACHE_SWITCH_RETRY_OPERATIONS);
        if (retry < 1) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %d is out of range; allowed: 1 or more",
                            FalconOptions.CACHE_SWITCH_RETRY_OPERATIONS.key(), retry));
        }
        MemorySize perList = config.get(FalconOptions.CACHE_LIST_STATE_MAX_BYTES_PER_LIST);
        if (perList.getBytes() < MIN_BYTES_PER_MAP || perList.getBytes() > MAX_BYTES_PER_MAP) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %s is out of range; allowed: 1 kb to 8 mb",
                            FalconOptions.CACHE_LIST_STATE_MAX_BYTES_PER_LIST.key(), perList));
        }
        MemorySize perMap = config.get(FalconOptions.CACHE_MAP_STATE_MAX_BYTES_PER_MAP);
        if (perMap.getBytes() < MIN_BYTES_PER_MAP || perMap.getBytes() > MAX_BYTES_PER_MAP) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %s is out of range; allowed: 1 kb to 8 mb",
                            FalconOptions.CACHE_MAP_STATE_MAX_BYTES_PER_MAP.key(), perMap));
        }
        int filterKeys = checkFilterLimit(config, FalconOptions.CACHE_WRITTEN_KEY_FILTER_MAX_KEYS);
        int filterMaps = checkFilterLimit(config, FalconOptions.CACHE_WRITTEN_KEY_FILTER_MAX_MAPS);
        return new CacheSettings(
                policy,
                share,
                tmEntries,
                size,
                entries,
                dirty,
                pause.toNanos(),
                lead,
                config.getOptional(CHECKPOINTING_INTERVAL).map(Duration::toMillis).orElse(0L),
                bypass,
                mapBypass,
                switchWindow,
                retry,
                FalconOptions.readBoolean(config, FalconOptions.CACHE_HUGE_PAGES),
                FalconOptions.readBoolean(config, FalconOptions.CACHE_LIST_STATE_ENABLED),
                (int) perList.getBytes(),
                FalconOptions.readBoolean(config, FalconOptions.CACHE_MAP_STATE_ENABLED),
                perMap.getBytes(),
                filterKeys,
                filterMaps);
    }

    private static int checkFilterLimit(ReadableConfig config, ConfigOption<Integer> option) {
        int limit = config.get(option);
        if (limit != 0
                && (limit < WrittenKeyFilter.MIN_KEYS || limit > MAX_WRITTEN_KEY_FILTER_KEYS)) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %d is out of range; allowed: 0 (off) or %d to %d",
                            option.key(),
                            limit,
                            WrittenKeyFilter.MIN_KEYS,
                            MAX_WRITTEN_KEY_FILTER_KEYS));
        }
        return limit;
    }

    private static double checkHitRatio(ReadableConfig config, ConfigOption<Double> option) {
        double ratio = config.get(option);
        if (!(ratio >= 0.0 && ratio < 1.0)) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %s is out of range; allowed: 0 (off) up to but excluding 1",
                            option.key(), ratio));
        }
        return ratio;
    }

    private static long checkBytes(ReadableConfig config, ConfigOption<MemorySize> option) {
        MemorySize size = config.get(option);
        if (size.getBytes() > MAX_BYTES) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %s is out of range; allowed: 0 to 1 tb", option.key(), size));
        }
        return size.getBytes();
    }

    /** False when neither managed memory nor a fixed size gives the cache any bytes. */
    public boolean canHoldEntries() {
        return fixedBytesPerSubtask > 0 || managedMemoryShare > 0;
    }

    /** True when the explicit per-subtask size overrides the managed-memory budget. */
    public boolean isFixedSize() {
        return fixedBytesPerSubtask > 0;
    }

    /** {@code w-tinylfu} or {@code lru}. */
    public String policy() {
        return policy;
    }

    /** {@code a}: the cache's share of the state-backend managed memory (0 with a fixed size). */
    public double managedMemoryShare() {
        return isFixedSize() ? 0.0 : managedMemoryShare;
    }

    /** 0: no entry cap. */
    public long entriesPerTaskManager() {
        return entriesPerTaskManager;
    }

    /** 0: sized from managed memory. */
    public long fixedBytesPerSubtask() {
        return fixedBytesPerSubtask;
    }

    /** 0: no cap; only with a fixed size. */
    public long fixedEntriesPerSubtask() {
        return fixedEntriesPerSubtask;
    }

    /** 0: no dirty-byte cap. */
    public long maxDirtyBytes() {
        return maxDirtyBytes;
    }

    /**
     * How long before the expected checkpoint barrier write-back ahead starts, as a fraction of the
     * checkpoint interval; 0: off.
     */
    public double preBarrierLead() {
        return preBarrierLead;
    }

    /** The configured checkpoint interval in milliseconds; 0 when not configured. */
    public long checkpointIntervalMillis() {
        return checkpointIntervalMillis;
    }

    /** The pause a barrier's write-back should fit in, nanoseconds; 0: the cap is fixed. */
    public long writeBackPauseTargetNanos() {
        return writeBackPauseTargetNanos;
    }

    /** Dirty bytes left after the cap triggered a write-back: half the cap. */
    public long dirtyLowWaterBytes() {
        return maxDirtyBytes / 2;
    }

    /** Self-switching: the hit ratio below which a state's window is low; 0: never switch. */
    public double bypassHitRatio() {
        return bypassHitRatio;
    }

    /**
     * Self-switching: the hit ratio below which a MapState's window is low; 0 (MapStates stay
     * cached) when self-switching is off ({@link #bypassHitRatio()} 0) or so configured.
     */
    public double mapBypassHitRatio() {
        return bypassHitRatio > 0 ? mapBypassHitRatio : 0.0;
    }

    /** Self-switching: operations of one state per decision window. */
    public int switchWindow() {
        return switchWindow;
    }

    /** Self-switching: operations a state stays on RocksDB before its first trial. */
    public long switchRetryOperations() {
        return switchRetryOperations;
    }

    /** Whether a large cache may ask for transparent huge pages. */
    public boolean hugePages() {
        return hugePages;
    }

    /** Whether ListStates are cached too (whole lists). */
    public boolean listStateEnabled() {
        return listStateEnabled;
    }

    /** The longest list cached, in bytes (elements and delimiters). */
    public int maxBytesPerList() {
        return maxBytesPerList;
    }

    /** Whether MapStates are cached too. */
    public boolean mapStateEnabled() {
        return mapStateEnabled;
    }

    /** The largest user map cached, in body bytes (keys, values, 12 bytes per entry). */
    public long maxBytesPerMap() {
        return maxBytesPerMap;
    }

    /** The largest capacity of a ValueState's written-key filter, in keys; 0: no filters. */
    public int writtenKeyFilterMaxKeys() {
        return writtenKeyFilterMaxKeys;
    }

    /** The largest capacity of a MapState's written-key filter, in maps; 0: no filters. */
    public int writtenKeyFilterMaxMaps() {
        return writtenKeyFilterMaxMaps;
    }

    int policyCode() {
        return policy.equals("lru")
                ? NativeHotStateCache.POLICY_LRU
                : NativeHotStateCache.POLICY_W_TINY_LFU;
    }

    /**
     * A native cache with the fixed size of these settings (no budget lease); the caller owns it.
     */
    public NativeHotStateCache createNativeCache() {
        return createNativeCache(0);
    }

    /**
     * A native cache; with {@code leaseHandle != 0} its bounds are the lease's quota (the cache
     * owns the lease from here on), else the fixed size. The caller owns the cache.
     */
    public NativeHotStateCache createNativeCache(long leaseHandle) {
        return new NativeHotStateCache(
                NativeCacheOptions.fixedSize(fixedBytesPerSubtask)
                        .policy(policyCode())
                        .maxEntries(fixedEntriesPerSubtask)
                        .lease(leaseHandle)
                        .dirtyBytes(maxDirtyBytes, dirtyLowWaterBytes())
                        .hugePages(hugePages));
    }

    @Override
    public String toString() {
        return "CacheSettings{policy="
                + policy
                + ", managedMemoryShare="
                + managedMemoryShare
                + ", entriesPerTaskManager="
                + entriesPerTaskManager
                + ", fixedBytesPerSubtask="
                + fixedBytesPerSubtask
                + ", fixedEntriesPerSubtask="
                + fixedEntriesPerSubtask
                + ", maxDirtyBytes="
                + maxDirtyBytes
                + ", writeBackPauseTargetNanos="
                + writeBackPauseTargetNanos
                + ", preBarrierLead="
                + preBarrierLead
                + ", bypassHitRatio="
                + bypassHitRatio
                + ", mapBypassHitRatio="
                + mapBypassHitRatio
                + ", switchWindow="
                + switchWindow
                + ", switchRetryOperations="
                + switchRetryOperations
                + ", hugePages="
                + hugePages
                + ", listStateEnabled="
                + listStateEnabled
                + ", maxBytesPerList="
                + maxBytesPerList
                + ", mapStateEnabled="
                + mapStateEnabled
                + ", maxBytesPerMap="
                + maxBytesPerMap
                + ", writtenKeyFilterMaxKeys="
                + writtenKeyFilterMaxKeys
                + ", writtenKeyFilterMaxMaps="
                + writtenKeyFilterMaxMaps
                + '}';
    }
}
