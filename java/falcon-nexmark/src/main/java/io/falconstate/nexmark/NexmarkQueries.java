package io.falconstate.nexmark;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** The query set under {@code src/main/resources/nexmark/queries/} (docs/nexmark.md). */
public final class NexmarkQueries {
    private NexmarkQueries() {}

    /**
     * The bundled queries that keep keyed state: Nexmark's stateful queries and q15_bidder (q15
     * grouped by bidder as well, without the distinct counts).
     */
    public static final List<String> STATEFUL =
            Collections.unmodifiableList(
                    Arrays.asList(
                            "q3",
                            "q4",
                            "q5",
                            "q7",
                            "q8",
                            "q9",
                            "q11",
                            "q12",
                            "q15",
                            "q15_bidder",
                            "q16",
                            "q17",
                            "q18",
                            "q19",
                            "q20"));

    /**
     * The bundled stateless queries: no keyed state, so a state backend must cost nothing there.
     * (q10 and q13 are left out: they test a partitioned file sink and a lookup side input.)
     */
    public static final List<String> STATELESS =
            Collections.unmodifiableList(Arrays.asList("q0", "q1", "q2", "q14", "q21", "q22"));

    /** Every bundled query, in the order tests run them: the stateful ones first. */
    public static final List<String> ALL = concat(STATEFUL, STATELESS);

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return Collections.unmodifiableList(all);
    }

    /** The SQL text of a bundled query ("q4") or of a .sql file path. */
    public static String text(String query) throws IOException {
        if (query.endsWith(".sql")) {
            Path p = Paths.get(query);
            if (Files.isRegularFile(p)) {
                return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
            }
        }
        String resource = "nexmark/queries/" + query + ".sql";
        try (InputStream in = NexmarkQueries.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException(
                        "unknown Nexmark query '"
                                + query
                                + "' (bundled: "
                                + ALL
                                + ", or give a path to a .sql file)");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
            return new String(out.toByteArray(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The statements of a query file: ';'-separated, '--' comments removed. All but the last are
     * executed as DDL (e.g. CREATE TEMPORARY VIEW); the last is the SELECT whose changelog is the
     * result.
     */
    public static List<String> statements(String sql) {
        StringBuilder noComments = new StringBuilder();
        for (String line : sql.split("\n", -1)) {
            int cut = commentStart(line);
            noComments.append(cut < 0 ? line : line.substring(0, cut)).append('\n');
        }
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < noComments.length(); i++) {
            char c = noComments.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            }
            if (c == ';' && !quoted) {
                addIfNotBlank(out, cur);
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        addIfNotBlank(out, cur);
        if (out.isEmpty()) {
            throw new IllegalArgumentException("query file has no statement");
        }
        return out;
    }

    private static int commentStart(String line) {
        boolean quoted = false;
        for (int i = 0; i + 1 < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            } else if (!quoted && c == '-' && line.charAt(i + 1) == '-') {
                return i;
            }
        }
        return -1;
    }

    private static void addIfNotBlank(List<String> out, StringBuilder s) {
        String t = s.toString().trim();
        if (!t.isEmpty()) {
            out.add(t);
        }
    }
}
