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

import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Flink's state migration suite ({@code StateBackendMigrationTestBase} of Flink 1.16 to 1.18, JUnit
 * 4) on Falcon under every tuning combination and both checkpoint modes. Its states use a namespace
 * serializer of no fixed length, so their column families stay untuned: this proves the seam;
 * {@link TunedColumnFamilyMigrationTest} migrates tuned column families.
 */
@RunWith(Parameterized.class)
public class TunedStateMigrationTest extends StateBackendMigrationTestBase<FalconStateBackend> {

    @Parameterized.Parameter(0)
    public Tuning tuning;

    @Parameterized.Parameter(1)
    public boolean incremental;

    @Parameterized.Parameters(name = "{0}, incremental={1}")
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
                        new org.apache.flink.core.fs.Path(tempFolder.newFolder().toURI()), 0, -1);
    }

    @Override
    protected FalconStateBackend getStateBackend() throws Exception {
        return TunedBackends.falcon(tuning, incremental, tempFolder.newFolder().toPath());
    }
}
