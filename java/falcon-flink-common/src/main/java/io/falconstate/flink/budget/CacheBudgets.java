/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.budget;

import io.falconstate.flink.nativeaccess.NativeMapCache;
import io.falconstate.flink.nativeaccess.NativeMemoryBudget;

import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;

import java.io.IOException;

/**
 * Where a keyed subtask's cache budget comes from (docs/cache.md, "Memory budget"):
 *
 * <ul>
 *   <li><b>Slot</b>: each slot has its own {@link MemoryManager}. The first keyed subtask of a slot
 *       reserves {@code a·f} of the slot's managed memory as the slot-wide shared resource {@value
 *       #MANAGED_TYPE} ({@code MemoryManager#getSharedMemoryResourceForManagedMemory}), exactly as
 *       RocksDB reserves its {@code (1-a)·f}; Flink keys the resource by slot, reference-counts it
 *       over the slot's subtasks and releases the reservation when the last one leaves. The
 *       reservation's size is the slot's cache budget in bytes; the slot's entry cap is {@code
 *       max(1, floor(entries-per-taskmanager / slots))} when a cap is set.
 *   <li><b>Subtask</b>: a lease of the slot's native budget with weight = the subtask's
 *       managed-memory fraction {@code f}: quota = slot budget × {@code f_i / Σ f} (floored).
 * </ul>
 *
 * With a fixed size per subtask (explicit override) nothing is reserved: the slot-wide resource
 * {@value #FIXED_TYPE} (an external one, reserving nothing) only counts the slot's subtasks.
 *
 * <p>Thread-safe: task threads of all slots call it; the slot resources synchronise in Flink.
 */
public final class CacheBudgets {

    /** The slot-wide shared managed-memory resource of the cache. */
    public static final String MANAGED_TYPE = "falcon-hot-state-cache";

    /** The slot-wide resource that only counts subtasks with a fixed size per subtask. */
    public static final String FIXED_TYPE = "falcon-hot-state-cache-fixed";

    /** Key + value bytes of the typical entry the "<N> states" estimates assume. */
    public static final long TYPICAL_ENTRY_BYTES = 88;

    /** The typical map of the MapState log line: this many entries of the typical size... */
    public static final int TYPICAL_MAP_ENTRIES = 4;

    /** ...under a prefix (key group, key, namespace) of this many bytes. */
    public static final int TYPICAL_MAP_PREFIX_BYTES = 16;

    /**
     * About how many ValueState entries of {@link #TYPICAL_ENTRY_BYTES} bytes of key and value fit
     * a quota (the entry quota caps it when set): what the cache's log line reports.
     */
    public static long estimateStates(long quotaBytes, long quotaEntries) {
        return NativeMemoryBudget.estimateEntries(quotaBytes, quotaEntries, TYPICAL_ENTRY_BYTES);
    }

    /** Maps of the typical size the quota holds, capped by the entry quota (0: none). */
    public static long estimateMaps(long quotaBytes, long quotaEntries) {
        long charge =
                NativeMapCache.chargeFor(
                        TYPICAL_MAP_PREFIX_BYTES,
                        TYPICAL_MAP_ENTRIES,
                        (int) (TYPICAL_MAP_ENTRIES * TYPICAL_ENTRY_BYTES));
        long maps = quotaBytes / charge;
        return quotaEntries > 0 ? Math.min(maps, quotaEntries) : maps;
    }

    /**
     * Lists the quota holds, capped by the entry quota: a typical list is taken to be as large as a
     * typical map (a list is one entry of elements joined by a one-byte delimiter).
     */
    public static long estimateLists(long quotaBytes, long quotaEntries) {
        return estimateMaps(quotaBytes, quotaEntries);
    }

    private CacheBudgets() {}

    /** {@code taskmanager.numberOfTaskSlots} of this TaskManager (at least 1). */
    public static int slots(Environment env) {
        return Math.max(
                1,
                env.getTaskManagerInfo().getConfiguration().get(TaskManagerOptions.NUM_TASK_SLOTS));
    }

    /** The slot's entry cap for a TaskManager-wide cap: 0 (none) or at least 1. */
    public static long slotEntries(long entriesPerTaskManager, int slots) {
        return entriesPerTaskManager <= 0 ? 0 : Math.max(1, entriesPerTaskManager / slots);
    }

    /**
     * Joins the slot's cache budget: a fixed size per subtask ({@code fixedBytesPerSubtask} and
     * {@code fixedEntriesPerSubtask} when {@code fixedSize}), or a share of managed memory. {@code
     * cacheFraction} is {@code a·f} (managed mode, > 0) and {@code weight} is {@code f}; {@code
     * entriesPerTaskManager} caps the entries (0: none). Returns null when the cache can hold
     * nothing (no cache then).
     */
    public static SubtaskCacheBudget acquire(
            Environment env,
            boolean fixedSize,
            long fixedBytesPerSubtask,
            long fixedEntriesPerSubtask,
            long entriesPerTaskManager,
            double cacheFraction,
            double weight,
            String name)
            throws IOException {
        MemoryManager memoryManager = env.getMemoryManager();
        long slotEntries = slotEntries(entriesPerTaskManager, slots(env));
        OpaqueMemoryResource<SlotCacheBudget> resource;
        try {
            if (fixedSize) {
                resource =
                        memoryManager.getExternalSharedMemoryResource(
                                FIXED_TYPE,
                                size -> new SlotCacheBudget(0, 0),
                                fixedBytesPerSubtask);
            } else {
                if (!(cacheFraction > 0) || !(weight > 0)) {
                    return null;
                }
                resource =
                        memoryManager.getSharedMemoryResourceForManagedMemory(
                                MANAGED_TYPE,
                                size -> new SlotCacheBudget(size, slotEntries),
                                Math.min(1.0, cacheFraction));
            }
        } catch (Exception e) {
            throw new IOException(
                    "[FALCON] cannot reserve the hot-state cache's managed memory ("
                            + cacheFraction
                            + " of the slot)",
                    e);
        }
        long lease = 0;
        try {
            SlotCacheBudget slot = resource.getResourceHandle();
            NativeMemoryBudget slotBudget = slot.budget();
            // The native registration records the slot's subtask count and this subtask's
            // quota in the same locked step, so the subtask's [FALCON] line states one moment
            // even while the slot's other subtasks join or leave.
            lease = slotBudget.register(fixedSize ? 1.0 : weight, name);
            NativeMemoryBudget.JoinedFacts joined = NativeMemoryBudget.joinedFacts(lease);
            return new SubtaskCacheBudget(
                    resource,
                    lease,
                    fixedSize,
                    fixedBytesPerSubtask,
                    fixedEntriesPerSubtask,
                    joined.subtasks(),
                    joined.quotaBytes(),
                    joined.quotaEntries());
        } catch (RuntimeException e) {
            NativeMemoryBudget.releaseLease(lease);
            try {
                resource.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
