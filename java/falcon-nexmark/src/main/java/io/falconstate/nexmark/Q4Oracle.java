package io.falconstate.nexmark;

import io.falconstate.nexmark.generator.NexmarkConfig;
import io.falconstate.nexmark.generator.NexmarkEvent;
import io.falconstate.nexmark.generator.NexmarkGenerator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The exact final result of Nexmark q4 computed straight from the generator, without Flink: per
 * auction the highest bid placed between the auction's start and its expiry (both inclusive, as
 * SQL's BETWEEN), then per category the average of those maxima (BIGINT AVG truncates toward zero).
 * Rows come in the materialized form ({@code category TAB avg_final} → multiplicity 1), so they
 * compare directly with {@link io.falconstate.nexmark.sink.MaterializedTable#rows()}.
 *
 * <p>Independent of the SQL on purpose: the unit tests and the real-cluster e2e check ({@link
 * NexmarkResultCheck}) compare q4's committed output with it, so a query run that loses or
 * duplicates a record (which would change a maximum or an average) fails.
 */
public final class Q4Oracle {
    private Q4Oracle() {}

    /** q4's rows for the events {@code 0 .. config.eventsNum()-1} of {@code config}. */
    public static SortedMap<String, Long> rows(NexmarkConfig config) {
        NexmarkGenerator g = new NexmarkGenerator(config);
        // A bid may come before its auction in event order (out-of-order groups), so both sides are
        // collected first and joined afterwards, as the regular join's state does.
        Map<Long, long[]> auctions = new HashMap<>(); // id -> {category, dateTime, expires}
        List<long[]> bids = new ArrayList<>(); // {auction, price, dateTime}
        for (long n = 0; n < config.eventsNum(); n++) {
            NexmarkEvent e = g.generate(n);
            if (e.type == NexmarkEvent.AUCTION) {
                auctions.put(
                        e.auction.id,
                        new long[] {e.auction.category, e.auction.dateTime, e.auction.expires});
            } else if (e.type == NexmarkEvent.BID) {
                bids.add(new long[] {e.bid.auction, e.bid.price, e.bid.dateTime});
            }
        }
        Map<Long, Long> maxPerAuction = new HashMap<>();
        for (long[] b : bids) {
            long[] a = auctions.get(b[0]);
            if (a != null && b[2] >= a[1] && b[2] <= a[2]) {
                maxPerAuction.merge(b[0], b[1], Math::max);
            }
        }
        Map<Long, long[]> perCategory = new TreeMap<>(); // category -> {sum of maxima, auctions}
        for (Map.Entry<Long, Long> m : maxPerAuction.entrySet()) {
            long[] acc = perCategory.computeIfAbsent(auctions.get(m.getKey())[0], k -> new long[2]);
            acc[0] += m.getValue();
            acc[1]++;
        }
        SortedMap<String, Long> rows = new TreeMap<>();
        for (Map.Entry<Long, long[]> c : perCategory.entrySet()) {
            rows.put(c.getKey() + "\t" + (c.getValue()[0] / c.getValue()[1]), 1L);
        }
        return rows;
    }
}
