package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.event.GtidEvent;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.sorter.HeldTransaction;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import io.tributary.storage.buffer.RowsEventTemplate;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One transaction of more than 4 GiB in the global binlog (issues #4, #8): it is written into one file, as
 * MySQL and MariaDB let a transaction carry a file past {@code max_binlog_size} and 4 GiB, with the low 32
 * bits of each event's end offset in {@code log_pos}; our tailing reader and {@code mariadb-binlog} read the
 * whole file back; the rotation follows the transaction; a COM_BINLOG_DUMP position that may also mean
 * itself + 4 GiB is refused; and a writer killed in the middle of such a transaction, past 4 GiB, recovers
 * to the checkpoint before it and continues.
 *
 * <p>Writes about 4.4 GB twice (deleted after each case), about 3 minutes on this project's shared 2-core machine:
 * it runs only with {@code -Dtributary.hugeBinlog=true} and reports itself skipped otherwise, e.g.
 * {@code ./mvnw -B -q -pl cdc-storage -am test -Dtest=HugeTransactionBinlogTest -Dtributary.hugeBinlog=true
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class HugeTransactionBinlogTest {

    private static final long FOUR_GIB = 1L << 32;
    /** Bytes of row events in the large transaction: past 4 GiB by 96 MiB. */
    private static final long HUGE_ROWS_BYTES = FOUR_GIB + (96L << 20);
    private static final int EVENT_BYTES = 4 << 20;
    /** Below the ids {@link SourceTransactions} gives (1000 and up). */
    private static final long TABLE_ID = 500;
    private static final Pattern AT = Pattern.compile("^# at (\\d+)$");
    private static final Pattern XID = Pattern.compile("\tXid = (\\d+)$");

    @TempDir
    Path dir;

    /** Per test, not per class: Surefire reports each case as skipped with this reason (a class-level abort shows 0 tests). */
    @BeforeEach
    void onlyWhenAsked() throws IOException {
        assumeTrue(Boolean.getBoolean("tributary.hugeBinlog"), "writes two binlog files of more than 4 GiB (~3 min):"
                + " runs only with -Dtributary.hugeBinlog=true");
        assumeTrue(!Boolean.getBoolean("tributary.largeTransactionJvm"), "runs in the default Surefire execution, not"
                + " again in the large-transactions one");
        long free = Files.getFileStore(Path.of(System.getProperty("java.io.tmpdir"))).getUsableSpace();
        assumeTrue(free > (12L << 30), "needs 12 GB free in java.io.tmpdir, has " + free);
    }

    private static BinlogConfig config(Path dir, BinlogFlavor flavor) {
        return BinlogConfig.parse(Map.of("binlog.dir", dir.toString(), "binlog.flavor", flavor.name().toLowerCase(),
                "binlog.file.size", "1GB", "binlog.sync", "commit", "binlog.server.id", "7"));
    }

    @Test
    void shouldWriteAndReadBackATransactionThatCarriesItsFilePastFourGibibytes() throws Exception {
        BinlogConfig config = config(dir, BinlogFlavor.MYSQL);
        Iterator<HeldTransaction> small = SourceTransactions.feed("shard-0", GlobalBinlogWriterTest.pool(BinlogFlavor.MYSQL));
        RowsEventTemplate template = RowsEventTemplate.load();
        long rowsEvents;
        Read read;
        long started = System.nanoTime();
        try (GlobalBinlogWriter w = GlobalBinlogWriterTest.open(config)) {
            assertThat(w.append(small.next())).isEqualTo(1);
            HugeTransaction huge = new HugeTransaction(template, HUGE_ROWS_BYTES, small.next().eventList(), Long.MAX_VALUE,
                    null);
            assertThat(w.append(huge)).isEqualTo(2);
            rowsEvents = huge.rowsEvents;
            assertThat(w.writtenPosition().file()).as("rotated after the transaction").isEqualTo("binlog.000002");
            assertThat(w.append(small.next())).isEqualTo(3);
            assertThat(w.durability().awaitSequence(3, Duration.ofMinutes(2))).isTrue();
            System.out.printf("wrote %d bytes in %.1f s%n", Files.size(dir.resolve("binlog.000001")),
                    (System.nanoTime() - started) / 1e9);

            read = readAll(w);
            assertThat(read.sequences).containsExactly(1L, 2L, 3L);
            assertThat(read.hugeRowsEvents).as("rows events of the large transaction").isEqualTo(rowsEvents + huge.tailRows);
            assertThat(read.hugeTailAt).as("offset of its real corpus events after the synthetic rows").isGreaterThan(FOUR_GIB);
            assertThat(read.hugeTransactionLength).as("GTID transaction_length of the large transaction")
                    .isEqualTo(read.hugeXidEnd - read.hugeGtidAt);
            assertThat(read.hugeXidEnd).isGreaterThan(FOUR_GIB).isEqualTo(Files.size(dir.resolve("binlog.000001"))
                    - read.rotateLength);

            long before4Gib = read.hugeGtidAt;
            assertThat(BinlogFileReader.fourBytePositionProblem(w, new BinlogPosition("binlog.000001", before4Gib)))
                    .as("a 4-byte position that may also mean itself + 4 GiB")
                    .hasValueSatisfying(m -> assertThat(m).contains("is ambiguous").contains("resume by GTID"));
            assertThat(BinlogFileReader.fourBytePositionProblem(w, new BinlogPosition("binlog.000001", 4))).isEmpty();
            assertThat(BinlogFileReader.fourBytePositionProblem(w, new BinlogPosition("binlog.000002", 4))).isEmpty();
            System.out.printf("read back in %.1f s%n", (System.nanoTime() - started) / 1e9);
        }

        // every event's header, without printing the 4 GiB of row data
        MariadbBinlog printed = mariadbBinlog(dir.resolve("binlog.000001"), List.of("--base64-output=decode-rows"));
        assertThat(printed.lastAt).as("offset of the last event mariadb-binlog printed (the ROTATE)").isEqualTo(read.hugeXidEnd);
        assertThat(printed.xids).as("XIDs mariadb-binlog printed (ours are the GTID sequence numbers)").containsExactly(1L, 2L);
        assertThat(printed.rowsEvents).as("rows events mariadb-binlog printed").isEqualTo(read.firstFileRowsEvents);
        assertThat(printed.lastRowsAt).as("offset of the last rows event mariadb-binlog printed").isGreaterThan(read.hugeTailAt);
        // decode the rows of what lies past 4 GiB (real corpus events), the XID and the ROTATE
        MariadbBinlog tail = mariadbBinlog(dir.resolve("binlog.000001"), List.of("--verbose",
                "--base64-output=decode-rows", "--start-position=" + read.hugeTailAt));
        assertThat(tail.text).contains("### INSERT INTO `logical_").contains("Xid = 2").contains("Rotate to binlog.000002")
                .doesNotContain("ERROR");
        System.out.printf("mariadb-binlog done at %.1f s%n", (System.nanoTime() - started) / 1e9);
    }

    @Test
    void shouldRecoverAfterAKillInTheMiddleOfATransactionPastFourGibibytes() throws Exception {
        RowsEventTemplate.load();
        SourceTransactions.corpus();
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(javaBin, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                "-Dtributary.shared.dir=" + System.getProperty("tributary.shared.dir"),
                CrashChild.class.getName(), dir.toString()).redirectErrorStream(true).start();
        CompletableFuture<String> past = new CompletableFuture<>();
        Thread drain = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (line.startsWith("PAST ")) {
                        past.complete(line);
                    }
                }
            } catch (IOException e) {
                // killed
            }
            past.complete("EXITED");
        }, "huge-crash-child-output");
        drain.start();
        String line = past.get(5, TimeUnit.MINUTES);
        assertThat(line).as("child wrote past 4 GiB inside the transaction").startsWith("PAST ");
        long sizeAtKill = Files.size(dir.resolve("binlog.000001"));
        assertThat(sizeAtKill).isGreaterThan(FOUR_GIB);
        Process kill = new ProcessBuilder("kill", "-9", Long.toString(p.pid())).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        drain.join(10_000);

        BinlogConfig config = config(dir, BinlogFlavor.MARIADB);
        RecoveredBinlog recovered = BinlogRecovery.recover(config);
        long checkpoint = Long.parseLong(line.substring("PAST ".length()).strip());
        assertThat(recovered.actions()).as("recovery actions")
                .anyMatch(a -> a.startsWith("truncated binlog.000001 from ") && a.contains(" to " + checkpoint + " bytes"));
        assertThat(Files.size(dir.resolve("binlog.000001"))).isEqualTo(checkpoint);
        Iterator<HeldTransaction> small = SourceTransactions.feed("shard-1", GlobalBinlogWriterTest.pool(BinlogFlavor.MARIADB));
        try (GlobalBinlogWriter w = GlobalBinlogWriter.open(config, recovered, Clock.systemUTC())) {
            assertThat(w.writtenPosition()).isEqualTo(new BinlogPosition("binlog.000001", checkpoint));
            assertThat(w.append(small.next())).as("the killed transaction's sequence number is used again").isEqualTo(2);
            assertThat(w.durability().awaitSequence(2, Duration.ofSeconds(30))).isTrue();
        }
        assertThat(BinlogDirectory.sequences(BinlogDirectory.read(dir))).containsExactly(1L, 2L);
    }

    /** What our tailing reader saw in binlog.000001 and binlog.000002. */
    private static final class Read {
        final List<Long> sequences = new ArrayList<>();
        long firstFileRowsEvents;
        long hugeRowsEvents;
        long hugeGtidAt;
        long hugeTransactionLength;
        long hugeXidEnd;
        long hugeTailAt;
        long rotateLength;
    }

    /** Every event up to the third transaction's XID, checking offsets are contiguous and log_pos their low 32 bits. */
    private static Read readAll(GlobalBinlogWriter w) throws Exception {
        Read read = new Read();
        long expected = BinlogFiles.FIRST_EVENT;
        String file = "binlog.000001";
        long sequence = 0;
        try (BinlogFileReader reader = BinlogFileReader.at(w, new BinlogPosition(file, BinlogFiles.FIRST_EVENT))) {
            while (true) {
                BinlogEvent e = reader.next(Duration.ofSeconds(30));
                assertThat(e).as("an event after %s:%d", file, expected).isNotNull();
                if (!reader.position().file().equals(file)) {
                    file = reader.position().file();
                    expected = BinlogFiles.FIRST_EVENT;
                }
                assertThat(e.offset()).as("offset in %s", file).isEqualTo(expected);
                expected += e.length();
                assertThat(e.header().logPos()).as("log_pos of the event ending at %s:%d", file, expected)
                        .isEqualTo(expected & 0xFFFF_FFFFL);
                if (e.type() == EventType.GTID) {
                    GtidEvent g = BinlogEventDecoder.continuing("gtid", reader.formatDescriptionEvent()
                            .body(FormatDescription.class), e.offset(), e.buffer(), e.bufferOffset(), e.length(),
                            DecoderOptions.FULL).next().body(GtidEvent.class);
                    sequence = g.gno();
                    read.sequences.add(sequence);
                    if (sequence == 2) {
                        read.hugeGtidAt = e.offset();
                        read.hugeTransactionLength = g.transactionLength();
                    }
                } else if (e.type() == EventType.TABLE_MAP && sequence == 2 && read.hugeRowsEvents > 0 && read.hugeTailAt == 0) {
                    read.hugeTailAt = e.offset();
                } else if (SourceTransactions.isRows(e.type())) {
                    read.firstFileRowsEvents += file.equals("binlog.000001") ? 1 : 0;
                    read.hugeRowsEvents += sequence == 2 ? 1 : 0;
                } else if (e.type() == EventType.XID && sequence == 2) {
                    read.hugeXidEnd = expected;
                } else if (e.type() == EventType.ROTATE) {
                    read.rotateLength = e.length();
                } else if (e.type() == EventType.XID && sequence == 3) {
                    return read;
                }
            }
        }
    }

    /** What {@code mariadb-binlog} printed: offsets, GTIDs, rows events; the text only for a short output. */
    private record MariadbBinlog(long lastAt, long lastRowsAt, long rowsEvents, List<Long> xids, String text) {
    }

    private static MariadbBinlog mariadbBinlog(Path file, List<String> options) throws Exception {
        Path tool = Path.of("/usr/bin/mariadb-binlog");
        assumeTrue(Files.isExecutable(tool), "mariadb-binlog is not installed (.ci/run installs mariadb-client)");
        List<String> command = new ArrayList<>();
        command.add(tool.toString());
        command.addAll(options);
        command.add(file.toString());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        long lastAt = -1;
        long at = -1;
        long lastRowsAt = -1;
        long rows = 0;
        List<Long> xids = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8), 1 << 20)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("# at ")) {
                    Matcher m = AT.matcher(line);
                    if (m.matches()) {
                        at = Long.parseLong(m.group(1));
                        lastAt = at;
                    }
                } else if (line.startsWith("#") && line.contains("end_log_pos")) {
                    if (line.contains("Write_rows")) {
                        rows++;
                        lastRowsAt = at;
                    } else {
                        Matcher m = XID.matcher(line);
                        if (m.find()) {
                            xids.add(Long.parseLong(m.group(1)));
                        }
                    }
                }
                if (text.length() < (1 << 20) && !line.startsWith("'") && !line.startsWith("BINLOG") && line.length() < 300) {
                    text.append(line).append('\n');
                }
            }
        }
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as("mariadb-binlog %s exit; it printed (start):%n%s", options,
                text.length() < 3000 ? text : text.substring(text.length() - 3000)).isZero();
        return new MariadbBinlog(lastAt, lastRowsAt, rows, xids, text.toString());
    }

    /**
     * A ROWS transaction of {@code rowsBytes} of 4 MB write-rows events made from the corpus template (generated
     * while the writer reads it), then {@code tail}: the table maps and rows of a real corpus transaction, which
     * {@code mariadb-binlog --verbose} decodes. After {@code pauseAfterBytes} it prints {@code pauseLine} and blocks
     * (the crash child).
     */
    static final class HugeTransaction implements GlobalTransaction {
        private final RowsEventTemplate template;
        private final long rowsBytes;
        private final List<GlobalEvent> tail;
        private final long pauseAfterBytes;
        private final String pauseLine;
        final long tailRows;
        long rowsEvents;

        HugeTransaction(RowsEventTemplate template, long rowsBytes, List<GlobalEvent> tail, long pauseAfterBytes,
                String pauseLine) {
            this.template = template;
            this.rowsBytes = rowsBytes;
            this.tail = tail;
            this.pauseAfterBytes = pauseAfterBytes;
            this.pauseLine = pauseLine;
            this.tailRows = tail.stream().filter(e -> e instanceof GlobalEvent.Rows).count();
        }

        @Override
        public Kind kind() {
            return Kind.ROWS;
        }

        @Override
        public long commitTimeMicros() {
            return 1_700_000_000_000_000L;
        }

        @Override
        public Iterator<GlobalEvent> events() {
            BinlogEvent rows = template.event(1, EVENT_BYTES, DecoderOptions.HEADERS_ONLY);
            Iterator<GlobalEvent> after = tail.iterator();
            return new Iterator<>() {
                private boolean mapDone;
                private long bytes;

                @Override
                public boolean hasNext() {
                    return bytes < rowsBytes || after.hasNext();
                }

                @Override
                public GlobalEvent next() {
                    if (!mapDone) {
                        mapDone = true;
                        return new GlobalEvent.TableMap(template.tableMap, TABLE_ID, "logical_big", "rows4g");
                    }
                    if (bytes >= rowsBytes) {
                        return after.next();
                    }
                    if (bytes >= pauseAfterBytes) {
                        System.out.println(pauseLine);
                        System.out.flush();
                        try {
                            Thread.sleep(Long.MAX_VALUE);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted while paused", e);
                        }
                    }
                    bytes += rows.length();
                    rowsEvents++;
                    return new GlobalEvent.Rows(rows, TABLE_ID);
                }
            };
        }

        @Override
        public List<ShardCheckpoint> checkpoints() {
            return List.of(ShardCheckpoint.at("shard-big", ShardPosition.at("shard-big-bin.000001", 4 + rowsBytes)));
        }

        @Override
        public String provenance() {
            return "shard-big rows4g";
        }
    }

    /**
     * The child JVM of the crash case: a small transaction (durable), then a large one that stops once the file
     * is past 4 GiB, printing {@code PAST <checkpoint position>}; the test kills it there.
     */
    public static final class CrashChild {
        private CrashChild() {
        }

        public static void main(String[] args) throws Exception {
            BinlogConfig config = config(Path.of(args[0]), BinlogFlavor.MARIADB);
            Iterator<HeldTransaction> small = SourceTransactions.feed("shard-0",
                    GlobalBinlogWriterTest.pool(BinlogFlavor.MARIADB));
            try (GlobalBinlogWriter w = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC())) {
                w.append(small.next());
                if (!w.durability().awaitSequence(1, Duration.ofSeconds(30))) {
                    throw new IllegalStateException("first transaction not durable");
                }
                long checkpoint = w.durability().current().position().position();
                w.append(new HugeTransaction(RowsEventTemplate.load(), HUGE_ROWS_BYTES, List.of(), FOUR_GIB + (16L << 20),
                        "PAST " + checkpoint));
            }
        }
    }
}
