package io.falconstate.nexmark.sink;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A query's final result: the multiset of rows left after applying the whole changelog, each row as
 * its escaped tab-separated fields (see {@link ChangelogLines}). Equality is multiset equality.
 */
public final class MaterializedTable {
    private final SortedMap<String, Long> rows;
    private final long changelogRecords;

    public MaterializedTable(SortedMap<String, Long> rows, long changelogRecords) {
        this.rows = Collections.unmodifiableSortedMap(new TreeMap<>(rows));
        this.changelogRecords = changelogRecords;
    }

    /** Row (escaped fields) to multiplicity, sorted; multiplicities are positive. */
    public SortedMap<String, Long> rows() {
        return rows;
    }

    /** Number of rows, counting multiplicity. */
    public long size() {
        long n = 0;
        for (long c : rows.values()) {
            n += c;
        }
        return n;
    }

    /** How many changelog records (+I, -U, +U, -D) were applied to build the table. */
    public long changelogRecords() {
        return changelogRecords;
    }

    /** The rows as lists of field values, sorted, each repeated by its multiplicity. */
    public List<List<String>> fieldRows() {
        List<List<String>> out = new ArrayList<>();
        for (Map.Entry<String, Long> e : rows.entrySet()) {
            List<String> fields = ChangelogLines.split(e.getKey());
            for (long i = 0; i < e.getValue(); i++) {
                out.add(fields);
            }
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MaterializedTable && ((MaterializedTable) o).rows.equals(rows);
    }

    @Override
    public int hashCode() {
        return rows.hashCode();
    }

    /** Up to {@code max} rows, one a line, with multiplicities above 1 marked. */
    public String format(int max) {
        StringBuilder sb = new StringBuilder();
        int shown = 0;
        for (Map.Entry<String, Long> e : rows.entrySet()) {
            if (shown++ == max) {
                sb.append("... (").append(rows.size() - max).append(" more distinct rows)\n");
                break;
            }
            sb.append(e.getKey().replace('\t', ','));
            if (e.getValue() > 1) {
                sb.append("  x").append(e.getValue());
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "MaterializedTable{"
                + size()
                + " rows from "
                + changelogRecords
                + " changes}\n"
                + format(20);
    }
}
