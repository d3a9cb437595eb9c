/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.it;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The jobs the ITCases and the demo run on both backends. Their results do not depend on timing
 * (watermark progress, checkpoint timing, parallel interleaving), so stock and Falcon runs can be
 * compared line by line.
 */
public final class StatefulJobs {

    public static final int RECORDS = 10_000;
    public static final int KEYS = 50;
    public static final long TIMER_SPAN = 1_000;

    private StatefulJobs() {}

    /**
     * A keyed job with ValueState (running sum), MapState (count per bucket), ListState (every
     * value) and event-time timers; one line per fired timer and one summary line per key after the
     * input ends. Sorted.
     */
    public static List<String> runKeyedJob(Configuration configuration) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(2, configuration);
        env.enableCheckpointing(200);
        DataStream<String> out =
                env.fromSequence(0, RECORDS - 1)
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Long>forMonotonousTimestamps()
                                        .withTimestampAssigner((value, ts) -> value))
                        .keyBy(value -> value % KEYS, Types.LONG)
                        .process(new StatefulCounter())
                        .uid("stateful-counter");
        List<String> lines = new ArrayList<>();
        try (CloseableIterator<String> it = out.executeAndCollect("keyed job")) {
            it.forEachRemaining(lines::add);
        }
        Collections.sort(lines);
        return lines;
    }

    /** What {@link #runKeyedJob} must return, computed without Flink. */
    public static List<String> expectedKeyedJob() {
        List<String> lines = new ArrayList<>();
        for (long key = 0; key < KEYS; key++) {
            long sum = 0;
            long listSum = 0;
            int listSize = 0;
            Map<Long, Long> buckets = new TreeMap<>();
            TreeSet<Long> timers = new TreeSet<>();
            for (long v = key; v < RECORDS; v += KEYS) {
                sum += v;
                listSum += v;
                listSize++;
                buckets.merge(v % 10, 1L, Long::sum);
                timers.add(timerFor(v));
            }
            for (long t : timers) {
                lines.add("timer " + key + "@" + t);
            }
            lines.add(summary(key, sum, buckets, listSize, listSum, timers.size()));
        }
        Collections.sort(lines);
        return lines;
    }

    static long timerFor(long value) {
        return (value / TIMER_SPAN) * TIMER_SPAN + TIMER_SPAN - 1;
    }

    static String summary(
            long key, long sum, Map<Long, Long> buckets, int listSize, long listSum, long fired) {
        return "key "
                + key
                + " sum="
                + sum
                + " buckets="
                + buckets
                + " list="
                + listSize
                + "/"
                + listSum
                + " timers="
                + fired;
    }

    /** The keyed function of the keyed job and of the savepoint job. */
    public static class StatefulCounter extends KeyedProcessFunction<Long, Long, String> {

        private static final long serialVersionUID = 1L;
        private static final long FINAL_TIMER = Long.MAX_VALUE - 1;

        private transient ValueState<Long> sum;
        private transient MapState<Long, Long> buckets;
        private transient ListState<Long> values;
        private transient ValueState<Long> fired;

        @Override
        public void open(Configuration parameters) {
            sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
            buckets =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>("buckets", Types.LONG, Types.LONG));
            values =
                    getRuntimeContext()
                            .getListState(new ListStateDescriptor<>("values", Types.LONG));
            fired = getRuntimeContext().getState(new ValueStateDescriptor<>("fired", Types.LONG));
        }

        @Override
        public void processElement(Long value, Context ctx, Collector<String> out)
                throws Exception {
            Long current = sum.value();
            sum.update(current == null ? value : current + value);
            Long count = buckets.get(value % 10);
            buckets.put(value % 10, count == null ? 1 : count + 1);
            values.add(value);
            ctx.timerService().registerEventTimeTimer(timerFor(value));
            ctx.timerService().registerEventTimeTimer(FINAL_TIMER);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out)
                throws Exception {
            Long key = ctx.getCurrentKey();
            if (timestamp == FINAL_TIMER) {
                Map<Long, Long> counts = new TreeMap<>();
                for (Map.Entry<Long, Long> e : buckets.entries()) {
                    counts.put(e.getKey(), e.getValue());
                }
                int size = 0;
                long listSum = 0;
                for (Long v : values.get()) {
                    size++;
                    listSum += v;
                }
                Long firedCount = fired.value();
                out.collect(
                        summary(
                                key,
                                sum.value(),
                                counts,
                                size,
                                listSum,
                                firedCount == null ? 0 : firedCount));
            } else {
                Long firedCount = fired.value();
                fired.update(firedCount == null ? 1 : firedCount + 1);
                out.collect("timer " + key + "@" + timestamp);
            }
        }
    }

    /**
     * A SQL job: a regular streaming join of orders with customers, then GROUP BY region. The
     * changelog it emits is folded into the final table, one sorted line per region.
     */
    public static List<String> runSqlJob(Configuration configuration) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(2, configuration);
        env.enableCheckpointing(200);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);

        DataStream<Row> orders =
                env.fromSequence(0, RECORDS - 1)
                        .map(
                                i -> Row.of(i, i % 97, i % 13),
                                Types.ROW(Types.LONG, Types.LONG, Types.LONG));
        DataStream<Row> customers =
                env.fromSequence(0, 96)
                        .map(
                                c -> Row.of(c, "region-" + (c % 5)),
                                Types.ROW(Types.LONG, Types.STRING));
        Table orderTable = tEnv.fromDataStream(orders).as("order_id", "customer_id", "amount");
        Table customerTable = tEnv.fromDataStream(customers).as("id", "region");
        tEnv.createTemporaryView("orders", orderTable);
        tEnv.createTemporaryView("customers", customerTable);

        Map<String, String> table = new TreeMap<>();
        try (CloseableIterator<Row> it =
                tEnv.executeSql(
                                "SELECT c.region, COUNT(*) AS orders, SUM(o.amount) AS total,"
                                        + " COUNT(DISTINCT o.customer_id) AS customers"
                                        + " FROM orders o JOIN customers c ON o.customer_id = c.id"
                                        + " GROUP BY c.region")
                        .collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                String region = String.valueOf(row.getField(0));
                if (row.getKind() == RowKind.INSERT || row.getKind() == RowKind.UPDATE_AFTER) {
                    table.put(
                            region,
                            region
                                    + " orders="
                                    + row.getField(1)
                                    + " total="
                                    + row.getField(2)
                                    + " customers="
                                    + row.getField(3));
                } else {
                    table.remove(region);
                }
            }
        }
        return new ArrayList<>(table.values());
    }

    /** What {@link #runSqlJob} must return, computed without Flink. */
    public static List<String> expectedSqlJob() {
        Map<String, long[]> byRegion = new TreeMap<>();
        Map<String, TreeSet<Long>> customers = new TreeMap<>();
        for (long i = 0; i < RECORDS; i++) {
            long customer = i % 97;
            String region = "region-" + (customer % 5);
            long[] agg = byRegion.computeIfAbsent(region, r -> new long[2]);
            agg[0]++;
            agg[1] += i % 13;
            customers.computeIfAbsent(region, r -> new TreeSet<>()).add(customer);
        }
        List<String> lines = new ArrayList<>();
        byRegion.forEach(
                (region, agg) ->
                        lines.add(
                                region
                                        + " orders="
                                        + agg[0]
                                        + " total="
                                        + agg[1]
                                        + " customers="
                                        + customers.get(region).size()));
        return lines;
    }
}
