package io.falconstate.nexmark;

import io.falconstate.nexmark.generator.NexmarkConfig;
import io.falconstate.nexmark.sink.ChangelogMaterializer;
import io.falconstate.nexmark.sink.MaterializedTable;
import io.falconstate.nexmark.table.NexmarkOptions;

import org.apache.flink.configuration.Configuration;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Checks the committed result of a {@link NexmarkClusterJob} run exactly. Command line: the job's
 * own arguments (query, output directory and generator options), optionally {@code --reference
 * DIR}: {@code java -cp <job jar>:<Flink lib/> io.falconstate.nexmark.NexmarkResultCheck --query q4
 * --events 100000 --output /tmp/run ...}.
 *
 * <p>It materializes the committed changelog under {@code OUTPUT/result} ({@link
 * ChangelogMaterializer}: every subtask's sequence numbers must run 0..n-1 with no gap and no
 * repeat, and no retraction may hit a missing row) and compares the table with the expected one:
 * for q4 the oracle computed from the same generator configuration ({@link Q4Oracle}); for other
 * queries the materialized result of a reference run ({@code --reference DIR}, e.g. a failure-free
 * run). Prints one summary line; exit status 0 only when the result is exact.
 */
public final class NexmarkResultCheck {
    private NexmarkResultCheck() {}

    public static void main(String[] args) {
        String line;
        boolean ok;
        try {
            List<String> jobArgs = new ArrayList<>();
            Path reference = null;
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals("--reference") && i + 1 < args.length) {
                    reference = Paths.get(args[++i]);
                } else {
                    jobArgs.add(args[i]);
                }
            }
            NexmarkRunOptions o = NexmarkClusterJob.parse(jobArgs.toArray(new String[0]));
            Result r = check(o, reference);
            line = r.summary;
            ok = r.exact;
        } catch (Exception e) {
            line = "result check FAILED: " + e;
            ok = false;
        }
        System.out.println(line);
        System.exit(ok ? 0 : 1);
    }

    /** The outcome: exact or not, and one line saying why. */
    static final class Result {
        final boolean exact;
        final String summary;

        Result(boolean exact, String summary) {
            this.exact = exact;
            this.summary = summary;
        }
    }

    /** The generator configuration the job's 'nexmark' table was created with. */
    static NexmarkConfig generatorConfig(NexmarkRunOptions o) {
        return NexmarkOptions.toConfig(Configuration.fromMap(NexmarkRunner.sourceOptions(o)));
    }

    static Result check(NexmarkRunOptions o, Path reference) throws Exception {
        Path resultDir = o.outputDir().resolve("result");
        int files = ChangelogMaterializer.committedFiles(resultDir).size();
        MaterializedTable actual;
        try {
            actual = ChangelogMaterializer.materialize(resultDir);
        } catch (IllegalStateException e) {
            return new Result(
                    false,
                    "result check FAILED (" + files + " committed files): " + e.getMessage());
        }
        SortedMap<String, Long> expected;
        String against;
        if (reference != null) {
            try {
                expected = ChangelogMaterializer.materialize(reference.resolve("result")).rows();
            } catch (IllegalStateException e) {
                return new Result(
                        false,
                        "result check FAILED: the reference run's changelog is broken: "
                                + e.getMessage());
            }
            against = "the reference run " + reference;
        } else if (o.query().equals("q4")) {
            NexmarkConfig config = generatorConfig(o);
            expected = Q4Oracle.rows(config);
            against = "the q4 oracle over " + config.eventsNum() + " generated events";
        } else {
            throw new IllegalArgumentException(
                    "no oracle for " + o.query() + ": give --reference DIR of a failure-free run");
        }
        if (expected.isEmpty()) {
            return new Result(
                    false,
                    "result check FAILED: the expected result is empty ("
                            + against
                            + "); the workload is too small to prove anything");
        }
        if (actual.rows().equals(expected)) {
            return new Result(
                    true,
                    "result check ok: "
                            + o.query()
                            + ", "
                            + files
                            + " committed files, "
                            + actual.changelogRecords()
                            + " changelog records (per-subtask sequences gap-free, no duplicate), "
                            + actual.size()
                            + " rows = "
                            + against);
        }
        return new Result(
                false,
                "result check FAILED ("
                        + files
                        + " committed files, "
                        + actual.changelogRecords()
                        + " changelog records): rows differ from "
                        + against
                        + ": missing "
                        + describe(difference(expected, actual.rows()))
                        + ", unexpected "
                        + describe(difference(actual.rows(), expected)));
    }

    /** Rows (with multiplicity) in {@code a} but not in {@code b}. */
    private static SortedMap<String, Long> difference(
            SortedMap<String, Long> a, SortedMap<String, Long> b) {
        SortedMap<String, Long> d = new TreeMap<>();
        for (Map.Entry<String, Long> e : a.entrySet()) {
            long extra = e.getValue() - b.getOrDefault(e.getKey(), 0L);
            if (extra > 0) {
                d.put(e.getKey(), extra);
            }
        }
        return d;
    }

    private static String describe(SortedMap<String, Long> rows) {
        StringBuilder sb = new StringBuilder().append(rows.size()).append(" rows");
        int shown = 0;
        for (Map.Entry<String, Long> e : rows.entrySet()) {
            sb.append(shown == 0 ? " [" : ", ").append(e.getKey().replace('\t', ','));
            if (e.getValue() > 1) {
                sb.append(" x").append(e.getValue());
            }
            if (++shown == 5) {
                break;
            }
        }
        return shown > 0
                ? sb.append(rows.size() > shown ? ", ...]" : "]").toString()
                : sb.toString();
    }
}
