/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.flink.tuning;

import org.apache.flink.contrib.streaming.state.RocksDBKeyedStateBackend;
import org.apache.flink.shaded.asm9.org.objectweb.asm.ClassReader;
import org.apache.flink.shaded.asm9.org.objectweb.asm.ClassVisitor;
import org.apache.flink.shaded.asm9.org.objectweb.asm.Handle;
import org.apache.flink.shaded.asm9.org.objectweb.asm.MethodVisitor;
import org.apache.flink.shaded.asm9.org.objectweb.asm.Opcodes;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the RocksDB backend of the Flink minor under test uses the RocksDB features that Falcon's
 * column-family tunings (HashLinkList memtable, fixed-length prefix extractor, prefix and whole-key
 * bloom filters) disable or change. Read from the bytecode of the very jar Falcon runs against, so
 * a Flink upgrade that adds a call site fails here and sends the next engineer to {@code
 * docs/architecture.md}, "Safety invariants", which names the test that covers each site.
 */
class FlinkRocksDbCallSitesTest {

    /** RocksDB Java API methods (owner/name) → Flink's callers (Class.method). */
    private static Map<String, Set<String>> callSites;

    @BeforeAll
    static void scanFlinksRocksDbBackend() throws Exception {
        File jar =
                new File(
                        RocksDBKeyedStateBackend.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI());
        assertThat(jar).as("Flink's RocksDB backend comes from a jar").isFile();
        callSites = new TreeMap<>();
        try (JarFile file = new JarFile(jar)) {
            Enumeration<JarEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                if (!entry.getName().endsWith(".class")) {
                    continue;
                }
                try (InputStream in = file.getInputStream(entry)) {
                    new ClassReader(in).accept(new CallRecorder(), ClassReader.SKIP_DEBUG);
                }
            }
        }
        assertThat(callSites).as("the scan found RocksDB calls at all").containsKey("RocksDB.get");
    }

    private static Set<String> callersOf(String ownerAndMethod) {
        return callSites.getOrDefault(ownerAndMethod, Collections.emptySet());
    }

    private static Set<String> set(String... callers) {
        return new TreeSet<>(Arrays.asList(callers));
    }

    /**
     * Snapshots: exactly state migration and canonical savepoints (the State Processor API writes
     * through the latter). Both need {@code DB::GetSnapshot}, which any column family with in-place
     * updates disables for the whole DB: Falcon never sets them (TunedStateMigrationTest,
     * TunedKeyedBackendTest's point-in-time savepoint, RocksDbFeaturesOnTunedColumnFamiliesTest).
     */
    @Test
    void snapshotsAreTakenByMigrationAndCanonicalSavepointsOnly() {
        assertThat(callersOf("RocksDB.getSnapshot"))
                .isEqualTo(
                        set(
                                "RocksDBKeyedStateBackend.migrateStateValues",
                                "RocksDBFullSnapshotResources.create"));
        assertThat(callersOf("ReadOptions.setSnapshot"))
                .isEqualTo(set("RocksDBFullSnapshotResources.createKVStateIterator"));
    }

    /**
     * Range deletes: only when an incremental restore clips a database to the backend's key groups
     * (RocksDbFeaturesOnTunedColumnFamiliesTest rescales into tuned column families).
     */
    @Test
    void rangeDeletesOnlyClipRestoredDatabases() {
        // Flink 1.20 renamed the clipping method and may drop whole SST files first
        // (state.backend.rocksdb.rescaling.use-delete-files-in-range).
        Set<String> clipping =
                set(
                        "RocksDBIncrementalCheckpointUtils.deleteRange",
                        "RocksDBIncrementalCheckpointUtils.deleteRangeData");
        assertThat(callersOf("RocksDB.deleteRange")).hasSize(1).isSubsetOf(clipping);
        assertThat(callersOf("RocksDB.deleteFilesInRanges")).isSubsetOf(clipping);
        assertThat(callersOf("WriteBatch.deleteRange")).isEmpty();
    }

    /** Features Flink 1.16 never uses, so no tuning can interact with them. */
    @Test
    void singleDeletesExternalFilesAndSeekModesAreNeverUsed() {
        for (String unused :
                new String[] {
                    "RocksDB.singleDelete",
                    "WriteBatch.singleDelete",
                    "RocksDB.ingestExternalFile",
                    "SstFileWriter.<init>",
                    "ReadOptions.setTotalOrderSeek",
                    "ReadOptions.setPrefixSameAsStart",
                    "ReadOptions.setIterateLowerBound",
                    "ReadOptions.setIterateUpperBound",
                    "ReadOptions.setAutoPrefixMode"
                }) {
            assertThat(callersOf(unused)).as(unused).isEmpty();
        }
    }

    /**
     * Iterators: every one is opened with Flink's read options (no total-order seek), so a scan
     * that starts with {@code seekToFirst} or a key-group seek misses a hash memtable's entries
     * (invariants 1 and 2: TunedKeyedBackendTest, TunedColumnFamilyInvariantsTest). A new opener
     * must be checked against those invariants. The priority-queue iterator runs on timer column
     * families, which Falcon never tunes.
     */
    @Test
    void iteratorsAreOpenedInKnownPlacesOnly() {
        assertThat(callersOf("RocksDB.newIterator"))
                .isEqualTo(
                        set(
                                "RocksDBOperationUtils.getRocksIterator",
                                "RocksDBFullSnapshotResources.createRocksIteratorWrapper",
                                "RocksDBCachingPriorityQueueSet.orderedBytesIterator"));
    }

    /**
     * Compaction: the TTL compaction filter is set on every TTL state's column family after
     * Falcon's options function (RocksDbFeaturesOnTunedColumnFamiliesTest compacts tuned TTL
     * states); {@code compactRange} only from Flink's test hook.
     */
    @Test
    void compactionFiltersComeFromTheTtlManagerOnly() {
        assertThat(callersOf("ColumnFamilyOptions.setCompactionFilterFactory"))
                .isEqualTo(set("RocksDbTtlCompactFiltersManager.createAndSetCompactFilterFactory"));
        assertThat(callersOf("RocksDB.compactRange"))
                .isEqualTo(set("RocksDBKeyedStateBackend.compactState"));
        // Flink 1.20's manual compaction (off unless
        // state.backend.rocksdb.manual-compaction.min-interval is set) merges whole SST files,
        // which keep their column family's table options; it never reads a memtable.
        assertThat(callersOf("RocksDB.compactFiles")).isSubsetOf(set("Compactor.<init>"));
    }

    /** Records every call to a method of an {@code org/rocksdb} class, by simple names. */
    private static final class CallRecorder extends ClassVisitor {
        private String className;

        CallRecorder() {
            super(Opcodes.ASM9);
        }

        @Override
        public void visit(
                int version,
                int access,
                String name,
                String signature,
                String superName,
                String[] interfaces) {
            className = name.substring(name.lastIndexOf('/') + 1);
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            String caller = outerClass(className) + "." + name;
            return new MethodVisitor(Opcodes.ASM9) {
                @Override
                public void visitMethodInsn(
                        int opcode, String owner, String method, String desc, boolean itf) {
                    record(owner, method);
                }

                /** Method references ({@code RocksDB::compactFiles}) are calls too. */
                @Override
                public void visitInvokeDynamicInsn(
                        String name, String desc, Handle bootstrap, Object... bootstrapArgs) {
                    for (Object arg : bootstrapArgs) {
                        if (arg instanceof Handle) {
                            record(((Handle) arg).getOwner(), ((Handle) arg).getName());
                        }
                    }
                }

                private void record(String owner, String method) {
                    if (owner.startsWith("org/rocksdb/")) {
                        String callee = owner.substring("org/rocksdb/".length()) + "." + method;
                        callSites.computeIfAbsent(callee, k -> new TreeSet<>()).add(caller);
                    }
                }
            };
        }

        /** Lambdas and inner classes count as their outer class; lambdas as the method itself. */
        private static String outerClass(String name) {
            int dollar = name.indexOf('$');
            return dollar < 0 ? name : name.substring(0, dollar);
        }
    }
}
