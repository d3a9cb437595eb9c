package io.falconstate.nexmark.table;

import io.falconstate.nexmark.generator.NexmarkConfig;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;

/** The {@code 'connector' = 'nexmark'} table options (docs/nexmark.md lists them all). */
public final class NexmarkOptions {
    private NexmarkOptions() {}

    private static final NexmarkConfig D = new NexmarkConfig();

    public static final ConfigOption<Long> EVENTS_NUM =
            ConfigOptions.key("events.num")
                    .longType()
                    .defaultValue(D.eventsNum())
                    .withDescription(
                            "Number of events (persons + auctions + bids) the bounded source emits.");

    public static final ConfigOption<Long> SEED =
            ConfigOptions.key("seed")
                    .longType()
                    .defaultValue(D.seed())
                    .withDescription(
                            "Seed of the generator; with events.num it fixes every event.");

    public static final ConfigOption<Long> RATE_LIMIT =
            ConfigOptions.key("rate.limit")
                    .longType()
                    .defaultValue(0L)
                    .withDescription(
                            "Wall-clock cap on events per second for the whole source; 0 = none.");

    public static final ConfigOption<Long> EVENT_TIME_RATE =
            ConfigOptions.key("event-time.rate")
                    .longType()
                    .defaultValue(D.eventTimeRate())
                    .withDescription(
                            "Events per second of event time (Nexmark's first-event.rate).");

    public static final ConfigOption<Long> BASE_TIME =
            ConfigOptions.key("base-time.ms")
                    .longType()
                    .defaultValue(D.baseTimeMillis())
                    .withDescription("Event time of event 0, epoch milliseconds.");

    public static final ConfigOption<Integer> PERSON_PROPORTION =
            ConfigOptions.key("person.proportion")
                    .intType()
                    .defaultValue(D.personProportion())
                    .withDescription("Persons per block of person+auction+bid proportion events.");

    public static final ConfigOption<Integer> AUCTION_PROPORTION =
            ConfigOptions.key("auction.proportion")
                    .intType()
                    .defaultValue(D.auctionProportion())
                    .withDescription("Auctions per block of events.");

    public static final ConfigOption<Integer> BID_PROPORTION =
            ConfigOptions.key("bid.proportion")
                    .intType()
                    .defaultValue(D.bidProportion())
                    .withDescription("Bids per block of events.");

    public static final ConfigOption<Integer> OUT_OF_ORDER_GROUP =
            ConfigOptions.key("out-of-order.group-size")
                    .intType()
                    .defaultValue(D.outOfOrderGroupSize())
                    .withDescription("Event times are permuted inside groups of this many events.");

    public static final ConfigOption<Integer> HOT_AUCTION_RATIO =
            ConfigOptions.key("hot-auction.ratio")
                    .intType()
                    .defaultValue(D.hotAuctionRatio())
                    .withDescription("(ratio-1)/ratio of bids go to the current hot auction.");

    public static final ConfigOption<Integer> HOT_SELLER_RATIO =
            ConfigOptions.key("hot-seller.ratio")
                    .intType()
                    .defaultValue(D.hotSellersRatio())
                    .withDescription(
                            "(ratio-1)/ratio of auctions are opened by the current hot seller.");

    public static final ConfigOption<Integer> HOT_BIDDER_RATIO =
            ConfigOptions.key("hot-bidder.ratio")
                    .intType()
                    .defaultValue(D.hotBiddersRatio())
                    .withDescription("(ratio-1)/ratio of bids come from the current hot bidder.");

    public static final ConfigOption<Integer> NUM_CATEGORIES =
            ConfigOptions.key("num-categories")
                    .intType()
                    .defaultValue(D.numCategories())
                    .withDescription("Number of auction categories (ids 10, 11, ...).");

    public static final ConfigOption<Integer> IN_FLIGHT_AUCTIONS =
            ConfigOptions.key("num-in-flight-auctions")
                    .intType()
                    .defaultValue(D.numInFlightAuctions())
                    .withDescription(
                            "Auctions open at a time; sets auction lengths and the bid spread.");

    public static final ConfigOption<Integer> ACTIVE_PEOPLE =
            ConfigOptions.key("num-active-people")
                    .intType()
                    .defaultValue(D.numActivePeople())
                    .withDescription(
                            "Non-hot sellers and bidders are drawn from this many newest persons.");

    public static final ConfigOption<Integer> SPLITS =
            ConfigOptions.key("splits")
                    .intType()
                    .defaultValue(0)
                    .withDescription(
                            "Number of source splits; 0 = the source parallelism at first start.");

    public static final ConfigOption<Integer> END_AFTER_CHECKPOINTS =
            ConfigOptions.key("end.after-checkpoints")
                    .intType()
                    .defaultValue(0)
                    .withDescription(
                            "Each reader holds back its end of input, after its last event, until"
                                    + " it has seen this many completed checkpoints.");

    public static final ConfigOption<Long> FAILURE_AFTER_EVENTS =
            ConfigOptions.key("failure.after-events")
                    .longType()
                    .noDefaultValue()
                    .withDescription(
                            "Test only: one reader throws once after this many events (and a"
                                    + " completed checkpoint) unless failure.marker exists; it creates the marker.");

    public static final ConfigOption<String> FAILURE_MARKER =
            ConfigOptions.key("failure.marker")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Test only: marker file of failure.after-events.");

    /** The generator configuration the options describe. */
    public static NexmarkConfig toConfig(ReadableConfig o) {
        return new NexmarkConfig()
                .withEventsNum(o.get(EVENTS_NUM))
                .withSeed(o.get(SEED))
                .withEventTimeRate(o.get(EVENT_TIME_RATE))
                .withBaseTimeMillis(o.get(BASE_TIME))
                .withProportions(
                        o.get(PERSON_PROPORTION), o.get(AUCTION_PROPORTION), o.get(BID_PROPORTION))
                .withOutOfOrderGroupSize(o.get(OUT_OF_ORDER_GROUP))
                .withHotAuctionRatio(o.get(HOT_AUCTION_RATIO))
                .withHotSellersRatio(o.get(HOT_SELLER_RATIO))
                .withHotBiddersRatio(o.get(HOT_BIDDER_RATIO))
                .withNumCategories(o.get(NUM_CATEGORIES))
                .withNumInFlightAuctions(o.get(IN_FLIGHT_AUCTIONS))
                .withNumActivePeople(o.get(ACTIVE_PEOPLE));
    }
}
