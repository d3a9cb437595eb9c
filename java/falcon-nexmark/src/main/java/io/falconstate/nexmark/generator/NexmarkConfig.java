package io.falconstate.nexmark.generator;

import java.io.Serializable;
import java.util.Objects;

/**
 * The knobs of the Nexmark event model (docs/nexmark.md). Immutable after construction through the
 * fluent {@code with*} copies; serializable because it travels inside the Flink source.
 *
 * <p>Together with the event number, {@link #seed()} and the model knobs fully determine every
 * event: the same configuration gives the same events regardless of parallelism, split layout,
 * restarts or wall-clock time.
 */
public final class NexmarkConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    /** 2026-01-01T00:00:00Z: the event time of event 0 unless configured otherwise. */
    public static final long DEFAULT_BASE_TIME_MILLIS = 1767225600000L;

    private long eventsNum = 10_000_000L;
    private long seed = 42L;
    private int personProportion = 1;
    private int auctionProportion = 3;
    private int bidProportion = 46;
    private long eventTimeRate = 10_000_000L;
    private long baseTimeMillis = DEFAULT_BASE_TIME_MILLIS;
    private int outOfOrderGroupSize = 8;
    private int hotAuctionRatio = 2;
    private int hotSellersRatio = 4;
    private int hotBiddersRatio = 4;
    private int numCategories = 5;
    private int numInFlightAuctions = 100;
    private int numActivePeople = 1000;
    private int avgPersonByteSize = 200;
    private int avgAuctionByteSize = 500;
    private int avgBidByteSize = 100;

    public NexmarkConfig() {}

    private NexmarkConfig copy() {
        NexmarkConfig c = new NexmarkConfig();
        c.eventsNum = eventsNum;
        c.seed = seed;
        c.personProportion = personProportion;
        c.auctionProportion = auctionProportion;
        c.bidProportion = bidProportion;
        c.eventTimeRate = eventTimeRate;
        c.baseTimeMillis = baseTimeMillis;
        c.outOfOrderGroupSize = outOfOrderGroupSize;
        c.hotAuctionRatio = hotAuctionRatio;
        c.hotSellersRatio = hotSellersRatio;
        c.hotBiddersRatio = hotBiddersRatio;
        c.numCategories = numCategories;
        c.numInFlightAuctions = numInFlightAuctions;
        c.numActivePeople = numActivePeople;
        c.avgPersonByteSize = avgPersonByteSize;
        c.avgAuctionByteSize = avgAuctionByteSize;
        c.avgBidByteSize = avgBidByteSize;
        return c;
    }

    private static long positive(String name, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, got " + v);
        }
        return v;
    }

    private static long nonNegative(String name, long v) {
        if (v < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, got " + v);
        }
        return v;
    }

    /** Total number of events (persons + auctions + bids) the source emits. */
    public NexmarkConfig withEventsNum(long v) {
        NexmarkConfig c = copy();
        c.eventsNum = nonNegative("events.num", v);
        return c;
    }

    public NexmarkConfig withSeed(long v) {
        NexmarkConfig c = copy();
        c.seed = v;
        return c;
    }

    /** Events of each kind in every block of {@code person + auction + bid} consecutive events. */
    public NexmarkConfig withProportions(int person, int auction, int bid) {
        NexmarkConfig c = copy();
        c.personProportion = (int) positive("person.proportion", person);
        c.auctionProportion = (int) positive("auction.proportion", auction);
        c.bidProportion = (int) positive("bid.proportion", bid);
        return c;
    }

    /** Event-time speed: events per second of event time (Nexmark's first/next-event.rate). */
    public NexmarkConfig withEventTimeRate(long v) {
        NexmarkConfig c = copy();
        c.eventTimeRate = positive("event-time.rate", v);
        return c;
    }

    public NexmarkConfig withBaseTimeMillis(long v) {
        NexmarkConfig c = copy();
        c.baseTimeMillis = v;
        return c;
    }

    /**
     * Event times are permuted inside consecutive groups of this many events; 1 means strictly
     * monotonic. The out-of-orderness is bounded by one group's span of event time.
     */
    public NexmarkConfig withOutOfOrderGroupSize(int v) {
        NexmarkConfig c = copy();
        c.outOfOrderGroupSize = (int) positive("out-of-order.group-size", v);
        return c;
    }

    /** 1 in {@code ratio} bids goes to a random in-flight auction, the rest to the hot one. */
    public NexmarkConfig withHotAuctionRatio(int v) {
        NexmarkConfig c = copy();
        c.hotAuctionRatio = (int) positive("hot-auction.ratio", v);
        return c;
    }

    public NexmarkConfig withHotSellersRatio(int v) {
        NexmarkConfig c = copy();
        c.hotSellersRatio = (int) positive("hot-seller.ratio", v);
        return c;
    }

    public NexmarkConfig withHotBiddersRatio(int v) {
        NexmarkConfig c = copy();
        c.hotBiddersRatio = (int) positive("hot-bidder.ratio", v);
        return c;
    }

    public NexmarkConfig withNumCategories(int v) {
        NexmarkConfig c = copy();
        c.numCategories = (int) positive("num-categories", v);
        return c;
    }

    public NexmarkConfig withNumInFlightAuctions(int v) {
        NexmarkConfig c = copy();
        c.numInFlightAuctions = (int) positive("num-in-flight-auctions", v);
        return c;
    }

    public NexmarkConfig withNumActivePeople(int v) {
        NexmarkConfig c = copy();
        c.numActivePeople = (int) positive("num-active-people", v);
        return c;
    }

    public NexmarkConfig withAvgByteSizes(int person, int auction, int bid) {
        NexmarkConfig c = copy();
        c.avgPersonByteSize = (int) positive("person.avg-size", person);
        c.avgAuctionByteSize = (int) positive("auction.avg-size", auction);
        c.avgBidByteSize = (int) positive("bid.avg-size", bid);
        return c;
    }

    public long eventsNum() {
        return eventsNum;
    }

    public long seed() {
        return seed;
    }

    public int personProportion() {
        return personProportion;
    }

    public int auctionProportion() {
        return auctionProportion;
    }

    public int bidProportion() {
        return bidProportion;
    }

    public int totalProportion() {
        return personProportion + auctionProportion + bidProportion;
    }

    public long eventTimeRate() {
        return eventTimeRate;
    }

    public long baseTimeMillis() {
        return baseTimeMillis;
    }

    public int outOfOrderGroupSize() {
        return outOfOrderGroupSize;
    }

    public int hotAuctionRatio() {
        return hotAuctionRatio;
    }

    public int hotSellersRatio() {
        return hotSellersRatio;
    }

    public int hotBiddersRatio() {
        return hotBiddersRatio;
    }

    public int numCategories() {
        return numCategories;
    }

    public int numInFlightAuctions() {
        return numInFlightAuctions;
    }

    public int numActivePeople() {
        return numActivePeople;
    }

    public int avgPersonByteSize() {
        return avgPersonByteSize;
    }

    public int avgAuctionByteSize() {
        return avgAuctionByteSize;
    }

    public int avgBidByteSize() {
        return avgBidByteSize;
    }

    /**
     * Upper bound, in milliseconds of event time, of how far an event's time can lie behind the
     * largest event time emitted before it by the same source reader.
     */
    public long maxOutOfOrdernessMillis() {
        return (outOfOrderGroupSize * 1000L + eventTimeRate - 1) / eventTimeRate;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof NexmarkConfig)) {
            return false;
        }
        return toString().equals(o.toString());
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(toString());
    }

    @Override
    public String toString() {
        return "NexmarkConfig{eventsNum="
                + eventsNum
                + ", seed="
                + seed
                + ", proportions="
                + personProportion
                + ":"
                + auctionProportion
                + ":"
                + bidProportion
                + ", eventTimeRate="
                + eventTimeRate
                + ", baseTimeMillis="
                + baseTimeMillis
                + ", outOfOrderGroupSize="
                + outOfOrderGroupSize
                + ", hotRatios(auction/seller/bidder)="
                + hotAuctionRatio
                + "/"
                + hotSellersRatio
                + "/"
                + hotBiddersRatio
                + ", numCategories="
                + numCategories
                + ", numInFlightAuctions="
                + numInFlightAuctions
                + ", numActivePeople="
                + numActivePeople
                + ", avgSizes="
                + avgPersonByteSize
                + "/"
                + avgAuctionByteSize
                + "/"
                + avgBidByteSize
                + "}";
    }
}
