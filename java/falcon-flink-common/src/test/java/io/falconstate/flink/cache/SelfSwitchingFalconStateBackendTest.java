/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.cache;

import org.apache.flink.configuration.Configuration;

/**
 * Flink's whole StateBackendTestBase with the tiny cache and a self-switching threshold no window
 * reaches: every cached ValueState and MapState leaves the cache for RocksDB after a few dozen
 * operations and comes back for a trial a few dozen later, so the suite runs through every
 * transition (write-back and drop on the way out, cold cache on the way back). Falcon's own tests
 * of these options: {@link SelfSwitchingBackendTest}.
 */
public class SelfSwitchingFalconStateBackendTest extends TinyCacheFalconStateBackendTest {

    @Override
    protected Configuration falconConfig() {
        return SelfSwitchingBackendTest.selfSwitching(super.falconConfig());
    }
}
