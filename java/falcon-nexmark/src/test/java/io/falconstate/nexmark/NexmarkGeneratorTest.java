package io.falconstate.nexmark;

import io.falconstate.nexmark.generator.NexmarkConfig;
import io.falconstate.nexmark.generator.NexmarkEvent;
import io.falconstate.nexmark.generator.NexmarkGenerator;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class NexmarkGeneratorTest {
    private static final NexmarkConfig CONFIG =
            new NexmarkConfig()
                    .withEventsNum(50_000)
                    .withSeed(7)
                    .withEventTimeRate(1000)
                    .withOutOfOrderGroupSize(50);

    @Test
    void sameSeedGivesSameEventsAndOtherSeedOtherEvents() {
        NexmarkGenerator a = new NexmarkGenerator(CONFIG);
        NexmarkGenerator b = new NexmarkGenerator(CONFIG);
        NexmarkGenerator c = new NexmarkGenerator(CONFIG.withSeed(8));
        int differing = 0;
        for (long n = 0; n < 5_000; n++) {
            assertThat(a.generate(n).toString()).isEqualTo(b.generate(n).toString());
            NexmarkEvent e = a.generate(n);
            if (e.type == NexmarkEvent.BID && e.bid.price != c.generate(n).bid.price) {
                differing++;
            }
        }
        assertThat(differing).isGreaterThan(4_000);
    }

    @Test
    void proportionsAreOneToThreeToFortySixAndIdsAreDense() {
        NexmarkGenerator g = new NexmarkGenerator(CONFIG);
        int[] counts = new int[3];
        long nextPerson = NexmarkGenerator.FIRST_PERSON_ID;
        long nextAuction = NexmarkGenerator.FIRST_AUCTION_ID;
        for (long n = 0; n < 50_000; n++) {
            NexmarkEvent e = g.generate(n);
            counts[e.type]++;
            if (e.type == NexmarkEvent.PERSON) {
                assertThat(e.person.id).isEqualTo(nextPerson++);
            } else if (e.type == NexmarkEvent.AUCTION) {
                assertThat(e.auction.id).isEqualTo(nextAuction++);
                assertThat(e.auction.category).isBetween(10L, 14L);
                assertThat(e.auction.expires).isGreaterThan(e.auction.dateTime);
                assertThat(e.auction.reserve).isGreaterThan(e.auction.initialBid);
                assertThat(e.auction.seller).isLessThan(nextPerson);
            } else {
                assertThat(e.bid.price).isBetween(100L, 100_000_000L);
                assertThat(e.bid.auction)
                        .isLessThan(nextAuction + NexmarkGenerator.AUCTION_ID_LEAD);
            }
        }
        assertThat(counts).containsExactly(1_000, 3_000, 46_000);
    }

    @Test
    void bidsConcentrateOnHotAuctionsAndBidders() {
        NexmarkGenerator g = new NexmarkGenerator(CONFIG);
        Map<Long, Integer> perAuction = new HashMap<>();
        Map<Long, Integer> perBidder = new HashMap<>();
        int bids = 0;
        for (long n = 0; n < 50_000; n++) {
            NexmarkEvent e = g.generate(n);
            if (e.type == NexmarkEvent.BID) {
                bids++;
                perAuction.merge(e.bid.auction, 1, Integer::sum);
                perBidder.merge(e.bid.bidder, 1, Integer::sum);
            }
        }
        // Half of the bids go to the batch leaders (every 100th auction).
        int onLeaders = 0;
        for (Map.Entry<Long, Integer> en : perAuction.entrySet()) {
            if ((en.getKey() - NexmarkGenerator.FIRST_AUCTION_ID) % 100 == 0) {
                onLeaders += en.getValue();
            }
        }
        assertThat((double) onLeaders / bids).isBetween(0.45, 0.6);
        // Three quarters come from hot bidders: the few batch leaders (+1) of the 1000 persons.
        int fromHot = 0;
        for (Map.Entry<Long, Integer> en : perBidder.entrySet()) {
            if ((en.getKey() - NexmarkGenerator.FIRST_PERSON_ID) % 100 == 1) {
                fromHot += en.getValue();
            }
        }
        assertThat((double) fromHot / bids).isBetween(0.7, 0.8);
    }

    @Test
    void eventTimeIsMonotonicUpToTheOutOfOrderBound() {
        NexmarkGenerator g = new NexmarkGenerator(CONFIG);
        long bound = CONFIG.maxOutOfOrdernessMillis();
        assertThat(bound).isEqualTo(50);
        long maxSeen = Long.MIN_VALUE;
        long worstLag = 0;
        Set<Long> distinct = new HashSet<>();
        for (long n = 0; n < 50_000; n++) {
            long ts = g.timestampOf(n);
            distinct.add(ts);
            maxSeen = Math.max(maxSeen, ts);
            worstLag = Math.max(worstLag, maxSeen - ts);
            // Within bound of the in-order clock.
            long inOrder = CONFIG.baseTimeMillis() + n * 1000 / CONFIG.eventTimeRate();
            assertThat(Math.abs(ts - inOrder)).isLessThanOrEqualTo(bound);
        }
        assertThat(worstLag).isPositive().isLessThanOrEqualTo(bound);
        assertThat(maxSeen - CONFIG.baseTimeMillis()).isEqualTo(49_999);
        assertThat(distinct).hasSize(50_000);
    }
}
