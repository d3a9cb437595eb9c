/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.FalconStateBackendTest;

import org.apache.flink.configuration.Configuration;

/**
 * Flink's whole StateBackendTestBase with a hot-state cache of {@value
 * CachedBackends#TINY_CACHE_ENTRIES} entries, so every test that touches more than a handful of
 * ValueState keys runs through evictions and dirty write-backs. Falcon's own tests of the tiny
 * cache: {@link TinyCacheBackendTest}.
 */
public class TinyCacheFalconStateBackendTest extends FalconStateBackendTest {

    /** Falcon's options for the suite: the tiny cache (subclasses add to it). */
    @Override
    protected Configuration falconConfig() {
        return CachedBackends.tinyCache(new Configuration());
    }

    @Override
    protected void checkSwitchedOn(FalconStateBackend backend) {
        if (!backend.isCacheEnabled()) {
            throw new IllegalStateException("cache not switched on: " + backend);
        }
    }
}
