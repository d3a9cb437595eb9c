/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconStateBackend;
import io.falconstate.flink.tuning.TunedBackends.Tuning;

import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.StateBackendMigrationTestBase;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameter;
import org.apache.flink.testutils.junit.extensions.parameterized.ParameterizedTestExtension;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;

import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Flink's state migration suite ({@code StateBackendMigrationTestBase} of Flink 1.19 and later,
 * JUnit 5 test templates) on Falcon under every tuning combination and both checkpoint modes. Its
 * states use a namespace serializer of no fixed length, so their column families stay untuned: this
 * proves the seam; {@link TunedColumnFamilyMigrationTest} migrates tuned column families.
 */
@ExtendWith(ParameterizedTestExtension.class)
public class TunedStateMigrationTest extends StateBackendMigrationTestBase<FalconStateBackend> {

    @Parameter(0)
    public Tuning tuning;

    @Parameter(1)
    public boolean incremental;

    @Parameters(name = "{0}, incremental={1}")
    public static Collection<Object[]> parameters() {
        List<Object[]> parameters = new ArrayList<>();
        for (Tuning tuning : Tuning.values()) {
            parameters.add(new Object[] {tuning, true});
            parameters.add(new Object[] {tuning, false});
        }
        return parameters;
    }

    @Override
    protected CheckpointStorage getCheckpointStorage() throws Exception {
        // As Flink's RocksDB tests: memory for incremental, files for full checkpoints.
        return incremental
                ? new JobManagerCheckpointStorage()
                : new FileSystemCheckpointStorage(
                        new org.apache.flink.core.fs.Path(
                                Files.createTempDirectory(tempFolder, "checkpoints").toUri()),
                        0,
                        -1);
    }

    @Override
    protected FalconStateBackend getStateBackend() throws Exception {
        return TunedBackends.falcon(
                tuning, incremental, Files.createTempDirectory(tempFolder, "db"));
    }
}
