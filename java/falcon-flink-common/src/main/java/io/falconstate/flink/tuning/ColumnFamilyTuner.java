/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import io.falconstate.flink.log.FalconLog;
import io.falconstate.flink.nativeaccess.NativeLayout;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import org.rocksdb.ColumnFamilyOptions;
import org.slf4j.Logger;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides the tuning of every column family of one RocksDB keyed backend and remembers it.
 *
 * <p>{@link #tune} runs from the builder's per-state {@code Function<String, ColumnFamilyOptions>}
 * with the options Flink's resource container built for that column family, before Flink sets its
 * merge operator. It asks {@link TuningAdvisor} for a profile from the state's kind and the fixed
 * serialized lengths {@link CompositeKeyLayout} derives from its serializers, writes it into the
 * options ({@link TuningApplier}), logs the {@code [FALCON]} line, and keeps the profile so the
 * keyed backend can ask {@link #needsFlushBeforeScan}, {@link #hashColumnFamilies} and {@link
 * #requiredKeyLength} (for {@link KeyLengthInvariant}). Never timer ({@code _timer_state/...}) or
 * {@code default} column families.
 *
 * <p>With the slot's write-buffer manager ({@link #useSlotWriteBuffers}), the fixed blocks a tuned
 * column family adds to each memtable (hash buckets, memtable bloom) are sized within what that
 * manager can carry ({@link SlotWriteBuffers}): smaller, or off with a {@code [FALCON]} line.
 *
 * <p>Lifetime: owned by one {@code FalconKeyedStateBackend}, which closes it after it disposed
 * RocksDB; {@link #close()} releases the bloom filters it created and gives back its share of the
 * slot's write buffers (idempotent). Thread-safety: {@link #tune} runs on the task thread (state
 * registration, restore); the queries may be called from any thread.
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
    private volatile SlotWriteBuffers slotWriteBuffers = SlotWriteBuffers.UNBOUNDED;

    /** Fixed memtable bytes reserved in {@link #slotWriteBuffers}, per column family. */
    private final Map<String, Long> reservations = new HashMap<>();

    private boolean closed;

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
     * Sizes the tuning of every column family created from now on within the slot's write-buffer
     * manager. Call before the backend's database opens; without it (no shared manager: managed
     * memory off) the fixed blocks follow the write buffer size alone.
     */
    public void useSlotWriteBuffers(SlotWriteBuffers slot) {
        this.slotWriteBuffers = slot;
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
        return advise(
                columnFamilyName,
                type,
                keySerializer,
                namespaceSerializer,
                writeBufferSize,
                SlotWriteBuffers.UNBOUNDED,
                0);
    }

    private TuningProfile advise(
            String columnFamilyName,
            @Nullable StateDescriptor.Type type,
            @Nullable TypeSerializer<?> keySerializer,
            @Nullable TypeSerializer<?> namespaceSerializer,
            long writeBufferSize,
            SlotWriteBuffers slot,
            long reservedBytes) {
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
                        slot.capacity(),
                        reservedBytes,
                        hashMemtableEnabled,
                        rangeFilterEnabled);
        if (type == null && kind == TuningAdvisor.StateKind.UNKNOWN) {
            return profile.withReason("state kind and serializers unknown");
        }
        if (profile.reasonCode() == NativeLayout.REASON_WRITE_BUFFERS_TOO_SMALL) {
            return profile.withReason(
                    profile.reason() + " (" + describe(slot, reservedBytes) + ")");
        }
        if (profile.reasonCode() == NativeLayout.REASON_KEY_LENGTH_UNKNOWN) {
            return profile.withReason(
                    layout == null
                            ? "key serializer unknown"
                            : profile.reason() + " (" + layout.keyLengthUnknownBecause() + ")");
        }
        if (profile.reasonCode() == NativeLayout.REASON_NAMESPACE_LENGTH_UNKNOWN) {
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
        StateDescriptor.Type stateType = type;
        TypeSerializer<?> stateKeySerializer = keySerializer;
        TypeSerializer<?> stateNamespaceSerializer = namespaceSerializer;
        SlotWriteBuffers slot = slotWriteBuffers;
        List<AutoCloseable> created = new ArrayList<>(1);
        // A column family tuned again (a restore's temporary database, then the real one) holds
        // one reservation, its latest, decided without its earlier one.
        long earlier;
        synchronized (ownedHandles) {
            earlier = reservations.getOrDefault(columnFamilyName, 0L);
        }
        // Decided and reserved under the slot's lock: backends of one slot register states on
        // their own task threads, and each must see what the others took.
        TuningProfile applied =
                slot.reserve(
                        reserved ->
                                TuningApplier.apply(
                                        advise(
                                                columnFamilyName,
                                                stateType,
                                                stateKeySerializer,
                                                stateNamespaceSerializer,
                                                options.writeBufferSize(),
                                                slot,
                                                reserved - earlier),
                                        options,
                                        created));
        synchronized (ownedHandles) {
            ownedHandles.addAll(created);
            reservations.put(columnFamilyName, applied.fixedAllocationBytes());
        }
        slot.release(earlier);
        profiles.put(columnFamilyName, applied);
        log(columnFamilyName, kindOf(columnFamilyName, type), applied);
        if (slot.bounded()
                && applied.tuned()
                && !applied.isHashMemtable()
                && applied.memtablePrefixBloomRatio() == 0) {
            LOG.info(
                    FalconLog.noMemtableBloomLine(
                            columnFamilyName,
                            "the slot's write buffers cannot carry one in every memtable ("
                                    + describe(slot, slot.reserved())
                                    + ")"));
        }
        return applied;
    }

    private static String describe(SlotWriteBuffers slot, long reservedBytes) {
        return "write-buffer manager of "
                + FalconLog.bytes(slot.capacity())
                + ", "
                + FalconLog.bytes(reservedBytes)
                + " of it held by tuned column families' memtables";
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
     * first or read with total-order seek.
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
     * The one key length every key of a hash column family must have (its fixed prefix length), or
     * -1 when the column family is not a hash column family (any length is fine there: a map key is
     * longer than its range-filter prefix, and a skiplist memtable takes any key).
     */
    public int requiredKeyLength(String columnFamilyName) {
        TuningProfile profile = profiles.get(columnFamilyName);
        return profile != null && profile.isHashMemtable() ? profile.prefixLength() : -1;
    }

    // -- log lines ------------------------------------------------------------------------------

    private static void log(
            String columnFamilyName, TuningAdvisor.StateKind kind, TuningProfile profile) {
        if (profile.tuned()) {
            LOG.info(
                    profile.isHashMemtable()
                            ? FalconLog.hashMemtableLine(columnFamilyName, profile.prefixLength())
                            : FalconLog.rangeFilterLine(columnFamilyName, profile.prefixLength()));
        } else if (kind == TuningAdvisor.StateKind.TIMER
                || kind == TuningAdvisor.StateKind.DEFAULT) {
            LOG.debug(FalconLog.untunedLine(columnFamilyName, profile.reason()));
        } else {
            LOG.info(FalconLog.untunedLine(columnFamilyName, profile.reason()));
        }
    }

    /** The key-group prefix of this backend's keys: 1 or 2 bytes. */
    public int keyGroupPrefixBytes() {
        return keyGroupPrefixBytes;
    }

    /** True once {@link #close()} ran; the filters it created are released then. */
    public boolean isClosed() {
        synchronized (ownedHandles) {
            return closed;
        }
    }

    @Override
    public void close() {
        List<AutoCloseable> toClose;
        synchronized (ownedHandles) {
            closed = true;
            toClose = new ArrayList<>(ownedHandles);
            ownedHandles.clear();
            reservations.values().forEach(slotWriteBuffers::release);
            reservations.clear();
        }
        for (AutoCloseable handle : toClose) {
            try {
                handle.close();
            } catch (Exception e) {
                LOG.warn("[FALCON] could not close a tuning handle", e);
            }
        }
    }
}
