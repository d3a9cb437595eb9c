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
import org.apache.flink.testutils.junit.extensions.parameterized.Parameter;
import org.apache.flink.testutils.junit.extensions.parameterized.ParameterizedTestExtension;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;
import org.apache.flink.util.function.SupplierWithException;

import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink's own keyed state backend test suite ({@code StateBackendTestBase} from the flink-runtime
 * test-jar of Flink 1.19 and later, JUnit 5 test templates) run against {@link FalconStateBackend},
 * with the two parameterizations of Flink's {@code EmbeddedRocksDBStateBackendTest}: incremental
 * checkpoints to JobManager storage, and full (native) checkpoints to file-system storage.
 * Subclasses change Falcon's options ({@link #falconConfig()}). The native library must be loaded
 * (the build passes {@code -Dfalcon.native.library}), otherwise this would test the stock fallback:
 * the one test of our own checks that.
 */
@ExtendWith(ParameterizedTestExtension.class)
public class FalconStateBackendTest extends StateBackendTestBase<FalconStateBackend> {

    @TempDir static java.nio.file.Path tempFolder;

    /** A new directory under the class's temporary folder. */
    protected static java.nio.file.Path newFolder() throws IOException {
        return Files.createTempDirectory(tempFolder, "falcon");
    }

    @Parameters(name = "incremental checkpoints: {0}")
    public static List<Object[]> modes() {
        SupplierWithException<CheckpointStorage, IOException> jobManager =
                JobManagerCheckpointStorage::new;
        SupplierWithException<CheckpointStorage, IOException> fileSystem =
                () -> new FileSystemCheckpointStorage(new Path(newFolder().toUri()), 0, -1);
        return Arrays.asList(new Object[] {true, jobManager}, new Object[] {false, fileSystem});
    }

    @Parameter(0)
    public boolean incremental;

    @Parameter(1)
    public SupplierWithException<CheckpointStorage, IOException> storage;

    /** Falcon's options for the suite (none: the defaults); subclasses add to them. */
    protected Configuration falconConfig() {
        return new Configuration();
    }

    /** Fails the suite's setup unless {@link #falconConfig()} really switched its parts on. */
    protected void checkSwitchedOn(FalconStateBackend backend) {}

    /**
     * The RocksDB settings of Flink's own RocksDB test, a new local directory each time. Declares
     * no checked exception, so it overrides the base method whether or not that one declares one.
     */
    @Override
    protected ConfigurableStateBackend getStateBackend() {
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend(incremental);
        rocksDb.setPriorityQueueStateType(
                EmbeddedRocksDBStateBackend.PriorityQueueStateType.ROCKSDB);
        try {
            rocksDb.setDbStoragePath(newFolder().toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        FalconStateBackend backend =
                new FalconStateBackend(rocksDb)
                        .configure(falconConfig(), Thread.currentThread().getContextClassLoader());
        checkSwitchedOn(backend);
        return backend;
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
    @TestTemplate
    void testKeyedBackendIsFalcon() throws Exception {
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
