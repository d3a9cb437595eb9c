/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink;

import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.StateBackendTestBase;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.util.function.SupplierWithException;

import org.junit.Before;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink's own keyed state backend test suite ({@code StateBackendTestBase} from the flink-runtime
 * 1.16.3 test-jar) run against {@link FalconStateBackend}, with the two parameterizations of
 * Flink's {@code EmbeddedRocksDBStateBackendTest}: incremental checkpoints to JobManager storage,
 * and full (native) checkpoints to file-system storage. The native library must be loaded (the
 * build passes {@code -Dfalcon.native.library}), otherwise this would test the stock fallback: the
 * one test of our own checks that.
 */
@RunWith(Parameterized.class)
public class FalconStateBackendTest extends StateBackendTestBase<FalconStateBackend> {

    @ClassRule public static final TemporaryFolder TEMP_FOLDER = new TemporaryFolder();

    @Parameterized.Parameters(name = "incremental checkpoints: {0}")
    public static List<Object[]> modes() {
        SupplierWithException<CheckpointStorage, IOException> jobManager =
                JobManagerCheckpointStorage::new;
        SupplierWithException<CheckpointStorage, IOException> fileSystem =
                () ->
                        new FileSystemCheckpointStorage(
                                new Path(TEMP_FOLDER.newFolder().toURI()), 0, -1);
        return Arrays.asList(new Object[] {true, jobManager}, new Object[] {false, fileSystem});
    }

    @Parameterized.Parameter(0)
    public boolean incremental;

    @Parameterized.Parameter(1)
    public SupplierWithException<CheckpointStorage, IOException> storage;

    /** One local directory per test, as in Flink's own RocksDB test. */
    private String dbPath;

    @Before
    public void createDbPath() throws IOException {
        dbPath = TEMP_FOLDER.newFolder().getAbsolutePath();
    }

    @Override
    protected ConfigurableStateBackend getStateBackend() {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(incremental);
        rocksDb.setPriorityQueueStateType(
                EmbeddedRocksDBStateBackend.PriorityQueueStateType.ROCKSDB);
        rocksDb.setDbStoragePath(dbPath);
        return new FalconStateBackend(rocksDb)
                .configure(new Configuration(), Thread.currentThread().getContextClassLoader());
    }

    @Override
    protected CheckpointStorage getCheckpointStorage() throws Exception {
        return storage.get();
    }

    @Override
    protected boolean isSerializerPresenceRequiredOnRestore() {
        return false;
    }

    @Override
    protected boolean supportsAsynchronousSnapshots() {
        return true;
    }

    @Override
    protected boolean isSafeToReuseKVState() {
        return true;
    }

    /** Every test above went through Falcon's keyed backend, not the stock fallback. */
    @Test
    public void testKeyedBackendIsFalcon() throws Exception {
        CheckpointableKeyedStateBackend<Integer> backend =
                createKeyedBackend(IntSerializer.INSTANCE);
        try {
            assertThat(backend).isInstanceOf(FalconKeyedStateBackend.class);
            assertThat(((FalconKeyedStateBackend<Integer>) backend).getRocksDBKeyedStateBackend())
                    .isInstanceOf(RocksDBKeyedStateBackend.class);
        } finally {
            backend.dispose();
        }
    }
}
