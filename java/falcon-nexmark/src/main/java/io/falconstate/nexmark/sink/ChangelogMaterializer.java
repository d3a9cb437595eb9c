package io.falconstate.nexmark.sink;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Builds the final table from the committed result files of one run.
 *
 * <p>Only committed part files are read: the file sink keeps in-progress and pending files hidden
 * (names starting with '.'), and renames them to their final name only when the checkpoint that
 * covers them completes. Records are sorted by {@code (subtask, seq)} (see {@link SequenceStamper})
 * and applied in that order: +I and +U add the row, -U and -D retract it. All changes of one row
 * value were routed to one subtask, so this order is the order in which they were produced. The
 * materializer fails on a repeated or missing sequence number (a duplicated or lost record) and on
 * a retraction of a row that is not present.
 */
public final class ChangelogMaterializer {
    private ChangelogMaterializer() {}

    /** Materializes every committed file under {@code dir} (recursively). */
    public static MaterializedTable materialize(Path dir) throws IOException {
        List<ChangelogLines.Record> records = new ArrayList<>();
        for (Path file : committedFiles(dir)) {
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (!line.isEmpty()) {
                        records.add(ChangelogLines.parse(line));
                    }
                }
            }
        }
        records.sort(
                Comparator.<ChangelogLines.Record>comparingInt(r -> r.subtask)
                        .thenComparingLong(r -> r.seq));
        SortedMap<String, Long> rows = new TreeMap<>();
        int subtask = -1;
        long expected = 0;
        for (ChangelogLines.Record r : records) {
            if (r.subtask != subtask) {
                subtask = r.subtask;
                expected = 0;
            }
            if (r.seq != expected) {
                throw new IllegalStateException(
                        (r.seq < expected ? "duplicate" : "missing")
                                + " changelog record: subtask "
                                + subtask
                                + " has seq "
                                + r.seq
                                + " where "
                                + expected
                                + " was expected");
            }
            expected++;
            if (ChangelogLines.isAddition(r.kind)) {
                rows.merge(r.fields, 1L, Long::sum);
            } else {
                Long count = rows.get(r.fields);
                if (count == null) {
                    throw new IllegalStateException(
                            "changelog retracts a row that is not present ("
                                    + r.kind
                                    + ", subtask "
                                    + r.subtask
                                    + ", seq "
                                    + r.seq
                                    + "): "
                                    + r.fields);
                }
                if (count == 1) {
                    rows.remove(r.fields);
                } else {
                    rows.put(r.fields, count - 1);
                }
            }
        }
        return new MaterializedTable(rows, records.size());
    }

    /** Regular files under {@code dir} whose name does not start with '.' or '_', sorted. */
    public static List<Path> committedFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return new ArrayList<>();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .filter(
                            p -> {
                                String name = p.getFileName().toString();
                                return !name.startsWith(".") && !name.startsWith("_");
                            })
                    .sorted()
                    .collect(Collectors.toList());
        }
    }
}
