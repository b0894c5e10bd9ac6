package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.shyiko.mysql.binlog.BinaryLogFileReader;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.EventType;
import io.tributary.core.event.GtidEvent;
import io.tributary.core.sorter.HeldTransaction;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import io.tributary.storage.checkpoint.BinlogCheckpoint;
import io.tributary.storage.checkpoint.CheckpointFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class GlobalBinlogWriterTest {

    static BinlogConfig config(Path dir, BinlogFlavor flavor, long fileSize, SyncPolicy sync) {
        return BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.flavor", flavor.name().toLowerCase(),
                "binlog.file.size", Long.toString(fileSize), "binlog.sync", sync.name().toLowerCase(),
                "binlog.server.id", "7", "binlog.io.retry.interval", "50ms"));
    }

    static GlobalBinlogWriter open(BinlogConfig config) throws IOException {
        return GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC());
    }

    static List<SourceTransactions.Source> pool(BinlogFlavor flavor) {
        List<SourceTransactions.Source> pool = new ArrayList<>(SourceTransactions.read(SourceTransactions.MYSQL_SOURCE));
        pool.addAll(SourceTransactions.read(SourceTransactions.MARIADB_SOURCE));
        return pool;
    }

    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldWriteFilesThatMariadbBinlogAndConnectorJavaRead(BinlogFlavor flavor, @TempDir Path dir) throws Exception {
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", pool(flavor));
        BinlogConfig config = config(dir, flavor, 1 << 20, SyncPolicy.COMMIT);
        int written = 0;
        try (GlobalBinlogWriter w = open(config)) {
            for (int i = 0; i < 40; i++) {
                w.append(feed.next());
                written++;
            }
            w.append(SourceTransactions.ddl("shard-1", "shard-1-bin.000001", 400, "logical_shop",
                    "ALTER TABLE orders ADD COLUMN note VARCHAR(20)"));
            written++;
            w.rotate();
            for (int i = 0; i < 40; i++) {
                w.append(feed.next());
                written++;
            }
            assertThat(w.durability().awaitSequence(written, Duration.ofSeconds(10))).isTrue();
        }
        Map<String, List<BinlogEvent>> files = BinlogDirectory.read(dir);
        assertThat(files.keySet()).containsExactly("binlog.000001", "binlog.000002");
        assertThat(BinlogIndex.read(dir)).containsExactly("binlog.000001", "binlog.000002");
        assertThat(BinlogDirectory.sequences(files)).hasSize(written)
                .isEqualTo(java.util.stream.LongStream.rangeClosed(1, written).boxed().toList());

        int gtids = 0;
        for (String name : files.keySet()) {
            Path file = dir.resolve(name);
            List<Event> events = new ArrayList<>();
            try (BinaryLogFileReader r = new BinaryLogFileReader(file.toFile(), new EventDeserializer())) {
                for (Event e = r.readEvent(); e != null; e = r.readEvent()) {
                    events.add(e);
                }
            }
            assertThat(events).hasSize(files.get(name).size());
            gtids += (int) events.stream().filter(e -> e.getData() instanceof GtidEventData
                    || e.getData() instanceof MariadbGtidEventData).count();
            assertThat(events).filteredOn(e -> e.getData() instanceof TableMapEventData)
                    .allSatisfy(e -> assertThat(((TableMapEventData) e.getData()).getDatabase()).startsWith("logical_"));
            String printed = mariadbBinlog(file);
            assertThat(printed).contains("`logical_").doesNotContain("ERROR").doesNotContain("Warning");
        }
        assertThat(gtids).isEqualTo(written);
        assertThat(mariadbBinlog(dir.resolve("binlog.000001"))).contains("ALTER TABLE orders ADD COLUMN note")
                .contains("Rotate to binlog.000002");
    }

    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldRotateAtTheFileSizeUnderLoadWithoutSplittingATransaction(BinlogFlavor flavor, @TempDir Path dir)
            throws Exception {
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", pool(flavor));
        BinlogConfig config = config(dir, flavor, 1 << 20, SyncPolicy.INTERVAL);
        long written = 0;
        try (GlobalBinlogWriter w = open(config)) {
            while (w.index().entries().size() < 5) {
                w.append(feed.next());
                written++;
            }
            assertThat(w.durability().awaitSequence(written, Duration.ofSeconds(10))).isTrue();
        }
        Map<String, List<BinlogEvent>> files = BinlogDirectory.read(dir);
        assertThat(BinlogIndex.read(dir)).containsExactlyElementsOf(files.keySet());
        assertThat(files).hasSize(5);
        long before = 0;
        int n = 0;
        for (Map.Entry<String, List<BinlogEvent>> f : files.entrySet()) {
            n++;
            List<BinlogEvent> events = f.getValue();
            assertThat(events.get(0).type()).isEqualTo(EventType.FORMAT_DESCRIPTION);
            assertThat(BinlogDirectory.previousSequence(events.get(1))).as("previous GTIDs of %s", f.getKey())
                    .isEqualTo(before);
            long size = Files.size(dir.resolve(f.getKey()));
            if (n < files.size()) {
                assertThat(events.get(events.size() - 1).type()).isEqualTo(EventType.ROTATE);
                assertThat(size).isGreaterThanOrEqualTo(1 << 20).isLessThan((1 << 20) + 64 * 1024);
            }
            // every transaction starts with its GTID and ends with XID in this file
            EventType last = events.get(1).type();
            for (int i = 2; i < events.size(); i++) {
                BinlogEvent e = events.get(i);
                long s = BinlogDirectory.sequence(e);
                if (s >= 0) {
                    assertThat(last).as("event before GTID %d in %s", s, f.getKey())
                            .isIn(EventType.XID, EventType.PREVIOUS_GTIDS, EventType.GTID_LIST, EventType.QUERY);
                    assertThat(s).isEqualTo(before + 1);
                    before = s;
                    if (e.type() == EventType.GTID) {
                        long length = e.body(GtidEvent.class).transactionLength();
                        long actual = 0;
                        int k = i;
                        do {
                            actual += events.get(k).length();
                        } while (events.get(k++).type() != EventType.XID);
                        assertThat(length).isEqualTo(actual);
                    }
                }
                last = e.type();
            }
            // every file ends after a whole transaction, with the ROTATE to the next or the STOP of the close
            assertThat(last).isEqualTo(n < files.size() ? EventType.ROTATE : EventType.STOP);
        }
        assertThat(before).isEqualTo(written);
    }

    /**
     * Transactions appended with {@code more} stay in the write buffer, unseen by the syncer, until flushed; then
     * the files hold exactly what one-by-one appends write (same events at the same positions, checksums valid),
     * and a transaction that fails while others are held loses none of them.
     */
    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldHoldTransactionsAppendedWithMoreUntilFlushedAndWriteTheSameEvents(BinlogFlavor flavor, @TempDir Path root)
            throws Exception {
        List<HeldTransaction> txns = new ArrayList<>();
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", pool(flavor));
        for (int i = 0; i < 120; i++) {
            txns.add(feed.next());
        }
        Path oneByOne = root.resolve("one-by-one");
        try (GlobalBinlogWriter w = open(config(oneByOne, flavor, 8 << 10, SyncPolicy.COMMIT))) {
            for (HeldTransaction t : txns) {
                w.append(t);
            }
            assertThat(w.durability().awaitSequence(txns.size(), Duration.ofSeconds(10))).isTrue();
        }
        Path held = root.resolve("held");
        try (GlobalBinlogWriter w = open(config(held, flavor, 8 << 10, SyncPolicy.COMMIT))) {
            BinlogPosition before = w.writtenPosition();
            for (int i = 0; i < 5; i++) {
                w.append(txns.get(i), true);
            }
            assertThat(w.writtenPosition()).as("nothing of held transactions is in the file").isEqualTo(before);
            assertThat(w.durability().awaitSequence(1, Duration.ofMillis(300))).as("held transactions are not published")
                    .isFalse();
            GlobalTransaction failing = new GlobalTransaction() {
                @Override
                public Kind kind() {
                    return Kind.ROWS;
                }

                @Override
                public long commitTimeMicros() {
                    return txns.get(5).commitTimeMicros();
                }

                @Override
                public Iterator<GlobalEvent> events() {
                    Iterator<GlobalEvent> events = txns.get(5).events();
                    return new Iterator<>() {
                        private int n;

                        @Override
                        public boolean hasNext() {
                            return true;
                        }

                        @Override
                        public GlobalEvent next() {
                            if (n++ == 1) {
                                throw new IllegalStateException("spill store read failed (test)");
                            }
                            return events.next();
                        }
                    };
                }

                @Override
                public List<io.tributary.core.position.ShardCheckpoint> checkpoints() {
                    return txns.get(5).checkpoints();
                }

                @Override
                public String provenance() {
                    return "failing";
                }
            };
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> w.append(failing, true))
                    .hasMessageContaining("spill store read failed");
            for (int i = 5; i < txns.size(); i++) {
                w.append(txns.get(i), i < txns.size() - 1);
            }
            assertThat(w.durability().awaitSequence(txns.size(), Duration.ofSeconds(10))).isTrue();
            assertThat(w.durability().current().position()).isEqualTo(w.writtenPosition());
        }
        Map<String, List<BinlogEvent>> expected = BinlogDirectory.read(oneByOne);
        Map<String, List<BinlogEvent>> actual = BinlogDirectory.read(held);
        assertThat(actual.keySet()).as("files (rotated at 8 KB)").isEqualTo(expected.keySet()).hasSizeGreaterThan(2);
        for (String file : expected.keySet()) {
            assertThat(layout(actual.get(file))).as(file).isEqualTo(layout(expected.get(file)));
        }
        assertThat(BinlogDirectory.sequences(actual)).isEqualTo(java.util.stream.LongStream.rangeClosed(1, txns.size())
                .boxed().toList());
    }

    /** Each event's type, end position and length: where every event of a file lies. */
    private static List<String> layout(List<BinlogEvent> events) {
        return events.stream().map(e -> e.type() + "@" + e.header().logPos() + "+" + e.length()).toList();
    }

    @Test
    void shouldPublishDurablePositionsOnlyAfterTheCheckpointNamesThem(@TempDir Path dir) throws Exception {
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", pool(BinlogFlavor.MYSQL));
        BinlogConfig config = config(dir, BinlogFlavor.MYSQL, 1 << 20, SyncPolicy.COMMIT);
        List<DurableMark> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        CheckpointFile checkpoints = new CheckpointFile(dir.resolve(BinlogFiles.CHECKPOINT_FILE), false);
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        try (GlobalBinlogWriter w = open(config)) {
            w.durability().addListener(m -> {
                seen.add(m);
                try {
                    BinlogCheckpoint cp = checkpoints.read().orElseThrow();
                    if (cp.lastSequence() < m.lastSequence() || !new BinlogPosition(cp.file(), cp.position()).equals(m.position())) {
                        problems.add("published " + m + " but the checkpoint says " + cp);
                    }
                } catch (IOException e) {
                    problems.add(e.toString());
                }
            });
            HeldTransaction last = null;
            for (int i = 0; i < 300; i++) {
                last = feed.next();
                w.append(last);
            }
            assertThat(w.durability().awaitSequence(300, Duration.ofSeconds(10))).isTrue();
            assertThat(w.durability().current().position()).isEqualTo(w.writtenPosition());
            BinlogCheckpoint cp = checkpoints.read().orElseThrow();
            assertThat(cp.lastSequence()).isEqualTo(300);
            assertThat(cp.shards().get("shard-0")).isEqualTo(last.checkpoints().get(0));
        }
        assertThat(problems).isEmpty();
        assertThat(seen).isNotEmpty();
        for (int i = 1; i < seen.size(); i++) {
            assertThat(seen.get(i).position()).isGreaterThan(seen.get(i - 1).position());
        }
        // group commit: transactions written during one fsync cycle are covered by the next one together
        assertThat(seen.size()).as("durable marks published for 300 transactions").isLessThan(300);
    }

    @Test
    void shouldSyncAtMostOncePerIntervalWithTheIntervalPolicy(@TempDir Path dir) throws Exception {
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", pool(BinlogFlavor.MYSQL));
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.sync", "interval",
                "binlog.sync.interval", "100ms"));
        java.util.concurrent.atomic.AtomicInteger publishes = new java.util.concurrent.atomic.AtomicInteger();
        try (GlobalBinlogWriter w = open(config)) {
            w.durability().addListener(m -> publishes.incrementAndGet());
            long started = System.nanoTime();
            for (int i = 0; i < 60; i++) {
                w.append(feed.next());
                Thread.sleep(10);
            }
            assertThat(w.durability().awaitSequence(60, Duration.ofSeconds(10))).isTrue();
            long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            assertThat(publishes.get()).as("durable marks in %d ms at one per 100 ms", elapsedMs)
                    .isBetween(2, (int) (elapsedMs / 100) + 2);
        }
    }

    @Test
    void shouldKeepTheServerUuidAndContinueTheGtidSequenceAcrossRestarts(@TempDir Path dir) throws Exception {
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", pool(BinlogFlavor.MYSQL));
        BinlogConfig config = config(dir, BinlogFlavor.MYSQL, 1 << 20, SyncPolicy.NONE);
        java.util.UUID first;
        try (GlobalBinlogWriter w = open(config)) {
            first = w.serverUuid();
            for (int i = 0; i < 10; i++) {
                w.append(feed.next());
            }
        }
        try (GlobalBinlogWriter w = open(config)) {
            assertThat(w.serverUuid()).isEqualTo(first);
            assertThat(w.append(feed.next())).isEqualTo(11);
        }
        Map<String, List<BinlogEvent>> files = BinlogDirectory.read(dir);
        assertThat(files).hasSize(1);
        assertThat(BinlogDirectory.sequences(files)).isEqualTo(java.util.stream.LongStream.rangeClosed(1, 11).boxed().toList());
        assertThat(files.get("binlog.000001")).filteredOn(e -> e.type() == EventType.GTID)
                .allSatisfy(e -> assertThat(e.body(GtidEvent.class).sid()).isEqualTo(first));
    }

    private static final String IN_USE_WARNING = "Warning: this binlog is either in use or was not closed properly";

    /**
     * The in-use flag and STOP as a server keeps them, checked with mariadb-binlog: while the writer runs
     * only the file being written reads as in use; a clean close ends the last file with a STOP and clears
     * its flag; a crash (here: a copy of the directory taken while the writer runs) leaves the flag set,
     * and recovery says which case it found. After the clean stop, the next start removes the STOP and
     * appends at the same position with the flag set again.
     */
    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldFlagOnlyTheFileInUseAndEndACleanStopWithStop(BinlogFlavor flavor, @TempDir Path root) throws Exception {
        Path dir = root.resolve("binlog");
        Path crashed = root.resolve("crashed");
        Iterator<HeldTransaction> feed = SourceTransactions.feed("shard-0", pool(flavor));
        BinlogConfig config = config(dir, flavor, 8192, SyncPolicy.COMMIT);
        long written = 0;
        try (GlobalBinlogWriter w = open(config)) {
            while (w.index().entries().size() < 3) {
                written = w.append(feed.next());
            }
            assertThat(w.durability().awaitSequence(written, Duration.ofSeconds(10))).isTrue();
            List<String> names = BinlogIndex.read(dir);
            for (String name : names) {
                boolean last = name.equals(names.get(names.size() - 1));
                assertThat(InUseFlag.isSet(dir.resolve(name))).as("in-use flag of %s while writing", name).isEqualTo(last);
                String printed = mariadbBinlog(dir.resolve(name));
                if (last) {
                    assertThat(printed).as("mariadb-binlog of the file being written").contains(IN_USE_WARNING);
                } else {
                    assertThat(printed).as("mariadb-binlog of rotated %s", name).doesNotContain(IN_USE_WARNING);
                }
            }
            // what a kill -9 leaves: the files as they are now, plus a torn half of a transaction
            copyBinlogDirectory(dir, crashed);
            String last = names.get(names.size() - 1);
            byte[] firstBytes = Files.readAllBytes(crashed.resolve(names.get(0)));
            Files.write(crashed.resolve(last), java.util.Arrays.copyOfRange(firstBytes, 300, 700),
                    java.nio.file.StandardOpenOption.APPEND);
        }
        List<String> names = BinlogIndex.read(dir);
        String last = names.get(names.size() - 1);
        List<BinlogEvent> events = BinlogDirectory.read(dir).get(last);
        BinlogEvent stop = events.get(events.size() - 1);
        assertThat(stop.type()).as("last event of %s after close", last).isEqualTo(EventType.STOP);
        for (String name : names) {
            assertThat(InUseFlag.isSet(dir.resolve(name))).as("in-use flag of %s after a clean close", name).isFalse();
            assertThat(mariadbBinlog(dir.resolve(name))).as("mariadb-binlog of %s after a clean close", name)
                    .doesNotContain(IN_USE_WARNING);
        }
        assertThat(mariadbBinlog(dir.resolve(last))).contains("\tStop");

        RecoveredBinlog afterCrash = BinlogRecovery.recover(config(crashed, flavor, 8192, SyncPolicy.COMMIT));
        assertThat(afterCrash.actions()).as("recovery after the crash")
                .anyMatch(a -> a.startsWith("truncated " + last) && a.contains("in-use flag set: the writer crashed"));
        assertThat(afterCrash.nextSequence()).isEqualTo(written + 1);

        RecoveredBinlog afterStop = BinlogRecovery.recover(config);
        assertThat(afterStop.actions()).as("recovery after the clean stop")
                .anyMatch(a -> a.equals(last + " was closed cleanly (STOP at " + stop.offset() + ", in-use flag clear):"
                        + " removed the STOP to append after it"))
                .noneMatch(a -> a.startsWith("truncated "));
        try (GlobalBinlogWriter w = GlobalBinlogWriter.open(config, afterStop, Clock.systemUTC())) {
            assertThat(w.writtenPosition()).isEqualTo(new BinlogPosition(last, stop.offset()));
            assertThat(InUseFlag.isSet(dir.resolve(last))).as("in-use flag once writing again").isTrue();
            assertThat(w.append(feed.next())).isEqualTo(written + 1);
        }
        assertThat(BinlogDirectory.sequences(BinlogDirectory.read(dir)))
                .isEqualTo(java.util.stream.LongStream.rangeClosed(1, written + 1).boxed().toList());
    }

    private static void copyBinlogDirectory(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (var list = Files.list(from)) {
            for (Path p : list.toList()) {
                if (Files.isRegularFile(p)) {
                    Files.copy(p, to.resolve(p.getFileName()));
                }
            }
        }
    }

    static String mariadbBinlog(Path file) throws IOException, InterruptedException {
        Path tool = Path.of("/usr/bin/mariadb-binlog");
        Assumptions.assumeTrue(Files.isExecutable(tool), "mariadb-binlog is not installed (.ci/run installs mariadb-client)");
        Process p = new ProcessBuilder(tool.toString(), "--verbose", "--base64-output=decode-rows", file.toString())
                .redirectErrorStream(true).start();
        String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("mariadb-binlog exit for %s; it printed:%n%s", file,
                printed.length() < 3000 ? printed : printed.substring(printed.length() - 3000)).isZero();
        return printed;
    }
}
