package io.falconstate.nexmark.generator;

import java.util.SplittableRandom;

/**
 * The Nexmark event model as a pure function of the event number (docs/nexmark.md).
 *
 * <p>Event {@code n} is derived only from the configuration and {@code n}: its kind from {@code n}
 * modulo the proportion block (1:3:46 by default), its ids from how many persons and auctions
 * precede it, its event time from the event-time rate (permuted inside small groups for a bounded
 * out-of-orderness) and its remaining fields from a random stream seeded by {@code (seed, n)}. That
 * makes the event sequence independent of parallelism, split layout and restarts, and lets a
 * checkpoint store a split's position as a single number.
 *
 * <p>Not thread-safe only in the sense that it holds no state: instances are immutable and may be
 * shared.
 */
public final class NexmarkGenerator implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    /** Nexmark's id bases: the first person and auction ids and the first category id. */
    public static final long FIRST_PERSON_ID = 1000L;

    public static final long FIRST_AUCTION_ID = 1000L;
    public static final long FIRST_CATEGORY_ID = 10L;

    /** Hot auctions, sellers and bidders are the leaders of batches of this many ids. */
    public static final int HOT_BATCH = 100;

    /** Bids may name auctions up to this many ids ahead of the newest (they arrive before it). */
    public static final int AUCTION_ID_LEAD = 10;

    private static final String[] FIRST_NAMES = {
        "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter",
        "Walter"
    };
    private static final String[] LAST_NAMES = {
        "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
    };
    private static final String[] US_STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    private static final String[] US_CITIES = {
        "Phoenix",
        "Los Angeles",
        "San Francisco",
        "Boise",
        "Portland",
        "Bend",
        "Redmond",
        "Seattle",
        "Kent",
        "Cheyenne"
    };
    private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
    private static final int CHANNELS = 10_000;

    private final NexmarkConfig config;
    private final long block;
    private final long persons;
    private final long auctions;

    public NexmarkGenerator(NexmarkConfig config) {
        this.config = config;
        this.block = config.totalProportion();
        this.persons = config.personProportion();
        this.auctions = config.auctionProportion();
    }

    public NexmarkConfig config() {
        return config;
    }

    /** The kind of event {@code n}: {@link NexmarkEvent#PERSON}, AUCTION or BID. */
    public int typeOf(long n) {
        long offset = n % block;
        if (offset < persons) {
            return NexmarkEvent.PERSON;
        }
        return offset < persons + auctions ? NexmarkEvent.AUCTION : NexmarkEvent.BID;
    }

    /** 0-based index of the newest person created at or before event {@code n}. */
    long lastPersonIndex(long n) {
        long epoch = n / block;
        long offset = n % block;
        return epoch * persons + Math.min(offset + 1, persons) - 1;
    }

    /** 0-based index of the newest auction created at or before event {@code n}; -1 if none. */
    long lastAuctionIndex(long n) {
        long epoch = n / block;
        long offset = n % block;
        return epoch * auctions + Math.max(0, Math.min(offset + 1 - persons, auctions)) - 1;
    }

    /**
     * Event time of event {@code n}: the base time plus the event's position (permuted inside its
     * out-of-order group) divided by the event-time rate.
     */
    public long timestampOf(long n) {
        int g = config.outOfOrderGroupSize();
        long position = n;
        if (g > 1) {
            long group = n / g;
            long start = group * g;
            long size = Math.min(g, config.eventsNum() - start);
            if (size > 1) {
                long pos = n - start;
                long stride = strideFor(size);
                long rotation = Math.floorMod(mix(config.seed() ^ 0x5DEECE66DL, group), size);
                position = start + (pos * stride + rotation) % size;
            }
        }
        return config.baseTimeMillis() + Math.floorDiv(position * 1000L, config.eventTimeRate());
    }

    private static long strideFor(long size) {
        for (long s : new long[] {7, 11, 13, 17}) {
            if (size % s != 0) {
                return s % size == 0 ? 1 : s;
            }
        }
        return 1;
    }

    /** Average auction duration in events: how long it takes for the in-flight set to turn over. */
    private long auctionLengthEvents() {
        return Math.max(1, (long) config.numInFlightAuctions() * block / auctions);
    }

    /** Generates event {@code n} (0-based). */
    public NexmarkEvent generate(long n) {
        NexmarkEvent e = new NexmarkEvent();
        e.eventNumber = n;
        e.type = typeOf(n);
        e.timestamp = timestampOf(n);
        SplittableRandom rnd = new SplittableRandom(mix(config.seed(), n));
        switch (e.type) {
            case NexmarkEvent.PERSON:
                e.person = person(n, e.timestamp, rnd);
                break;
            case NexmarkEvent.AUCTION:
                e.auction = auction(n, e.timestamp, rnd);
                break;
            default:
                e.bid = bid(n, e.timestamp, rnd);
        }
        return e;
    }

    private Person person(long n, long timestamp, SplittableRandom rnd) {
        Person p = new Person();
        p.id = FIRST_PERSON_ID + lastPersonIndex(n);
        p.name =
                FIRST_NAMES[rnd.nextInt(FIRST_NAMES.length)]
                        + " "
                        + LAST_NAMES[rnd.nextInt(LAST_NAMES.length)];
        p.emailAddress = letters(rnd, 7) + "@" + letters(rnd, 5) + ".com";
        p.creditCard =
                digits(rnd, 4) + " " + digits(rnd, 4) + " " + digits(rnd, 4) + " " + digits(rnd, 4);
        p.city = US_CITIES[rnd.nextInt(US_CITIES.length)];
        p.state = US_STATES[rnd.nextInt(US_STATES.length)];
        p.dateTime = timestamp;
        int used =
                p.name.length()
                        + p.emailAddress.length()
                        + p.creditCard.length()
                        + p.city.length()
                        + p.state.length()
                        + 16;
        p.extra = extra(rnd, config.avgPersonByteSize(), used);
        return p;
    }

    private Auction auction(long n, long timestamp, SplittableRandom rnd) {
        Auction a = new Auction();
        long index = lastAuctionIndex(n);
        a.id = FIRST_AUCTION_ID + index;
        a.itemName = letters(rnd, 20);
        a.description = letters(rnd, 100);
        a.initialBid = price(rnd);
        a.reserve = a.initialBid + price(rnd);
        a.dateTime = timestamp;
        // The auction stays open for a random length averaging the in-flight turnover time.
        long meanMillis = auctionLengthEvents() * 1000L / config.eventTimeRate();
        a.expires = timestamp + 1 + (meanMillis > 0 ? rnd.nextLong(2 * meanMillis) : 0);
        long lastPerson = lastPersonIndex(n);
        long seller;
        if (rnd.nextInt(config.hotSellersRatio()) > 0) {
            seller = (lastPerson / HOT_BATCH) * HOT_BATCH;
        } else {
            seller = activePerson(lastPerson, rnd);
        }
        a.seller = FIRST_PERSON_ID + seller;
        a.category = FIRST_CATEGORY_ID + rnd.nextInt(config.numCategories());
        int used = a.itemName.length() + a.description.length() + 56;
        a.extra = extra(rnd, config.avgAuctionByteSize(), used);
        return a;
    }

    private Bid bid(long n, long timestamp, SplittableRandom rnd) {
        Bid b = new Bid();
        long lastAuction = Math.max(0, lastAuctionIndex(n));
        long auction;
        if (rnd.nextInt(config.hotAuctionRatio()) > 0) {
            auction = (lastAuction / HOT_BATCH) * HOT_BATCH;
        } else {
            long min = Math.max(0, lastAuction - config.numInFlightAuctions() + 1);
            auction = min + rnd.nextLong(lastAuction - min + 1 + AUCTION_ID_LEAD);
        }
        b.auction = FIRST_AUCTION_ID + auction;
        long lastPerson = lastPersonIndex(n);
        long bidder;
        if (rnd.nextInt(config.hotBiddersRatio()) > 0) {
            bidder = (lastPerson / HOT_BATCH) * HOT_BATCH + 1;
        } else {
            bidder = activePerson(lastPerson, rnd);
        }
        b.bidder = FIRST_PERSON_ID + bidder;
        b.price = price(rnd);
        int channel = rnd.nextInt(CHANNELS);
        if (rnd.nextInt(10) > 0) {
            b.channel = HOT_CHANNELS[channel % HOT_CHANNELS.length];
            b.url = "https://www.nexmark.com/" + letters(rnd, 5) + "/item.htm?query=1";
        } else {
            b.channel = "channel-" + channel;
            b.url =
                    "https://www.nexmark.com/"
                            + letters(rnd, 5)
                            + "/item.htm?query=1&channel_id="
                            + channel;
        }
        b.dateTime = timestamp;
        int used = b.channel.length() + b.url.length() + 32;
        b.extra = extra(rnd, config.avgBidByteSize(), used);
        return b;
    }

    /** A person among the most recent {@code numActivePeople} ones (0-based index). */
    private long activePerson(long lastPerson, SplittableRandom rnd) {
        long active = Math.min(lastPerson + 1, config.numActivePeople());
        return lastPerson + 1 - active + rnd.nextLong(active);
    }

    /** Log-uniform price in cents between 1.00 and 1,000,000.00 (Nexmark's price model). */
    private static long price(SplittableRandom rnd) {
        return Math.round(Math.pow(10.0, rnd.nextDouble() * 6.0) * 100.0);
    }

    /** Padding that brings the event to {@code avg} bytes on average. */
    private static String extra(SplittableRandom rnd, int avg, int used) {
        int mean = avg - used;
        if (mean <= 0) {
            return "";
        }
        return letters(rnd, mean / 2 + rnd.nextInt(mean + 1));
    }

    private static String letters(SplittableRandom rnd, int length) {
        char[] chars = new char[length];
        long bits = 0;
        int left = 0;
        for (int i = 0; i < length; i++) {
            if (left == 0) {
                bits = rnd.nextLong();
                left = 12;
            }
            chars[i] = (char) ('a' + (int) ((bits & 0x1F) % 26));
            bits >>>= 5;
            left--;
        }
        return new String(chars);
    }

    private static String digits(SplittableRandom rnd, int length) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = (char) ('0' + rnd.nextInt(10));
        }
        return new String(chars);
    }

    /** SplitMix64-style mixing of the seed and the event number into one stream seed. */
    static long mix(long seed, long n) {
        long z = seed * 0x9E3779B97F4A7C15L + n + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
