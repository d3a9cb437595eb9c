package io.falconstate.nexmark.sink;

import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.List;

/**
 * The text form of changelog records in the result files: one line per record, {@code <subtask> TAB
 * <seq> TAB <kind> TAB <field> TAB <field> ...}, where kind is {@code +I}, {@code -U}, {@code +U}
 * or {@code -D}, fields use {@code toString()} with backslash escapes for backslash, tab, CR and
 * LF, and {@code \N} stands for null.
 */
public final class ChangelogLines {
    private ChangelogLines() {}

    public static final String NULL = "\\N";

    /** The row's fields as one tab-separated, escaped string (the materialized row's identity). */
    public static String fields(Row row) {
        StringBuilder sb = new StringBuilder(64);
        for (int i = 0; i < row.getArity(); i++) {
            if (i > 0) {
                sb.append('\t');
            }
            Object v = row.getField(i);
            if (v == null) {
                sb.append(NULL);
            } else {
                escape(v.toString(), sb);
            }
        }
        return sb.toString();
    }

    static void escape(String s, StringBuilder sb) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                default:
                    sb.append(c);
            }
        }
    }

    /** True for +I and +U: the row is added; false for -U and -D: it is retracted. */
    public static boolean isAddition(String kind) {
        switch (kind) {
            case "+I":
            case "+U":
                return true;
            case "-U":
            case "-D":
                return false;
            default:
                throw new IllegalArgumentException("unknown row kind " + kind);
        }
    }

    public static String kind(RowKind kind) {
        return kind.shortString();
    }

    /** One parsed result-file line. */
    public static final class Record {
        public final int subtask;
        public final long seq;
        public final String kind;

        /** The escaped, tab-separated fields (as written). */
        public final String fields;

        Record(int subtask, long seq, String kind, String fields) {
            this.subtask = subtask;
            this.seq = seq;
            this.kind = kind;
            this.fields = fields;
        }
    }

    public static String line(int subtask, long seq, String kindAndFields) {
        return subtask + "\t" + seq + "\t" + kindAndFields;
    }

    public static Record parse(String line) {
        int a = line.indexOf('\t');
        int b = a < 0 ? -1 : line.indexOf('\t', a + 1);
        int c = b < 0 ? -1 : line.indexOf('\t', b + 1);
        if (c < 0) {
            // A row with no fields has no third tab.
            if (b < 0) {
                throw new IllegalArgumentException("malformed changelog line: " + line);
            }
            return new Record(
                    Integer.parseInt(line.substring(0, a)),
                    Long.parseLong(line.substring(a + 1, b)),
                    line.substring(b + 1),
                    "");
        }
        return new Record(
                Integer.parseInt(line.substring(0, a)),
                Long.parseLong(line.substring(a + 1, b)),
                line.substring(b + 1, c),
                line.substring(c + 1));
    }

    /** Splits escaped fields back into their (unescaped) values; null for {@link #NULL}. */
    public static List<String> split(String fields) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean isNull = false;
        for (int i = 0; i < fields.length(); i++) {
            char ch = fields.charAt(i);
            if (ch == '\t') {
                out.add(isNull ? null : cur.toString());
                cur.setLength(0);
                isNull = false;
            } else if (ch == '\\' && i + 1 < fields.length()) {
                char n = fields.charAt(++i);
                if (n == 'N'
                        && cur.length() == 0
                        && (i + 1 == fields.length() || fields.charAt(i + 1) == '\t')) {
                    isNull = true;
                } else {
                    cur.append(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
                }
            } else {
                cur.append(ch);
            }
        }
        out.add(isNull ? null : cur.toString());
        return out;
    }
}
