package io.falconstate.nexmark.table;

import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The Nexmark SQL schema: the {@code datagen} table (one row per event with the person, auction and
 * bid as nested rows, a computed event-time column and Nexmark's 4-second watermark) and the {@code
 * person}, {@code auction}, {@code bid} views over it.
 */
public final class NexmarkSchema {
    private NexmarkSchema() {}

    public static final String PERSON_ROW =
            "ROW<`id` BIGINT, `name` VARCHAR, `emailAddress` VARCHAR,"
                    + " `creditCard` VARCHAR, `city` VARCHAR, `state` VARCHAR, `dateTime` TIMESTAMP(3),"
                    + " `extra` VARCHAR>";

    public static final String AUCTION_ROW =
            "ROW<`id` BIGINT, `itemName` VARCHAR,"
                    + " `description` VARCHAR, `initialBid` BIGINT, `reserve` BIGINT, `dateTime` TIMESTAMP(3),"
                    + " `expires` TIMESTAMP(3), `seller` BIGINT, `category` BIGINT, `extra` VARCHAR>";

    public static final String BID_ROW =
            "ROW<`auction` BIGINT, `bidder` BIGINT, `price` BIGINT,"
                    + " `channel` VARCHAR, `url` VARCHAR, `dateTime` TIMESTAMP(3), `extra` VARCHAR>";

    static final List<String> TOP_FIELDS = Arrays.asList("event_type", "person", "auction", "bid");
    static final int[] NESTED_ARITY = {0, 8, 10, 7};

    /** {@code CREATE TEMPORARY TABLE <name> (...) WITH ('connector' = 'nexmark', <options>)}. */
    public static String createTable(String name, Map<String, String> options) {
        StringBuilder sb = new StringBuilder();
        sb.append("CREATE TEMPORARY TABLE `")
                .append(name)
                .append("` (\n")
                .append("  `event_type` INT,\n")
                .append("  `person` ")
                .append(PERSON_ROW)
                .append(",\n")
                .append("  `auction` ")
                .append(AUCTION_ROW)
                .append(",\n")
                .append("  `bid` ")
                .append(BID_ROW)
                .append(",\n")
                .append("  `dateTime` AS CASE WHEN `event_type` = 0 THEN `person`.`dateTime`\n")
                .append("                     WHEN `event_type` = 1 THEN `auction`.`dateTime`\n")
                .append("                     ELSE `bid`.`dateTime` END,\n")
                .append("  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND\n")
                .append(") WITH (\n  'connector' = 'nexmark'");
        for (Map.Entry<String, String> e : options.entrySet()) {
            sb.append(",\n  '")
                    .append(e.getKey().replace("'", "''"))
                    .append("' = '")
                    .append(e.getValue().replace("'", "''"))
                    .append('\'');
        }
        return sb.append("\n)").toString();
    }

    /** The three Nexmark views over the table; {@code dateTime} is their event-time attribute. */
    public static List<String> createViews(String table) {
        String t = "`" + table + "`";
        return Arrays.asList(
                "CREATE TEMPORARY VIEW person AS SELECT person.id, person.name, person.emailAddress,"
                        + " person.creditCard, person.city, person.state, `dateTime`, person.extra FROM "
                        + t
                        + " WHERE event_type = 0",
                "CREATE TEMPORARY VIEW auction AS SELECT auction.id, auction.itemName,"
                        + " auction.description, auction.initialBid, auction.reserve, `dateTime`,"
                        + " auction.expires, auction.seller, auction.category, auction.extra FROM "
                        + t
                        + " WHERE event_type = 1",
                "CREATE TEMPORARY VIEW bid AS SELECT bid.auction, bid.bidder, bid.price, bid.channel,"
                        + " bid.url, `dateTime`, bid.extra FROM "
                        + t
                        + " WHERE event_type = 2");
    }

    /** Throws unless the physical row type has the shape the source produces. */
    static void validate(RowType physical) {
        List<String> names = physical.getFieldNames();
        if (!names.equals(TOP_FIELDS)) {
            throw new IllegalArgumentException(
                    "a 'nexmark' table needs the physical columns "
                            + TOP_FIELDS
                            + " (see NexmarkSchema.createTable), got "
                            + names);
        }
        for (int i = 1; i < NESTED_ARITY.length; i++) {
            LogicalType t = physical.getTypeAt(i);
            if (t.getTypeRoot() != LogicalTypeRoot.ROW
                    || t.getChildren().size() != NESTED_ARITY[i]) {
                throw new IllegalArgumentException(
                        "column "
                                + names.get(i)
                                + " must be a ROW of "
                                + NESTED_ARITY[i]
                                + " fields (see NexmarkSchema.createTable), got "
                                + t);
            }
        }
    }
}
