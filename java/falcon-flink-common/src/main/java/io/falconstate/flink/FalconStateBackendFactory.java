/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.state.StateBackendFactory;

/**
 * The class named in {@code state.backend}: Flink's {@code StateBackendLoader} instantiates it
 * (public no-argument constructor) on the client, the JobManager and every TaskManager and asks it
 * for a configured {@link FalconStateBackend}. A jar built for another Flink minor version refuses
 * here first ({@link FlinkVersionGuard}).
 */
public final class FalconStateBackendFactory implements StateBackendFactory<FalconStateBackend> {

    @Override
    public FalconStateBackend createFromConfig(ReadableConfig config, ClassLoader classLoader)
            throws IllegalConfigurationException {
        FlinkVersionGuard.check();
        return new FalconStateBackend().configure(config, classLoader);
    }
}
