/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.AbstractManagedMemoryStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import java.util.Collections;

/** Creates keyed backends the way a StreamTask does, for tests. */
final class KeyedBackends {

    static final int MAX_PARALLELISM = 128;

    private KeyedBackends() {}

    static AbstractKeyedStateBackend<Integer> create(
            AbstractManagedMemoryStateBackend backend,
            Environment env,
            double managedMemoryFraction)
            throws Exception {
        return StateBackendCalls.keyedBackend(
                backend,
                env,
                new JobID(),
                "test-operator (1/1)#0",
                IntSerializer.INSTANCE,
                MAX_PARALLELISM,
                new KeyGroupRange(0, MAX_PARALLELISM - 1),
                env.getTaskKvStateRegistry(),
                TtlTimeProvider.DEFAULT,
                new UnregisteredMetricsGroup(),
                Collections.emptyList(),
                new CloseableRegistry(),
                managedMemoryFraction);
    }
}
