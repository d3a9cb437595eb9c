/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.FalconOptions;

import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

import java.io.Serializable;
import java.util.Locale;

/**
 * The hot-state cache settings of one job (size, policy, bypass; whether the cache is on at all
 * is {@code FalconOptions#CACHE_ENABLED}), read and validated from the configuration ({@code
 * state.backend.falcon.cache.*}). Immutable and serializable: it travels with the state backend
 * from the client to the TaskManagers.
 */
public final class CacheSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Gets per measurement window of the adaptive bypass. */
    static final int BYPASS_WINDOW = 20_000;

    /** Gets a bypassed state waits before it is probed again. */
    static final int BYPASS_PROBE_INTERVAL = 200_000;

    private final String policy;
    private final long bytesPerSubtask;
    private final long entriesPerSubtask;
    private final double bypassHitRatio;

    private CacheSettings(
            String policy,
            long bytesPerSubtask,
            long entriesPerSubtask,
            double bypassHitRatio) {
        this.policy = policy;
        this.bytesPerSubtask = bytesPerSubtask;
        this.entriesPerSubtask = entriesPerSubtask;
        this.bypassHitRatio = bypassHitRatio;
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
        MemorySize size = config.get(FalconOptions.CACHE_SIZE_PER_SUBTASK);
        if (size.getBytes() > (1L << 40)) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %s is out of range; allowed: 0 to 1 tb",
                            FalconOptions.CACHE_SIZE_PER_SUBTASK.key(), size));
        }
        long entries = config.get(FalconOptions.CACHE_ENTRIES_PER_SUBTASK);
        if (entries < 0) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %d is out of range; allowed: 0 (no cap) or more",
                            FalconOptions.CACHE_ENTRIES_PER_SUBTASK.key(), entries));
        }
        double bypass = config.get(FalconOptions.CACHE_BYPASS_HIT_RATIO);
        if (!(bypass >= 0.0 && bypass < 1.0)) {
            throw new IllegalConfigurationException(
                    String.format(
                            "%s: %s is out of range; allowed: 0 (off) up to but excluding 1",
                            FalconOptions.CACHE_BYPASS_HIT_RATIO.key(), bypass));
        }
        return new CacheSettings(policy, size.getBytes(), entries, bypass);
    }

    /** False when the size is 0: such a cache could hold nothing. */
    public boolean canHoldEntries() {
        return bytesPerSubtask > 0;
    }

    /** {@code w-tinylfu} or {@code lru}. */
    public String policy() {
        return policy;
    }

    public long bytesPerSubtask() {
        return bytesPerSubtask;
    }

    /** 0: no entry cap. */
    public long entriesPerSubtask() {
        return entriesPerSubtask;
    }

    public double bypassHitRatio() {
        return bypassHitRatio;
    }

    /** A native cache with these settings; the caller owns it. */
    public NativeHotStateCache createNativeCache() {
        return new NativeHotStateCache(
                policy.equals("lru")
                        ? NativeHotStateCache.POLICY_LRU
                        : NativeHotStateCache.POLICY_W_TINY_LFU,
                bytesPerSubtask,
                entriesPerSubtask,
                bypassHitRatio,
                BYPASS_WINDOW,
                BYPASS_PROBE_INTERVAL);
    }

    @Override
    public String toString() {
        return "CacheSettings{policy="
                + policy
                + ", bytesPerSubtask="
                + bytesPerSubtask
                + ", entriesPerSubtask="
                + entriesPerSubtask
                + ", bypassHitRatio="
                + bypassHitRatio
                + '}';
    }
}
