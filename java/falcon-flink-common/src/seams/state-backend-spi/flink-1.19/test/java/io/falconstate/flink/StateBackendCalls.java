/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.query.TaskKvStateRegistry;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

import java.util.Collection;

/**
 * Tests call a state backend as the StreamTask of Flink 1.19 and later does: with a parameter
 * object (and initialization metrics nobody reads).
 */
public final class StateBackendCalls {

    private StateBackendCalls() {}

    /** A keyed backend of {@code backend} (Falcon's or the stock one) for these arguments. */
    public static <K> AbstractKeyedStateBackend<K> keyedBackend(
            StateBackend backend,
            Environment env,
            JobID jobId,
            String operatorIdentifier,
            TypeSerializer<K> keySerializer,
            int numberOfKeyGroups,
            KeyGroupRange keyGroupRange,
            TaskKvStateRegistry kvStateRegistry,
            TtlTimeProvider ttlTimeProvider,
            MetricGroup metricGroup,
            Collection<KeyedStateHandle> stateHandles,
            CloseableRegistry cancelStreamRegistry,
            double managedMemoryFraction)
            throws Exception {
        return (AbstractKeyedStateBackend<K>)
                backend.createKeyedStateBackend(
                        new KeyedStateBackendParametersImpl<>(
                                env,
                                jobId,
                                operatorIdentifier,
                                keySerializer,
                                numberOfKeyGroups,
                                keyGroupRange,
                                kvStateRegistry,
                                ttlTimeProvider,
                                metricGroup,
                                (name, value) -> {},
                                stateHandles,
                                cancelStreamRegistry,
                                managedMemoryFraction));
    }
}
