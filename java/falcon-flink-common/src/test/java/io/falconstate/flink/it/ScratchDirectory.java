/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A temporary directory for jobs run through {@code StreamExecutionEnvironment.execute()} on a
 * local environment. Such a MiniCluster is shut down asynchronously after {@code execute()}
 * returns, and while it shuts down it still discards a finished job's checkpoints. JUnit's
 * {@code @TempDir} deletes once and fails the test when a file vanishes or appears under it, so
 * this directory is deleted with retries until the cluster has let go of it.
 */
final class ScratchDirectory implements AutoCloseable {

    private static final Duration DELETE_TIMEOUT = Duration.ofSeconds(60);

    private final Path path;

    ScratchDirectory(String prefix) throws IOException {
        this.path = Files.createTempDirectory(prefix);
    }

    Path path() {
        return path;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + DELETE_TIMEOUT.toNanos();
        while (true) {
            try {
                deleteOnce();
                return;
            } catch (IOException | UncheckedIOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException(
                            "could not delete " + path + " within " + DELETE_TIMEOUT, e);
                }
                Thread.sleep(200);
            }
        }
    }

    private void deleteOnce() throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        List<Path> deepestFirst;
        try (Stream<Path> files = Files.walk(path)) {
            deepestFirst = files.sorted(Comparator.reverseOrder()).collect(Collectors.toList());
        }
        for (Path file : deepestFirst) {
            try {
                Files.delete(file);
            } catch (NoSuchFileException gone) {
                // Discarded by the cluster between the walk and here.
            } catch (DirectoryNotEmptyException written) {
                throw written; // The cluster wrote into it meanwhile: walk again.
            }
        }
    }
}
