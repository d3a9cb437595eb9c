package io.falconstate.nexmark.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness's run plan as {@code --dry-run} prints it: the order of the runs (repetition
 * outermost, then query, mini-batch, parallelism, backend innermost, so backends interleave, each
 * repetition starting one backend later) and what each forked run is told. Written against the
 * harness before it was split into classes, so it pins the order and the child command lines the
 * measurements rely on.
 */
class RunMatrixOrderTest {
    @TempDir Path tmp;

    /** A representative matrix: every axis has two values, a cache sweep adds a Falcon variant. */
    private String[] args() {
        return new String[] {
            "--queries",
            "q4,q17",
            "--reps",
            "2",
            "--mini-batch",
            "off,on",
            "--parallelism",
            "1,2",
            "--backends",
            "rocksdb",
            "--cache-sweep",
            "1mb",
            "--events",
            "1_000",
            "--checkpoint-interval-ms",
            "500",
            "--warmup",
            "0.25",
            "--heap",
            "1g",
            "--managed-memory",
            "64m",
            "--native-library",
            "/lib/libfalcon_jni.so",
            "--conf",
            "a.b=c",
            "--falcon-conf",
            "state.backend.falcon.x=1",
            "--source",
            "rate.limit=100",
            "--jvm-opt",
            "-Dx=y",
            "--java",
            "JAVA",
            "--classpath",
            "CP",
            "--output",
            tmp.resolve("out").toString(),
            "--work",
            tmp.resolve("work").toString(),
            "--dry-run"
        };
    }

