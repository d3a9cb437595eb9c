package io.falconstate.nexmark;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NexmarkQueriesFileTest {
    @Test
    void everyBundledQueryEndsWithOneSelect() throws Exception {
        for (String q : NexmarkQueries.ALL) {
            List<String> statements = NexmarkQueries.statements(NexmarkQueries.text(q));
            assertThat(statements.get(statements.size() - 1))
                    .as(q)
                    .startsWithIgnoringCase("SELECT");
        }
    }

    @Test
    void splitsStatementsAndDropsCommentsButNotQuotedText() {
        List<String> s =
                NexmarkQueries.statements(
                        "-- header; with a semicolon\nCREATE TEMPORARY VIEW v AS SELECT 'a;--b' AS x;\n"
                                + "SELECT * FROM v -- trailing\n;\n");
        assertThat(s)
                .containsExactly(
                        "CREATE TEMPORARY VIEW v AS SELECT 'a;--b' AS x", "SELECT * FROM v");
    }

    @Test
    void unknownQueryIsRejected() {
        assertThatThrownBy(() -> NexmarkQueries.text("q99"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("q99");
    }
}
