package io.tributary.core.framing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.QueryEvent;
import io.tributary.core.event.XaPrepareEvent;
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
 * The framer on real binlog files of the shared corpus ({@code <tributary.shared.dir>/testdata/binlog}), event by
 * event as a reader frames them, against what the full decoder reads from the same events. Skipped, saying so,
 * where the corpus is absent.
 */
class TransactionFramerCorpusTest {

    /** One event as framed: the decoded event, its boundary, and what the framer did. */
    record Framed(BinlogEvent event, Boundary boundary, FramerState after, boolean ended, boolean endedGtidGroup) {
    }

    static Path corpus() {
        String dir = System.getProperty("tributary.shared.dir");
        Path p = dir == null ? null : Path.of(dir, "testdata", "binlog");
        assumeTrue(p != null && Files.isDirectory(p), "binlog corpus not found at " + p + " (tributary.shared.dir); skipping");
        return p;
    }

    static Stream<Path> files() throws IOException {
        Path root = corpus();
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("mysql-5.6", "mysql-5.7", "mysql-8.0", "mysql-8.x-9.x", "mariadb-10.x", "mariadb-11.x")) {
            try (Stream<Path> s = Files.list(root.resolve(dir))) {
                s.filter(Files::isRegularFile).sorted().forEach(files::add);
            }
        }
        files.add(root.resolve("vendor/polardbx__mysql_bin.1"));
        return files.stream();
    }

    static List<Framed> frame(Path file) throws IOException {
        byte[] bytes;
        try (InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(file))
                : Files.newInputStream(file)) {
            bytes = in.readAllBytes();
        }
        List<BinlogEvent> events = new ArrayList<>();
        BinlogEventDecoder d = new BinlogEventDecoder(file.getFileName().toString(), bytes, DecoderOptions.FULL.withExpand(false));
        try {
            while (d.hasNext()) {
                events.add(d.next());
            }
        } catch (RuntimeException e) {
            // a file cut or spliced upstream (the vendor excerpt): frame the events before the damage
        }
        TransactionFramer framer = new TransactionFramer();
        List<Framed> framed = new ArrayList<>();
        for (BinlogEvent e : events) {
            Boundary b = framer.frame(Unpooled.wrappedBuffer(e.buffer(), e.bufferOffset(), e.length()), 0, e.originalTypeCode(),
                    e.length() - e.checksumLength());
            framed.add(new Framed(e, b, framer.state(), framer.ended(), framer.endedGtidGroup()));
        }
        return framed;
    }

    @ParameterizedTest
    @MethodSource("files")
    void shouldFindWhatTheDecoderReadsAndEndEveryGtidGroup(Path file) throws IOException {
        List<Framed> framed = frame(file);
        String name = file.getFileName().toString();
        assertThat(framed).as("events in %s", name).isNotEmpty();
        int gtids = 0;
        int gtidEnds = 0;
        for (Framed f : framed) {
            BinlogEvent e = f.event();
            String at = name + " at " + e.offset();
            if (e.originalTypeCode() == EventType.QUERY.code() && e.body() instanceof QueryEvent q) {
                assertThat(f.boundary()).as("query %s: %s", at, q.sql()).isEqualTo(TransactionFramer.statement(q.sql()));
            } else if (e.body() instanceof MariaGtidEvent g) {
                assertThat(f.boundary()).as("MariaDB GTID %s, flags %s", at, g.flags()).isEqualTo(
                        (g.flags() & MariaGtidEvent.FL_STANDALONE) != 0 ? Boundary.MARIADB_GTID_STANDALONE : Boundary.MARIADB_GTID);
            } else if (e.body() instanceof XaPrepareEvent p) {
                assertThat(f.boundary()).as("XA_PREPARE %s", at)
                        .isEqualTo(p.onePhase() ? Boundary.XA_PREPARE_ONE_PHASE : Boundary.XA_PREPARE);
            } else if (e.type() == EventType.XID) {
                assertThat(f.boundary()).isEqualTo(Boundary.XID);
                assertThat(f.ended()).as("XID ends a transaction %s", at).isTrue();
            } else if (e.type() == EventType.GTID || e.type() == EventType.GTID_TAGGED) {
                assertThat(f.boundary()).isEqualTo(Boundary.GTID);
            } else if (e.type() == EventType.TABLE_MAP || e.type() != null && e.type().isRows()) {
                assertThat(f.boundary()).as("event %s of type %s", at, e.type()).isEqualTo(Boundary.ROW_DATA);
                assertThat(f.after()).as("rows are inside a transaction %s", at).isIn(FramerState.GROUP, FramerState.BEGUN);
            } else if (e.type() == EventType.TRANSACTION_PAYLOAD) {
                assertThat(f.boundary()).isEqualTo(Boundary.TRANSACTION_PAYLOAD);
            } else if (e.type() != EventType.ANONYMOUS_GTID) {
                assertThat(f.boundary()).as("event %s of type %s", at, e.type()).isEqualTo(Boundary.OTHER);
            }
            if (f.boundary() == Boundary.GTID || f.boundary() == Boundary.MARIADB_GTID || f.boundary() == Boundary.MARIADB_GTID_STANDALONE) {
                gtids++;
                assertThat(f.after()).as("state after the GTID %s", at).isIn(FramerState.GROUP, FramerState.BEGUN);
            }
            if (f.endedGtidGroup()) {
                gtidEnds++;
                assertThat(f.after()).isEqualTo(FramerState.OUTSIDE);
            }
        }
        // every GTID group ends, but for the last one of a file cut inside it
        assertThat(gtidEnds).as("GTID groups ended in %s", name).isBetween(gtids - 1, gtids);
    }

    @Test
    void shouldFrameMySqlGtidBeginRowsXid() throws IOException {
        List<Framed> framed = frame(corpus().resolve("mysql-5.7/boxercrab__16_xid.log.bin"));
        int i = -1;
        for (int k = 0; k + 1 < framed.size() && i < 0; k++) {
            if (framed.get(k).boundary() == Boundary.GTID && framed.get(k + 1).boundary() == Boundary.BEGIN) {
                i = k;
            }
        }
        assertThat(i).as("a GTID event followed by BEGIN").isNotNegative();
        List<Boundary> group = new ArrayList<>();
        for (int k = i; k < framed.size(); k++) {
            group.add(framed.get(k).boundary());
            if (framed.get(k).ended()) {
                break;
            }
        }
        assertThat(framed.get(i).after()).isEqualTo(FramerState.GROUP);
        assertThat(group.get(1)).as("the query after the GTID").isEqualTo(Boundary.BEGIN);
        assertThat(framed.get(i + 1).after()).isEqualTo(FramerState.BEGUN);
        assertThat(group).as("GTID, BEGIN, table map and rows, XID").startsWith(Boundary.GTID, Boundary.BEGIN)
                .endsWith(Boundary.XID).contains(Boundary.ROW_DATA);
        assertThat(framed.get(i + group.size() - 1).endedGtidGroup()).isTrue();
    }

    @Test
    void shouldEndAMariaDbStandaloneGroupAtItsDdl() throws IOException {
        List<Framed> framed = frame(corpus().resolve("mariadb-10.x/tiflow__mariadb-mysql-bin.000001"));
        int i = indexOf(framed, Boundary.MARIADB_GTID_STANDALONE);
        assertThat(i).as("a standalone MariaDB GTID").isNotNegative();
        assertThat(framed.get(i).after()).isEqualTo(FramerState.GROUP);
        Framed ddl = framed.get(i + 1);
        assertThat(ddl.boundary()).isEqualTo(Boundary.STATEMENT);
        assertThat(ddl.ended()).isTrue();
        assertThat(ddl.endedGtidGroup()).isTrue();
        int j = indexOf(framed, Boundary.MARIADB_GTID);
        assertThat(j).as("a MariaDB GTID of a transaction").isNotNegative();
        assertThat(framed.get(j).after()).as("a transaction only XID or COMMIT ends").isEqualTo(FramerState.BEGUN);
    }

    /**
     * AliSQL's XA_PREPARE (the corpus' only one) carries the one-phase flag: {@code XA START}, rows, {@code XA END},
     * then XA_PREPARE for {@code XA COMMIT ... ONE PHASE}. Walked by its headers, the way a reader sees it: the
     * decoder stops at the vendor events (types 80 and 101) before it.
     */
    @Test
    void shouldEndAOnePhaseXaTransactionAtARealXaPrepare() throws IOException {
        byte[] bytes = Files.readAllBytes(corpus().resolve("vendor/polardbx__mysql_bin.1"));
        TransactionFramer framer = new TransactionFramer();
        List<Boundary> seen = new ArrayList<>();
        var buf = Unpooled.wrappedBuffer(bytes);
        for (int offset = 4; offset + 19 <= bytes.length; ) {
            int size = (int) buf.getUnsignedIntLE(offset + 9);
            if (size < 19 || offset + size > bytes.length) {
                break;
            }
            Boundary b = framer.frame(buf, offset, buf.getUnsignedByte(offset + 4), size - 4); // CRC32 trailer
            seen.add(b);
            if (b == Boundary.XA_START) {
                assertThat(framer.state()).isEqualTo(FramerState.BEGUN);
            }
            if (b == Boundary.XA_END) {
                assertThat(framer.ended()).as("XA END inside its XA START ends nothing").isFalse();
            }
            if (b == Boundary.XA_PREPARE_ONE_PHASE) {
                assertThat(framer.ended()).isTrue();
                assertThat(framer.endedGtidGroup()).as("no GTID event opened it").isFalse();
                assertThat(framer.state()).isEqualTo(FramerState.OUTSIDE);
            }
            offset += size;
        }
        assertThat(seen).containsSubsequence(Boundary.OTHER, Boundary.XA_START, Boundary.XA_END, Boundary.XA_PREPARE_ONE_PHASE);
    }

    @Test
    void shouldEndACompressedTransactionAtItsPayload() throws IOException {
        List<Framed> framed = frame(corpus().resolve("mysql-8.0/ape__mysql-bin.000057"));
        int i = indexOf(framed, Boundary.TRANSACTION_PAYLOAD);
        assertThat(i).as("a TRANSACTION_PAYLOAD").isPositive();
        assertThat(framed.get(i - 1).boundary()).isEqualTo(Boundary.GTID);
        assertThat(framed.get(i).endedGtidGroup()).isTrue();
    }

    private static int indexOf(List<Framed> framed, Boundary b) {
        for (int i = 0; i < framed.size(); i++) {
            if (framed.get(i).boundary() == b) {
                return i;
            }
        }
        return -1;
    }
}
