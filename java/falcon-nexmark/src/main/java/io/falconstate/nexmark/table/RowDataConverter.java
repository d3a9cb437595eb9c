package io.falconstate.nexmark.table;

import io.falconstate.nexmark.generator.Auction;
import io.falconstate.nexmark.generator.Bid;
import io.falconstate.nexmark.generator.NexmarkEvent;
import io.falconstate.nexmark.generator.Person;
import io.falconstate.nexmark.source.EventConverter;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

/** Events as rows of the {@code datagen} table's physical schema (see {@link NexmarkSchema}). */
final class RowDataConverter implements EventConverter<RowData> {
    private static final long serialVersionUID = 1L;

    private final TypeInformation<RowData> type;

    RowDataConverter(TypeInformation<RowData> type) {
        this.type = type;
    }

    @Override
    public RowData convert(NexmarkEvent e) {
        GenericRowData row = new GenericRowData(4);
        row.setField(0, e.type);
        switch (e.type) {
            case NexmarkEvent.PERSON:
                row.setField(1, person(e.person));
                break;
            case NexmarkEvent.AUCTION:
                row.setField(2, auction(e.auction));
                break;
            default:
                row.setField(3, bid(e.bid));
        }
        return row;
    }

    private static GenericRowData person(Person p) {
        return GenericRowData.of(
                p.id,
                str(p.name),
                str(p.emailAddress),
                str(p.creditCard),
                str(p.city),
                str(p.state),
                ts(p.dateTime),
                str(p.extra));
    }

    private static GenericRowData auction(Auction a) {
        return GenericRowData.of(
                a.id,
                str(a.itemName),
                str(a.description),
                a.initialBid,
                a.reserve,
                ts(a.dateTime),
                ts(a.expires),
                a.seller,
                a.category,
                str(a.extra));
    }

    private static GenericRowData bid(Bid b) {
        return GenericRowData.of(
                b.auction,
                b.bidder,
                b.price,
                str(b.channel),
                str(b.url),
                ts(b.dateTime),
                str(b.extra));
    }

    private static StringData str(String s) {
        return StringData.fromString(s);
    }

    private static TimestampData ts(long millis) {
        return TimestampData.fromEpochMillis(millis);
    }

    @Override
    public TypeInformation<RowData> producedType() {
        return type;
    }
}
