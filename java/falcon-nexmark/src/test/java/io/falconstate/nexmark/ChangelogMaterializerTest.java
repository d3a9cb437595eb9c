package io.falconstate.nexmark;

import io.falconstate.nexmark.sink.ChangelogLines;
import io.falconstate.nexmark.sink.ChangelogMaterializer;
import io.falconstate.nexmark.sink.MaterializedTable;

import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChangelogMaterializerTest {
    @TempDir Path dir;

    private void write(String name, String... lines) throws Exception {
        Files.write(dir.resolve(name), Arrays.asList(lines), StandardCharsets.UTF_8);
    }

    @Test
    void appliesChangesInSequenceOrderAcrossFilesAndIgnoresUncommittedFiles() throws Exception {
        // Subtask 0's changes are split over two committed files, listed out of order on purpose.
        write("part-b-1.txt", "0\t2\t-U\ta\t1", "0\t3\t+U\ta\t2");
        write("part-a-0.txt", "0\t0\t+I\ta\t1", "0\t1\t+I\tb\t7", "1\t0\t+I\tc\t\\N");
        // In-progress and pending files of a failed attempt: never committed, must be ignored.
        write(".part-c-2.txt.inprogress.123", "0\t4\t-D\ta\t2");
        MaterializedTable t = ChangelogMaterializer.materialize(dir);
        assertThat(t.rows()).containsOnlyKeys("a\t2", "b\t7", "c\t\\N");
        assertThat(t.changelogRecords()).isEqualTo(5);
        assertThat(t.fieldRows()).contains(Arrays.asList("c", null));
    }

    @Test
    void duplicatedRecordIsDetected() throws Exception {
        write("part-0.txt", "0\t0\t+I\ta\t1", "0\t1\t+I\tb\t1");
        write("part-1.txt", "0\t1\t+I\tb\t1");
        assertThatThrownBy(() -> ChangelogMaterializer.materialize(dir))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("duplicate");
    }

    @Test
    void lostRecordIsDetected() throws Exception {
        write("part-0.txt", "0\t0\t+I\ta\t1", "0\t2\t+I\tb\t1");
        assertThatThrownBy(() -> ChangelogMaterializer.materialize(dir))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("missing");
    }

    @Test
    void retractionOfAnAbsentRowIsDetected() throws Exception {
        write("part-0.txt", "0\t0\t-U\ta\t1", "0\t1\t+U\ta\t2");
        assertThatThrownBy(() -> ChangelogMaterializer.materialize(dir))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not present");
    }

    @Test
    void fieldsRoundTripThroughEscaping() {
        Row row = Row.ofKind(RowKind.UPDATE_AFTER, "x\ty", null, "back\\slash\nline", 5L);
        String fields = ChangelogLines.fields(row);
        assertThat(fields.split("\t")).hasSize(4);
        List<String> back = ChangelogLines.split(fields);
        assertThat(back).containsExactly("x\ty", null, "back\\slash\nline", "5");
        ChangelogLines.Record r = ChangelogLines.parse(ChangelogLines.line(3, 9, "+U\t" + fields));
        assertThat(r.subtask).isEqualTo(3);
        assertThat(r.seq).isEqualTo(9);
        assertThat(r.kind).isEqualTo("+U");
        assertThat(r.fields).isEqualTo(fields);
    }
}
