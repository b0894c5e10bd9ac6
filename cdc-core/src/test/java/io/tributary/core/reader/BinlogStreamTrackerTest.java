package io.tributary.core.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.Unpooled;
import io.tributary.core.position.ShardPosition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Feeds real binlog files from the shared corpus through the tracker, event by event, the way a
 * dump stream delivers them, and checks positions, transaction ends and GTID tracking.
 */
class BinlogStreamTrackerTest {

    static Path corpus() {
        String dir = System.getProperty("tributary.shared.dir");
        Path p = dir == null ? null : Path.of(dir, "testdata", "binlog");
        assumeTrue(p != null && Files.isDirectory(p), "binlog corpus not found at " + p + " (tributary.shared.dir); skipping");
        return p;
    }

    static Stream<Path> checksummedFiles() throws IOException {
        Path root = corpus();
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("mysql-5.6", "mysql-5.7", "mysql-8.0", "mysql-8.x-9.x", "mariadb-10.x", "mariadb-11.x")) {
            try (Stream<Path> s = Files.list(root.resolve(dir))) {
                s.filter(Files::isRegularFile).sorted().forEach(files::add);
            }
        }
        return files.stream();
    }

    static byte[] read(Path p) throws IOException {
        try (InputStream in = p.toString().endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(p)) : Files.newInputStream(p)) {
            return in.readAllBytes();
        }
    }

    /** Runs every event of {@code bytes} through a tracker, as a dump stream from offset 4 would. */
    static List<ShardEvent> replay(BinlogStreamTracker tracker, byte[] bytes) {
        List<ShardEvent> events = new ArrayList<>();
        int offset = 4;
        while (offset + 19 <= bytes.length) {
            int size = (int) Unpooled.wrappedBuffer(bytes, offset + 9, 4).getUnsignedIntLE(0);
            if (size < 19 || offset + size > bytes.length) {
                break;
            }
            ShardEvent e = tracker.accept(Unpooled.copiedBuffer(bytes, offset, size));
            e.release();
            events.add(e);
            offset += size;
        }
        return events;
    }

    @ParameterizedTest
    @MethodSource("checksummedFiles")
    void shouldTrackPositionsAndTransactionEndsThroughRealFiles(Path file) throws IOException {
        byte[] bytes = read(file);
        boolean mariaDb = file.getParent().getFileName().toString().startsWith("mariadb");
        String name = file.getFileName().toString();
        BinlogStreamTracker tracker = new BinlogStreamTracker("corpus", mariaDb, new ShardPosition(name, 4, ""));
        List<ShardEvent> events = replay(tracker, bytes);
        assertThat(events).as("events in %s", name).isNotEmpty();
        long offset = 4;
        int gtids = 0;
        int ends = 0;
        for (ShardEvent e : events) {
            offset += e.eventSize();
            if (e.logPos() == offset && e.type() != BinlogStreamTracker.ROTATE) {
                assertThat(e.position().position()).as("position after the event ending at %d in %s", offset, name).isEqualTo(offset);
            }
            if (e.type() == BinlogStreamTracker.GTID || e.type() == BinlogStreamTracker.MARIADB_GTID) {
                gtids++;
            }
            if (e.transactionEnd()) {
                ends++;
                assertThat(e.restartPosition()).as("restart position at a transaction end in %s", name).isEqualTo(e.position());
            }
            // the restart position never points into a transaction: it is always where some event ended
            if (e.restartPosition().file().equals(e.position().file())) {
                assertThat(e.restartPosition().position()).as("restart position in %s", name)
                        .isLessThanOrEqualTo(e.position().position());
            }
            if (e.type() == BinlogStreamTracker.XID) {
                assertThat(e.transactionEnd()).as("XID ends a transaction at %d in %s", offset, name).isTrue();
            }
        }
        assertThat(ends).as("transaction ends in %s", name).isGreaterThanOrEqualTo(gtids);
        if (gtids > 0) {
            assertThat(tracker.restart().gtidSet()).as("GTID set after %s", name).isNotEmpty();
        }
    }

    @Test
    void shouldCollectMariaDbGtidsPerDomain() throws IOException {
        Path dir = corpus().resolve("mariadb-10.x");
        int checked = 0;
        try (Stream<Path> s = Files.list(dir)) {
            for (Path file : s.sorted().toList()) {
                BinlogStreamTracker tracker = new BinlogStreamTracker("corpus", true, new ShardPosition(file.getFileName().toString(), 4, ""));
                byte[] b = read(file);
                List<ShardEvent> events = replay(tracker, b);
                String lastGtid = null;
                long offset = 4;
                for (ShardEvent e : events) {
                    offset += e.eventSize();
                    if (e.type() == BinlogStreamTracker.MARIADB_GTID) {
                        // read the GTID straight from the file bytes: sequence 8 at body offset 0, domain 4 at 8
                        var buf = Unpooled.wrappedBuffer(b, (int) (offset - e.eventSize()), (int) e.eventSize());
                        lastGtid = buf.getUnsignedIntLE(27) + "-" + e.serverId() + "-" + buf.getLongLE(19);
                    }
                }
                if (lastGtid != null && !tracker.restart().gtidSet().contains(",")) {
                    assertThat(tracker.restart().gtidSet()).as("GTID position after %s", file.getFileName()).isEqualTo(lastGtid);
                    checked++;
                }
            }
        }
        assertThat(checked).as("MariaDB files with GTIDs in one domain").isPositive();
    }

    @Test
    void shouldStopAtAFlippedByteWithFilePositionAndBothChecksums() throws IOException {
        Path file;
        try (Stream<Path> s = Files.list(corpus().resolve("mariadb-10.x"))) {
            file = s.sorted().findFirst().orElseThrow();
        }
        byte[] bytes = read(file);
        int fdeSize = (int) Unpooled.wrappedBuffer(bytes, 4 + 9, 4).getUnsignedIntLE(0);
        int second = 4 + fdeSize;
        bytes[second + 19] ^= 0x40;
        String name = file.getFileName().toString();
        BinlogStreamTracker tracker = new BinlogStreamTracker("s0", true, ShardPosition.at(name, 4));
        tracker.accept(Unpooled.copiedBuffer(bytes, 4, fdeSize)).release();
        int size = (int) Unpooled.wrappedBuffer(bytes, second + 9, 4).getUnsignedIntLE(0);
        var corrupt = Unpooled.copiedBuffer(bytes, second, size);
        assertThatThrownBy(() -> tracker.accept(corrupt))
                .isInstanceOf(CorruptShardEventException.class)
                .hasMessageStartingWith("shard s0: corrupt event at " + name + ":" + second + ": event type " + (bytes[second + 4] & 0xFF)
                        + " of " + size + " bytes: CRC32 mismatch, stored 0x")
                .hasMessageContaining(", computed 0x");
        assertThat(corrupt.refCnt()).as("the corrupt event is released").isZero();
    }

    @Test
    void shouldFollowAFilePastFourGibibytesWhereLogPosWraps() {
        long start = (1L << 32) - 2_500;
        BinlogStreamTracker tracker = new BinlogStreamTracker("s0", true, ShardPosition.at("shard-bin.000003", start));
        long end = start;
        for (int i = 0; i < 6; i++) {
            byte[] rows = new byte[1_000];
            rows[4] = 30; // WRITE_ROWS_V2: only its header matters here
            end += rows.length;
            Unpooled.wrappedBuffer(rows).setIntLE(9, rows.length).setIntLE(13, (int) end); // log_pos = end mod 2^32
            ShardEvent e = tracker.accept(Unpooled.wrappedBuffer(rows));
            assertThat(e.position().position()).as("position after event %d (log_pos %d)", i, e.logPos()).isEqualTo(end);
        }
        assertThat(end).isGreaterThan(1L << 32);
    }

    @Test
    void shouldRefuseAnEventWhoseSizeDisagreesWithThePacket() {
        byte[] header = new byte[19];
        header[4] = 2;
        header[9] = 100;
        BinlogStreamTracker tracker = new BinlogStreamTracker("s0", false, ShardPosition.at("binlog.000007", 1234));
        assertThatThrownBy(() -> tracker.accept(Unpooled.wrappedBuffer(header)))
                .isInstanceOf(CorruptShardEventException.class)
                .hasMessage("shard s0: corrupt event at binlog.000007:1234: event type 2 declares event_size 100 but the packet holds 19 bytes");
    }
}
