package io.falconstate.nexmark.table;

import io.falconstate.nexmark.generator.NexmarkConfig;
import io.falconstate.nexmark.source.FailureInjection;
import io.falconstate.nexmark.source.NexmarkSource;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/** {@code 'connector' = 'nexmark'}: a bounded, insert-only scan over {@link NexmarkSource}. */
public final class NexmarkTableSourceFactory implements DynamicTableSourceFactory {
    public static final String IDENTIFIER = "nexmark";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return new HashSet<>();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return new HashSet<>(
                Arrays.asList(
                        NexmarkOptions.EVENTS_NUM,
                        NexmarkOptions.SEED,
                        NexmarkOptions.RATE_LIMIT,
                        NexmarkOptions.EVENT_TIME_RATE,
                        NexmarkOptions.BASE_TIME,
                        NexmarkOptions.PERSON_PROPORTION,
                        NexmarkOptions.AUCTION_PROPORTION,
                        NexmarkOptions.BID_PROPORTION,
                        NexmarkOptions.OUT_OF_ORDER_GROUP,
                        NexmarkOptions.HOT_AUCTION_RATIO,
                        NexmarkOptions.HOT_SELLER_RATIO,
                        NexmarkOptions.HOT_BIDDER_RATIO,
                        NexmarkOptions.NUM_CATEGORIES,
                        NexmarkOptions.IN_FLIGHT_AUCTIONS,
                        NexmarkOptions.ACTIVE_PEOPLE,
                        NexmarkOptions.SPLITS,
                        NexmarkOptions.END_AFTER_CHECKPOINTS,
                        NexmarkOptions.FAILURE_AFTER_EVENTS,
                        NexmarkOptions.FAILURE_MARKER));
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        DataType physical = context.getCatalogTable().getResolvedSchema().toPhysicalRowDataType();
        NexmarkSchema.validate((RowType) physical.getLogicalType());
        NexmarkConfig config = NexmarkOptions.toConfig(options);
        Optional<Long> failAfter = options.getOptional(NexmarkOptions.FAILURE_AFTER_EVENTS);
        Optional<String> marker = options.getOptional(NexmarkOptions.FAILURE_MARKER);
        if (failAfter.isPresent() != marker.isPresent()) {
            throw new IllegalArgumentException(
                    "failure.after-events and failure.marker go together");
        }
        FailureInjection failure =
                failAfter.isPresent() ? new FailureInjection(failAfter.get(), marker.get()) : null;
        return new Source(
                physical,
                config,
                options.get(NexmarkOptions.SPLITS),
                options.get(NexmarkOptions.RATE_LIMIT),
                failure,
                options.get(NexmarkOptions.END_AFTER_CHECKPOINTS));
    }

    private static final class Source implements ScanTableSource {
        private final DataType physical;
        private final NexmarkConfig config;
        private final int splits;
        private final long rateLimit;
        @Nullable private final FailureInjection failure;
        private final int endAfterCheckpoints;

        Source(
                DataType physical,
                NexmarkConfig config,
                int splits,
                long rateLimit,
                @Nullable FailureInjection failure,
                int endAfterCheckpoints) {
            this.physical = physical;
            this.config = config;
            this.splits = splits;
            this.rateLimit = rateLimit;
            this.failure = failure;
            this.endAfterCheckpoints = endAfterCheckpoints;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return ChangelogMode.insertOnly();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            TypeInformation<RowData> type = context.createTypeInformation(physical);
            return SourceProvider.of(
                    new NexmarkSource<>(
                                    config, new RowDataConverter(type), splits, rateLimit, failure)
                            .endingAfterCheckpoints(endAfterCheckpoints));
        }

        @Override
        public DynamicTableSource copy() {
            return new Source(physical, config, splits, rateLimit, failure, endAfterCheckpoints);
        }

        @Override
        public String asSummaryString() {
            return "Nexmark(" + config.eventsNum() + " events, seed " + config.seed() + ")";
        }
    }
}