    /** The commands the dry run prints, one token list each, without this JVM's module flags. */
    private List<List<String>> dryRunCommands() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(buffer, true, "UTF-8"));
        try {
            NexmarkBenchmark.run(NexmarkBenchmark.parse(args()));
        } finally {
            System.setOut(stdout);
        }
        List<List<String>> commands = new ArrayList<>();
        for (String line : new String(buffer.toByteArray(), StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("JAVA ")) {
                List<String> cmd = new ArrayList<>();
                for (String token : line.trim().split(" ")) {
                    if (!token.startsWith("--add-opens=") && !token.startsWith("--add-exports=")) {
                        cmd.add(token);
                    }
                }
                commands.add(cmd);
            }
        }
        return commands;
    }

    private static String value(List<String> cmd, String option) {
        return cmd.get(cmd.indexOf(option) + 1);
    }

    @Test
    void runsInterleaveBackendsInsideParallelismInsideMiniBatchInsideQueryInsideRepetitionRotating()
            throws Exception {
        List<String> ids = new ArrayList<>();
        for (List<String> cmd : dryRunCommands()) {
            ids.add(Paths.get(value(cmd, "--output")).getFileName().toString());
        }
        assertThat(ids)
                .containsExactly(
                        "001-q4-mboff-p1-rocksdb-r1", "002-q4-mboff-p1-falcon_cache-1mb-r1",
                        "003-q4-mboff-p2-rocksdb-r1", "004-q4-mboff-p2-falcon_cache-1mb-r1",
                        "005-q4-mbon-p1-rocksdb-r1", "006-q4-mbon-p1-falcon_cache-1mb-r1",
                        "007-q4-mbon-p2-rocksdb-r1", "008-q4-mbon-p2-falcon_cache-1mb-r1",
                        "009-q17-mboff-p1-rocksdb-r1", "010-q17-mboff-p1-falcon_cache-1mb-r1",
                        "011-q17-mboff-p2-rocksdb-r1", "012-q17-mboff-p2-falcon_cache-1mb-r1",
                        "013-q17-mbon-p1-rocksdb-r1", "014-q17-mbon-p1-falcon_cache-1mb-r1",
                        "015-q17-mbon-p2-rocksdb-r1", "016-q17-mbon-p2-falcon_cache-1mb-r1",
                        "017-q4-mboff-p1-falcon_cache-1mb-r2", "018-q4-mboff-p1-rocksdb-r2",
                        "019-q4-mboff-p2-falcon_cache-1mb-r2", "020-q4-mboff-p2-rocksdb-r2",
                        "021-q4-mbon-p1-falcon_cache-1mb-r2", "022-q4-mbon-p1-rocksdb-r2",
                        "023-q4-mbon-p2-falcon_cache-1mb-r2", "024-q4-mbon-p2-rocksdb-r2",
                        "025-q17-mboff-p1-falcon_cache-1mb-r2", "026-q17-mboff-p1-rocksdb-r2",
                        "027-q17-mboff-p2-falcon_cache-1mb-r2", "028-q17-mboff-p2-rocksdb-r2",
                        "029-q17-mbon-p1-falcon_cache-1mb-r2", "030-q17-mbon-p1-rocksdb-r2",
                        "031-q17-mbon-p2-falcon_cache-1mb-r2", "032-q17-mbon-p2-rocksdb-r2");
    }

    @Test
    void everyRunIsForkedWithTheSameJvmSettingsAndItsOwnQueryBackendAndConfiguration()
            throws Exception {
        List<List<String>> commands = dryRunCommands();
        assertThat(commands).hasSize(32);

        List<String> rocksdb = commands.get(0);
        Path dir = Paths.get(value(rocksdb, "--output"));
        assertThat(rocksdb)
                .containsExactly(
                        "JAVA",
                        "-Xms1g",
                        "-Xmx1g",
                        "-XX:+UseG1GC",
                        "-XX:+ExitOnOutOfMemoryError",
                        "-Dfalcon.native.library=/lib/libfalcon_jni.so",
                        "-Dlog4j.configurationFile=nexmark-bench-log4j2.properties",
                        "-Dx=y",
                        "-cp",
                        "CP",
                        "io.falconstate.nexmark.bench.NexmarkBenchmarkMain",
                        "--result-file",
                        dir.resolve("result.properties").toString(),
                        "--query",
                        "q4",
                        "--events",
                        "1000",
                        "--parallelism",
                        "1",
                        "--state-backend",
                        "rocksdb",
                        "--checkpoint-interval-ms",
                        "500",
                        "--mini-batch",
                        "off",
                        "--output",
                        dir.toString(),
                        "--sink",
                        "blackhole",
                        "--warmup",
                        "0.25",
                        "--conf",
                        "taskmanager.memory.managed.size=64m",
                        "--conf",
                        "state.backend.incremental=true",
                        "--conf",
                        "state.backend.local-recovery=false",
                        "--conf",
                        "a.b=c",
                        "--source",
                        "rate.limit=100");
        assertThat(dir.getParent().getParent()).isEqualTo(tmp.resolve("work"));

        // Run 31: q17, mini-batch on, p 2, the cache-sweep variant, repetition 2 (which starts
        // with it).
        List<String> falcon = commands.get(30);
        dir = Paths.get(value(falcon, "--output"));
        assertThat(falcon.subList(falcon.indexOf("--result-file"), falcon.size()))
                .containsExactly(
                        "--result-file",
                        dir.resolve("result.properties").toString(),
                        "--query",
                        "q17",
                        "--events",
                        "1000",
                        "--parallelism",
                        "2",
                        "--state-backend",
                        "io.falconstate.flink.FalconStateBackendFactory",
                        "--checkpoint-interval-ms",
                        "500",
                        "--mini-batch",
                        "on",
                        "--output",
                        dir.toString(),
                        "--sink",
                        "blackhole",
                        "--warmup",
                        "0.25",
                        "--conf",
                        "taskmanager.memory.managed.size=64m",
                        "--conf",
                        "state.backend.incremental=true",
                        "--conf",
                        "state.backend.local-recovery=false",
                        "--conf",
                        "a.b=c",
                        "--conf",
                        "state.backend.falcon.native.required=true",
                        "--conf",
                        "state.backend.falcon.x=1",
                        "--conf",
                        "state.backend.falcon.cache.size-per-subtask=1mb",
                        "--source",
                        "rate.limit=100");
        assertThat(falcon.subList(0, falcon.indexOf("--result-file")))
                .isEqualTo(rocksdb.subList(0, rocksdb.indexOf("--result-file")));
        assertThat(dir.getFileName().toString()).isEqualTo("031-q17-mbon-p2-falcon_cache-1mb-r2");
    }
}
