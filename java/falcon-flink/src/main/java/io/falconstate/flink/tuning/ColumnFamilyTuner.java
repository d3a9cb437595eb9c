/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.FalconLog;
import io.falconstate.flink.FalconOptions;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.RocksDBNativeMetricOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.HashLinkedListMemTableConfig;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.TableFormatConfig;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Applies {@link TuningAdvisor} profiles to the column families of one RocksDB keyed backend.
 *
 * <p>Call {@link #tune} from the builder's per-state {@code Function<String, ColumnFamilyOptions>}
 * with the options Flink's resource container built for that column family (a new object per
 * call), before Flink sets its merge operator. It decides from the state's kind and serializers
 * (see {@link CompositeKeyLayout}), changes the options in place, logs the {@code [FALCON]} line,
 * and remembers the profile per column family so the keyed backend can ask {@link
 * #needsFlushBeforeScan}, {@link #checkRegistration} and {@link #requiredKeyLength}.
 *
 * <p>What it changes, and only there:
 *
 * <ul>
 *   <li>ValueState with one fixed key length n: {@code HashLinkedListMemTableConfig} and {@code
 *       useFixedLengthPrefixExtractor(n)}. Needs {@link #applyDbOptions} at DB open.
 *   <li>MapState with fixed key group + key + namespace length p: {@code
 *       useFixedLengthPrefixExtractor(p)}, a memtable prefix bloom, and in the {@link
 *       BlockBasedTableConfig} Flink already built (same object, so its shared block cache and
 *       cache-index-and-filter settings stay) a bloom filter when it has none, whole-key filtering
 *       on.
 *   <li>Never timer ({@code _timer_state/...}) or {@code default} column families, never a column
 *       family whose memtable the user's options factory already chose, never a non-block-based
 *       table format.
 * </ul>
 *
 * <p>Thread-safety: {@link #tune} runs on the task thread (state registration, restore); the
 * query methods may be called from any thread. {@link #close()} (after the DB is closed) releases
 * the native filter objects it created.
 */
public final class ColumnFamilyTuner implements AutoCloseable {

    /** Prefix of the RocksDB timer service's column families. */
    public static final String TIMER_COLUMN_FAMILY_PREFIX = "_timer_state/";

    public static final String DEFAULT_COLUMN_FAMILY = "default";

    /** Reason codes of refusals the Java side makes (after a tuned advice). */
    public static final int REASON_OPTIONS_FACTORY_MEMTABLE = 100;

    public static final int REASON_TABLE_FORMAT_NOT_BLOCK_BASED = 101;

    private static final Logger LOG = FalconLog.LOG;

    private final boolean hashMemtableEnabled;
    private final boolean rangeFilterEnabled;
    private final int keyGroupPrefixBytes;
    private final Map<String, TuningProfile> profiles = new ConcurrentHashMap<>();
    private final Map<String, RestoredStateMetaInfo.RestoredState> restored =
            new ConcurrentHashMap<>();
    @Nullable private volatile TypeSerializer<?> restoredKeySerializer;
    private final List<AutoCloseable> ownedHandles = new ArrayList<>();

    /**
     * @param keyGroupPrefixBytes 1 or 2: {@link CompositeKeyLayout#keyGroupPrefixBytes(int)} of the
     *     job's maximum parallelism
     */
    public ColumnFamilyTuner(
            boolean hashMemtableEnabled, boolean rangeFilterEnabled, int keyGroupPrefixBytes) {
        if (keyGroupPrefixBytes != 1 && keyGroupPrefixBytes != 2) {
            throw new IllegalArgumentException(
                    "key-group prefix must be 1 or 2 bytes, got " + keyGroupPrefixBytes);
        }
        this.hashMemtableEnabled = hashMemtableEnabled;
        this.rangeFilterEnabled = rangeFilterEnabled;
        this.keyGroupPrefixBytes = keyGroupPrefixBytes;
    }

    /**
     * A tuner with the switches of {@code config} ({@link FalconOptions}); {@code cacheEnabled}
     * decides {@link HashMemtableMode#AUTO}.
     */
    public static ColumnFamilyTuner fromConfig(
            ReadableConfig config, boolean cacheEnabled, int numberOfKeyGroups) {
        FalconOptions.rejectInplaceUpdates(config);
        return new ColumnFamilyTuner(
                hashMemtableMode(config).enabled(cacheEnabled),
                rangeFilterEnabled(config),
                CompositeKeyLayout.keyGroupPrefixBytes(numberOfKeyGroups));
    }

    /** The values of {@link FalconOptions#TUNING_VALUE_STATE_HASH_MEMTABLE}. */
    public enum HashMemtableMode {
        /** On exactly while the hot-state cache is enabled. */
        AUTO,
        ON,
        OFF;

        /** Whether ValueState column families get the HashLinkList memtable. */
        public boolean enabled(boolean cacheEnabled) {
            return this == ON || (this == AUTO && cacheEnabled);
        }
    }

    /**
     * {@link FalconOptions#TUNING_VALUE_STATE_HASH_MEMTABLE}: {@code auto}, {@code true} or {@code
     * false} (any case, surrounding blanks ignored); anything else fails naming the key.
     */
    public static HashMemtableMode hashMemtableMode(ReadableConfig config) {
        String value =
                config.get(FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE)
                        .trim()
                        .toLowerCase(Locale.ROOT);
        switch (value) {
            case "auto":
                return HashMemtableMode.AUTO;
            case "true":
                return HashMemtableMode.ON;
            case "false":
                return HashMemtableMode.OFF;
            default:
                throw new IllegalConfigurationException(
                        String.format(
                                "%s: '%s' is not allowed; allowed: auto, true, false",
                                FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key(),
                                value));
        }
    }

    /** {@link FalconOptions#TUNING_MAP_STATE_RANGE_FILTER}, validated. */
    public static boolean rangeFilterEnabled(ReadableConfig config) {
        return FalconOptions.readBoolean(config, FalconOptions.TUNING_MAP_STATE_RANGE_FILTER);
    }

    public boolean hashMemtableEnabled() {
        return hashMemtableEnabled;
    }

    public boolean rangeFilterEnabled() {
        return rangeFilterEnabled;
    }

    // -- deciding -------------------------------------------------------------------------------

    /** The kind of a column family from its name and (for states) the registered type. */
    public static TuningAdvisor.StateKind kindOf(
            String columnFamilyName, @Nullable StateDescriptor.Type type) {
        if (columnFamilyName.startsWith(TIMER_COLUMN_FAMILY_PREFIX)) {
            return TuningAdvisor.StateKind.TIMER;
        }
        if (DEFAULT_COLUMN_FAMILY.equals(columnFamilyName)) {
            return TuningAdvisor.StateKind.DEFAULT;
        }
        return TuningAdvisor.StateKind.of(type);
    }

    /**
     * The profile for a column family, without changing anything.
     *
     * @param type the state's type; null when unknown (the column family is left as is)
     * @param keySerializer null when unknown
     * @param namespaceSerializer null when unknown
     */
    public TuningProfile advise(
            String columnFamilyName,
            @Nullable StateDescriptor.Type type,
            @Nullable TypeSerializer<?> keySerializer,
            @Nullable TypeSerializer<?> namespaceSerializer,
            long writeBufferSize) {
        TuningAdvisor.StateKind kind = kindOf(columnFamilyName, type);
        int keyBytes = TuningAdvisor.UNKNOWN_LENGTH;
        int namespaceBytes = TuningAdvisor.UNKNOWN_LENGTH;
        CompositeKeyLayout layout = null;
        if (keySerializer != null && namespaceSerializer != null) {
            layout = CompositeKeyLayout.of(keyGroupPrefixBytes, keySerializer, namespaceSerializer);
            keyBytes = layout.keyBytes();
            namespaceBytes = layout.namespaceBytes();
        }
        TuningProfile profile =
                TuningAdvisor.advise(
                        kind,
                        keyGroupPrefixBytes,
                        keyBytes,
                        namespaceBytes,
                        writeBufferSize,
                        hashMemtableEnabled,
                        rangeFilterEnabled);
        if (type == null && kind == TuningAdvisor.StateKind.UNKNOWN) {
            return profile.withReason("state kind and serializers unknown");
        }
        if (profile.reasonCode() == TuningAdvisor.REASON_KEY_LENGTH_UNKNOWN) {
            return profile.withReason(
                    layout == null
                            ? "key serializer unknown"
                            : profile.reason() + " (" + layout.keyLengthUnknownBecause() + ")");
        }
        if (profile.reasonCode() == TuningAdvisor.REASON_NAMESPACE_LENGTH_UNKNOWN) {
            return profile.withReason(
                    layout == null
                            ? "namespace serializer unknown"
                            : profile.reason()
                                    + " ("
                                    + layout.namespaceLengthUnknownBecause()
                                    + ")");
        }
        return profile;
    }

    /**
     * States read from the restore handles ({@link RestoredStateMetaInfo}), so that the column
     * families a restore creates before any state registers are tuned like new ones. Call before
     * the inner backend is built.
     */
    public void addRestoredStates(
            TypeSerializer<?> keySerializer,
            Map<String, RestoredStateMetaInfo.RestoredState> states) {
        this.restoredKeySerializer = keySerializer;
        restored.putAll(states);
    }

    // -- applying -------------------------------------------------------------------------------

    /**
     * Decides, applies the profile to {@code options} in place, logs one {@code [FALCON]} line
     * (INFO for states, DEBUG for timer and default column families) and remembers the profile.
     * Returns the profile actually applied (untuned when the options cannot take it).
     */
    public TuningProfile tune(
            String columnFamilyName,
            @Nullable StateDescriptor.Type type,
            @Nullable TypeSerializer<?> keySerializer,
            @Nullable TypeSerializer<?> namespaceSerializer,
            ColumnFamilyOptions options) {
        if (type == null) {
            RestoredStateMetaInfo.RestoredState state = restored.get(columnFamilyName);
            if (state != null) {
                type = state.kind();
                // The serializers that wrote the restored keys decide the layout; when the state
                // registers, checkRegistration proves the current ones write the same length.
                keySerializer =
                        state.keySerializer() != null
                                ? state.keySerializer()
                                : restoredKeySerializer;
                namespaceSerializer = state.namespaceSerializer();
            }
        }
        TuningProfile profile =
                advise(
                        columnFamilyName,
                        type,
                        keySerializer,
                        namespaceSerializer,
                        options.writeBufferSize());
        List<AutoCloseable> created = new ArrayList<>(1);
        TuningProfile applied = apply(profile, options, created);
        synchronized (ownedHandles) {
            ownedHandles.addAll(created);
        }
        profiles.put(columnFamilyName, applied);
        log(columnFamilyName, kindOf(columnFamilyName, type), applied);
        return applied;
    }

    /**
     * Applies {@code profile} to {@code options}. Native objects it creates (a bloom filter) are
     * added to {@code createdHandles}; close them after the column family's DB is closed. Returns
     * {@code profile}, or an untuned profile when the options already carry a memtable of the
     * user's options factory or a table format that is not block-based (then nothing is changed).
     */
    public static TuningProfile apply(
            TuningProfile profile,
            ColumnFamilyOptions options,
            Collection<AutoCloseable> createdHandles) {
        if (!profile.tuned()) {
            return profile;
        }
        if (options.memTableConfig() != null) {
            return TuningProfile.untuned(
                    REASON_OPTIONS_FACTORY_MEMTABLE,
                    "the options factory already set a memtable ("
                            + options.memTableConfig().getClass().getSimpleName()
                            + ")");
        }
        TableFormatConfig tableFormat = options.tableFormatConfig();
        boolean needsTable =
                profile.filter() != TuningProfile.Filter.KEEP
                        || profile.wholeKeyFiltering() != null;
        if (needsTable && !(tableFormat instanceof BlockBasedTableConfig)) {
            return TuningProfile.untuned(
                    REASON_TABLE_FORMAT_NOT_BLOCK_BASED,
                    "table format is not block-based ("
                            + (tableFormat == null
                                    ? "none set"
                                    : tableFormat.getClass().getSimpleName())
                            + ")");
        }

        if (profile.isHashMemtable()) {
            options.setMemTableConfig(
                    new HashLinkedListMemTableConfig()
                            .setBucketCount(profile.hashBucketCount())
                            // Logging bucket statistics walks every bucket on each flush.
                            .setIfLogBucketDistWhenFlush(false));
        }
        if (profile.prefixLength() > 0) {
            options.useFixedLengthPrefixExtractor(profile.prefixLength());
        }
        if (profile.arenaBlockSize() > 0) {
            options.setArenaBlockSize(profile.arenaBlockSize());
        }
        if (profile.memtablePrefixBloomRatio() > 0) {
            options.setMemtablePrefixBloomSizeRatio(profile.memtablePrefixBloomRatio());
        }
        if (needsTable) {
            BlockBasedTableConfig table = (BlockBasedTableConfig) tableFormat;
            if (profile.filter() == TuningProfile.Filter.BLOOM && table.filterPolicy() == null) {
                BloomFilter filter = new BloomFilter(profile.bloomBitsPerKey(), false);
                createdHandles.add(filter);
                table.setFilterPolicy(filter);
            }
            if (profile.wholeKeyFiltering() != null) {
                table.setWholeKeyFiltering(profile.wholeKeyFiltering());
            }
            // Re-install the same config object: RocksJava builds the native table factory from
            // it, keeping its block cache (the slot's shared cache) and every other setting.
            options.setTableFormatConfig(table);
        }
        return profile;
    }

    /**
     * The DB-wide rule: a HashLinkList memtable cannot take concurrent writes, and {@code
     * allow_concurrent_memtable_write} is fixed when the DB opens. Call on the DB options of every
     * DB this backend opens (its own and restore's temporary ones) whenever hash tuning is on.
     */
    public static DBOptions applyDbOptions(DBOptions dbOptions, boolean hashMemtableEnabled) {
        if (hashMemtableEnabled) {
            dbOptions.setAllowConcurrentMemtableWrite(false);
        }
        return dbOptions;
    }

    /**
     * Wraps the user's options factory (may be null) so that Flink's resource container applies
     * {@link #applyDbOptions} after it; every other hook delegates unchanged.
     */
    public static RocksDBOptionsFactory withDbRule(
            @Nullable RocksDBOptionsFactory userFactory, boolean hashMemtableEnabled) {
        return new DbRuleOptionsFactory(userFactory, hashMemtableEnabled);
    }

    // -- what the keyed backend asks --------------------------------------------------------------

    /** The profile applied to a column family, null if {@link #tune} never saw it. */
    @Nullable
    public TuningProfile profileOf(String columnFamilyName) {
        return profiles.get(columnFamilyName);
    }

    /**
     * True when a whole-column-family scan (seekToFirst: getKeys, getKeysAndNamespaces,
     * applyToAllKeys, entry counts, state migration, canonical savepoints) would miss memtable
     * entries: the column family has a HashLinkList memtable with a prefix extractor. Flush it
     * first ({@link #flush}) or read with total-order seek.
     */
    public boolean needsFlushBeforeScan(String columnFamilyName) {
        TuningProfile profile = profiles.get(columnFamilyName);
        return profile != null && profile.isHashMemtable();
    }

    /** Names of the column families tuned with a HashLinkList memtable so far. */
    public List<String> hashColumnFamilies() {
        List<String> names = new ArrayList<>();
        for (Map.Entry<String, TuningProfile> e : profiles.entrySet()) {
            if (e.getValue().isHashMemtable()) {
                names.add(e.getKey());
            }
        }
        return names;
    }

    /**
     * The one key length every key of a hash column family must have (its fixed prefix length),
     * or -1 when the column family is not a hash column family (any length is fine there: a map
     * key is longer than its range-filter prefix, and a skiplist memtable takes any key).
     */
    public int requiredKeyLength(String columnFamilyName) {
        TuningProfile profile = profiles.get(columnFamilyName);
        return profile != null && profile.isHashMemtable() ? profile.prefixLength() : -1;
    }

    /**
     * Invariant 3 at registration, where it costs nothing per record: a state registering (for
     * the first time, after a restore, or again with new serializers) into a hash column family
     * must build keys of exactly the column family's length n from the serializers it registers
     * with. Flink's RocksDB ValueState writes keys without any hook Falcon could check, so this
     * proof is what keeps them at n there; the cache's write-back checks each record as well.
     *
     * @param keySerializer the keyed backend's key serializer now (after restore)
     * @param namespaceSerializer the namespace serializer the state registers with
     * @return the required key length n, or -1 when the column family is not a hash column
     *     family
     * @throws IllegalStateException naming the state, n and what the serializers write instead
     */
    public int checkRegistration(
            String columnFamilyName,
            TypeSerializer<?> keySerializer,
            TypeSerializer<?> namespaceSerializer) {
        int required = requiredKeyLength(columnFamilyName);
        if (required < 0) {
            return -1;
        }
        CompositeKeyLayout layout =
                CompositeKeyLayout.of(keyGroupPrefixBytes, keySerializer, namespaceSerializer);
        int actual = layout.keyAndNamespaceBytes();
        if (actual != required) {
            String writes =
                    actual == TuningAdvisor.UNKNOWN_LENGTH
                            ? "keys of no fixed length ("
                                    + (layout.keyLengthUnknownBecause() != null
                                            ? layout.keyLengthUnknownBecause()
                                            : layout.namespaceLengthUnknownBecause())
                                    + ")"
                            : actual + "-byte keys";
            throw new IllegalStateException(
                    "[FALCON] state "
                            + columnFamilyName
                            + " has a HashLinkList memtable over "
                            + required
                            + "-byte keys, but the serializers it registers with write "
                            + writes
                            + " ("
                            + layout
                            + "); a changed key or namespace serializer must keep the key "
                            + "length. Set "
                            + FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key()
                            + ": false for this job.");
        }
        return required;
    }

    /**
     * Invariant 3 per key, for paths that write keys Falcon builds itself: throws {@link
     * IllegalStateException} naming the state when {@code keyLength} breaks a hash column
     * family's fixed length. One map lookup: for per-record use, take {@link
     * #requiredKeyLength} once and compare lengths (as the cache's write-back does).
     */
    public void checkKeyLength(String columnFamilyName, int keyLength) {
        int required = requiredKeyLength(columnFamilyName);
        if (required >= 0 && keyLength != required) {
            throw new IllegalStateException(
                    keyLengthViolation(columnFamilyName, required, keyLength));
        }
    }

    /** The message of a key-length violation: state, required and actual length, the way out. */
    public static String keyLengthViolation(String state, int requiredLength, int keyLength) {
        return "[FALCON] state "
                + state
                + " uses a HashLinkList memtable over "
                + requiredLength
                + "-byte keys, but a "
                + keyLength
                + "-byte key was written; its serializers do not produce one fixed length. "
                + "Set "
                + FalconOptions.TUNING_VALUE_STATE_HASH_MEMTABLE.key()
                + ": false for this job.";
    }

    /** Flushes one column family's memtable and waits for it (so scans see every entry). */
    public static void flush(RocksDB db, ColumnFamilyHandle columnFamily) throws RocksDBException {
        try (FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flushOptions, columnFamily);
        }
    }

    // -- log lines ------------------------------------------------------------------------------

    /**
     * {@code [FALCON] <state> is valueState, use HashLinkList as memTable structure (prefix <n>
     * bytes)}.
     */
    public static String hashMemtableLine(String state, int prefixBytes) {
        return "[FALCON] "
                + state
                + " is valueState, use HashLinkList as memTable structure (prefix "
                + prefixBytes
                + " bytes)";
    }

    /** {@code [FALCON] <state> is map, use range filter (prefix <n> bytes)}. */
    public static String rangeFilterLine(String state, int prefixBytes) {
        return "[FALCON] " + state + " is map, use range filter (prefix " + prefixBytes + " bytes)";
    }

    /** {@code [FALCON] <state> left untuned: <reason>}. */
    public static String untunedLine(String state, String reason) {
        return "[FALCON] " + state + " left untuned: " + reason;
    }

    private static void log(
            String columnFamilyName, TuningAdvisor.StateKind kind, TuningProfile profile) {
        if (profile.tuned()) {
            LOG.info(
                    profile.isHashMemtable()
                            ? hashMemtableLine(columnFamilyName, profile.prefixLength())
                            : rangeFilterLine(columnFamilyName, profile.prefixLength()));
        } else if (kind == TuningAdvisor.StateKind.TIMER
                || kind == TuningAdvisor.StateKind.DEFAULT) {
            LOG.debug(untunedLine(columnFamilyName, profile.reason()));
        } else {
            LOG.info(untunedLine(columnFamilyName, profile.reason()));
        }
    }

    @Override
    public void close() {
        List<AutoCloseable> toClose;
        synchronized (ownedHandles) {
            toClose = new ArrayList<>(ownedHandles);
            ownedHandles.clear();
        }
        for (AutoCloseable handle : toClose) {
            try {
                handle.close();
            } catch (Exception e) {
                LOG.warn("[FALCON] could not close a tuning handle", e);
            }
        }
    }

    /** The user's options factory plus the DB-wide rule; not serialized with the job. */
    private static final class DbRuleOptionsFactory implements RocksDBOptionsFactory {
        private static final long serialVersionUID = 1L;

        @Nullable private final RocksDBOptionsFactory user;
        private final boolean hashMemtableEnabled;

        DbRuleOptionsFactory(@Nullable RocksDBOptionsFactory user, boolean hashMemtableEnabled) {
            this.user = user;
            this.hashMemtableEnabled = hashMemtableEnabled;
        }

        @Override
        public DBOptions createDBOptions(
                DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
            DBOptions options =
                    user == null
                            ? currentOptions
                            : user.createDBOptions(currentOptions, handlesToClose);
            return applyDbOptions(options, hashMemtableEnabled);
        }

        @Override
        public ColumnFamilyOptions createColumnOptions(
                ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
            return user == null
                    ? currentOptions
                    : user.createColumnOptions(currentOptions, handlesToClose);
        }

        @Override
        public RocksDBNativeMetricOptions createNativeMetricsOptions(
                RocksDBNativeMetricOptions nativeMetricOptions) {
            return user == null
                    ? nativeMetricOptions
                    : user.createNativeMetricsOptions(nativeMetricOptions);
        }

        @Override
        public WriteOptions createWriteOptions(
                WriteOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
            return user == null
                    ? currentOptions
                    : user.createWriteOptions(currentOptions, handlesToClose);
        }

        @Override
        public ReadOptions createReadOptions(
                ReadOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
            return user == null
                    ? currentOptions
                    : user.createReadOptions(currentOptions, handlesToClose);
        }
    }
}
