package io.falconstate.nexmark.sink;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

import java.util.Collections;

/**
 * Runs right before the file sink, after the changelog was keyed by row content, and prefixes each
 * {@code kind TAB fields} line with {@code subtask TAB seq}: a per-subtask sequence number that is
 * checkpointed, so after a restore it continues from the checkpoint's value. The committed output
 * of subtask {@code s} is then exactly the records {@code 0 .. n-1} of {@code s}: a gap means a
 * lost record, a repeated number a duplicate, and sorting by {@code (subtask, seq)} restores the
 * order in which each row's changes were produced (see {@link ChangelogMaterializer}).
 *
 * <p>Restores at the same parallelism only (the sequence is per subtask index).
 */
public final class SequenceStamper extends RichMapFunction<String, String>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    private transient ListState<Tuple2<Integer, Long>> state;
    private transient int subtask;
    private transient long next;

    @Override
    public String map(String kindAndFields) {
        return ChangelogLines.line(subtask, next++, kindAndFields);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        state.update(Collections.singletonList(Tuple2.of(subtask, next)));
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        subtask = getRuntimeContext().getIndexOfThisSubtask();
        state =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "nexmark-result-seq", Types.TUPLE(Types.INT, Types.LONG)));
        next = 0;
        if (context.isRestored()) {
            for (Tuple2<Integer, Long> t : state.get()) {
                if (t.f0 == subtask) {
                    next = t.f1;
                }
            }
        }
    }
}
