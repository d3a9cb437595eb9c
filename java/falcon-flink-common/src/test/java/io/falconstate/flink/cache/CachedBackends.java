/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.config.FalconOptions;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/** Cache configurations the tests use. */
public final class CachedBackends {

    /** Entries a tiny cache holds: small enough that every test evicts and writes back. */
    public static final long TINY_CACHE_ENTRIES = 4;

    private CachedBackends() {}

    /** A cache of {@value #TINY_CACHE_ENTRIES} entries (and 64 KiB) per subtask. */
    public static Configuration tinyCache(Configuration config) {
        config.set(FalconOptions.CACHE_ENABLED, true);
        config.set(FalconOptions.CACHE_SIZE_PER_SUBTASK, MemorySize.parse("64kb"));
        config.set(FalconOptions.CACHE_ENTRIES_PER_SUBTASK, TINY_CACHE_ENTRIES);
        // Flink's test bases run their list-state tests through the cache too.
        config.set(FalconOptions.CACHE_LIST_STATE_ENABLED, true);
        return config;
    }

    /** The default cache (on, default size). */
    public static Configuration defaultCache(Configuration config) {
        config.set(FalconOptions.CACHE_ENABLED, true);
        return config;
    }
}
