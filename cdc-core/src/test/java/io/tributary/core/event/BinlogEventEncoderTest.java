package io.tributary.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.shyiko.mysql.binlog.BinaryLogFileReader;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Round trip of what the encoder writes: a real shard binlog from the corpus is relayed into a global
 * binlog (renamed tables, new table ids, our GTIDs, checksums) and the result is read back by our
 * decoder, by mysql-binlog-connector-java and by {@code mariadb-binlog --verbose}, in both flavors.
 */
class BinlogEventEncoderTest {

    private static final UUID SERVER_UUID = UUID.fromString("3e11fa47-71ca-11e1-9e33-c80aa9429562");
    private static final String SOURCE = "mysql-8.0/pbs__data_80045_gtid_binlog.000001";
    private static final String MARIADB_SOURCE = "mariadb-10.x/rmc__mariadb-bin.000001";

    /** What one relayed file holds, for the assertions. */
    record Relayed(byte[] bytes, int transactions, int rowEvents, List<String> tables) { }

    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldWriteAFileOurDecoderReadsBackWithRenamedTablesNewIdsAndUnchangedRows(BinlogFlavor flavor) {
        for (String source : List.of(SOURCE, MARIADB_SOURCE)) {
            byte[] input = BinlogCorpus.read(BinlogCorpus.directory().resolve(source));
            Relayed out = relay(input, source, flavor);
            assertThat(out.transactions()).as("row transactions relayed from %s", source).isPositive();

            List<BinlogEvent> events = new ArrayList<>();
            new BinlogEventDecoder("relayed " + source, out.bytes()).forEachRemaining(events::add);
            FormatDescription fde = events.get(0).body(FormatDescription.class);
            assertThat(fde.serverVersion()).isEqualTo(flavor.serverVersion());
            assertThat(fde.checksumEnabled()).isTrue();
            assertThat(fde.isMariaDb()).isEqualTo(flavor.isMariaDb());
            assertThat(events).allSatisfy(e -> assertThat(e.header().serverId()).isEqualTo(7));
            List<TableMapEvent> maps = events.stream().filter(e -> e.type() == EventType.TABLE_MAP)
                    .map(e -> e.body(TableMapEvent.class)).toList();
            assertThat(maps).isNotEmpty().allSatisfy(m -> {
                assertThat(m.database()).startsWith("logical_");
                assertThat(m.tableId()).isGreaterThanOrEqualTo(1000);
            });
            assertThat(events.stream().filter(e -> isRows(e.type())).count()).isEqualTo(out.rowEvents());
            assertThat(sameRowImages(input, source, out.bytes())).as("row images relayed byte for byte").isTrue();
            if (flavor == BinlogFlavor.MYSQL) {
                List<String> gtids = events.stream().filter(e -> e.type() == EventType.GTID)
                        .map(e -> e.body(GtidEvent.class).gtid()).toList();
                assertThat(gtids).startsWith(SERVER_UUID + ":1", SERVER_UUID + ":2");
                // each GTID event's transaction_length covers exactly its transaction
                assertThat(transactionLengthsMatch(events)).isTrue();
            } else {
                assertThat(events.stream().filter(e -> e.type() == EventType.MARIA_GTID)
                        .map(e -> e.body(MariaGtidEvent.class).gtid()).toList()).startsWith("0-7-1", "0-7-2");
            }
            assertThat(events.get(events.size() - 1).type()).isEqualTo(EventType.ROTATE);
        }
    }

    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldWriteAFileMysqlBinlogConnectorJavaReads(BinlogFlavor flavor, @TempDir Path dir) throws IOException {
        byte[] input = BinlogCorpus.read(BinlogCorpus.directory().resolve(SOURCE));
        Relayed out = relay(input, SOURCE, flavor);
        Path file = dir.resolve("binlog.000001");
        Files.write(file, out.bytes());

        List<Event> events = new ArrayList<>();
        try (BinaryLogFileReader reader = new BinaryLogFileReader(file.toFile(), new EventDeserializer())) {
            for (Event e = reader.readEvent(); e != null; e = reader.readEvent()) {
                events.add(e);
            }
        }
        List<String> tables = new ArrayList<>();
        long rowEvents = 0;
        for (Event e : events) {
            EventData data = e.getData();
            if (data instanceof TableMapEventData t) {
                tables.add(t.getDatabase() + "." + t.getTable());
            }
            if (e.getHeader().getEventType().name().contains("ROWS")) {
                rowEvents++;
            }
        }
        assertThat(tables).isEqualTo(out.tables());
        assertThat(rowEvents).isEqualTo(out.rowEvents());
    }

    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldWriteAFileMariadbBinlogPrintsWithoutComplaint(BinlogFlavor flavor, @TempDir Path dir)
            throws IOException, InterruptedException {
        Path mariadbBinlog = Path.of("/usr/bin/mariadb-binlog");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(mariadbBinlog),
                "mariadb-binlog is not installed (.ci/run installs mariadb-client)");
        for (String source : List.of(SOURCE, MARIADB_SOURCE)) {
            Relayed out = relay(BinlogCorpus.read(BinlogCorpus.directory().resolve(source)), source, flavor);
            Path file = dir.resolve("binlog-" + flavor + ".000001");
            Files.write(file, out.bytes());
            Process p = new ProcessBuilder(mariadbBinlog.toString(), "--verbose", "--base64-output=decode-rows",
                    file.toString()).redirectErrorStream(true).start();
            String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("mariadb-binlog exit; it printed:%n%s", tail(printed)).isZero();
            assertThat(printed).doesNotContain("ERROR").doesNotContain("Warning");
            for (String table : out.tables()) {
                String[] dbTable = table.split("\\.", 2);
                assertThat(printed).contains("`" + dbTable[0] + "`.`" + dbTable[1] + "`");
            }
            assertThat(printed).contains("Rotate to binlog.000002");
        }
    }

    @Test
    void shouldSettleTheGtidTransactionLengthOnItsOwnSize() {
        for (long rest : new long[] {0, 100, 250 - 60, 65_000, 65_535 - 60, 1 << 24, 10L << 30}) {
            long total = BinlogEventEncoder.gtidTransactionLength(rest);
            assertThat(total).isEqualTo(rest + BinlogEventEncoder.gtidEventSize(total));
        }
    }

    @Test
    void shouldWriteTheLow32BitsOfLogPosPastFourGibibytesAndAValidChecksum() {
        BinlogEventEncoder enc = new BinlogEventEncoder(BinlogFlavor.MYSQL, 7);
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(BinlogEventDecoder.MAGIC);
        enc.formatDescription(out, 1_700_000_000L);
        FormatDescription fde = new BinlogEventDecoder("fde", ByteBufUtil.getBytes(out)).next().body(FormatDescription.class);
        long start = (5L << 30) + 123; // an event starting 5 GiB into a file
        ByteBuf xid = Unpooled.buffer();
        int length = enc.xid(xid, start, 1_700_000_000L, 42);
        byte[] bytes = ByteBufUtil.getBytes(xid);
        BinlogEvent e = BinlogEventDecoder.continuing("past 4 GiB", fde, start, bytes, 0, bytes.length, DecoderOptions.FULL)
                .next();
        assertThat(e.offset()).isEqualTo(start);
        assertThat(e.header().logPos()).as("log_pos = end offset mod 2^32, as MySQL and MariaDB write it")
                .isEqualTo((start + length) & 0xFFFF_FFFFL);
        assertThat(e.body(XidEvent.class).xid()).isEqualTo(42);
    }

    @Test
    void shouldRefuseToRelayACompressedRowsEvent() {
        byte[] input = BinlogCorpus.read(BinlogCorpus.directory().resolve(SOURCE));
        BinlogEvent fde = new BinlogEventDecoder("x", input).next();
        BinlogEventEncoder encoder = new BinlogEventEncoder(BinlogFlavor.MYSQL, 7);
        assertThatThrownBy(() -> encoder.rows(Unpooled.buffer(), 4, fde, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a relayable rows event: FORMAT_DESCRIPTION");
        assertThatThrownBy(() -> new BinlogEventEncoder(BinlogFlavor.MYSQL, 0))
                .hasMessage("Invalid value 0 for server id: must be 1 to 4294967295");
    }

    /**
     * Relays every row transaction of {@code input} into a new global binlog: GTID (+ BEGIN for MySQL),
     * table maps renamed to {@code logical_<db>.<table>} with ids from 1000, rows with those ids, XID;
     * then a rotate to {@code binlog.000002}.
     */
    static Relayed relay(byte[] input, String name, BinlogFlavor flavor) {
        BinlogEventEncoder enc = new BinlogEventEncoder(flavor, 7);
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(BinlogEventDecoder.MAGIC);
        enc.formatDescription(out, 1_700_000_000L);
        if (flavor.isMariaDb()) {
            enc.gtidList(out, out.writerIndex(), 1_700_000_000L, List.of());
        } else {
            enc.previousGtids(out, out.writerIndex(), 1_700_000_000L, List.of());
        }
        List<BinlogEvent> txn = new ArrayList<>();
        List<String> tables = new ArrayList<>();
        java.util.Map<Long, Long> ids = new java.util.HashMap<>();
        int transactions = 0;
        int rowEvents = 0;
        boolean inTxn = false;
        for (BinlogEventDecoder d = new BinlogEventDecoder(name, input); d.hasNext(); ) {
            BinlogEvent e = d.next();
            EventType t = e.type();
            if (t == EventType.GTID || t == EventType.ANONYMOUS_GTID || t == EventType.MARIA_GTID) {
                txn.clear();
                inTxn = true;
            } else if (inTxn && (t == EventType.TABLE_MAP || isRows(t))) {
                txn.add(e);
            } else if (inTxn && t == EventType.XID) {
                if (!txn.isEmpty()) {
                    transactions++;
                    long ts = e.header().timestamp();
                    ByteBuf rest = Unpooled.buffer();
                    long restStart = 0;
                    // first pass at a dummy position: only the length matters for transaction_length
                    writeBody(enc, rest, restStart, flavor, txn, ids, new ArrayList<>(), ts, transactions);
                    long length = BinlogEventEncoder.gtidTransactionLength(rest.readableBytes());
                    if (flavor.isMariaDb()) {
                        enc.mariaGtid(out, out.writerIndex(), ts, 0, transactions, BinlogEventEncoder.MARIA_FL_TRANSACTIONAL);
                    } else {
                        enc.gtid(out, out.writerIndex(), ts, SERVER_UUID, transactions, transactions - 1, transactions,
                                ts * 1_000_000, length);
                    }
                    rowEvents += writeBody(enc, out, out.writerIndex(), flavor, txn, ids, tables, ts, transactions);
                }
                inTxn = false;
            }
        }
        enc.rotate(out, out.writerIndex(), 1_700_000_000L, "binlog.000002", 4);
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return new Relayed(bytes, transactions, rowEvents, tables);
    }

    private static int writeBody(BinlogEventEncoder enc, ByteBuf out, long position, BinlogFlavor flavor,
                                 List<BinlogEvent> txn, java.util.Map<Long, Long> ids, List<String> tables, long ts,
                                 long xid) {
        long base = out.writerIndex() - position;
        int rows = 0;
        byte[] status = BinlogEventEncoder.standardStatusVariables(0, 45, 45, 45);
        if (!flavor.isMariaDb()) {
            enc.query(out, out.writerIndex() - base, ts, 1, 0, "", "BEGIN", status);
        }
        for (BinlogEvent e : txn) {
            if (e.type() == EventType.TABLE_MAP) {
                TableMapEvent m = e.body(TableMapEvent.class);
                long id = ids.computeIfAbsent(m.tableId(), k -> 1000L + ids.size());
                enc.tableMap(out, out.writerIndex() - base, e, id, "logical_" + m.database(), m.table());
                tables.add("logical_" + m.database() + "." + m.table());
            } else {
                enc.rows(out, out.writerIndex() - base, e, ids.get(e.body(RowsEvent.class).tableId()));
                rows++;
            }
        }
        enc.xid(out, out.writerIndex() - base, ts, xid);
        return rows;
    }

    private static boolean isRows(EventType t) {
        return t != null && switch (t) {
            case WRITE_ROWS_V1, UPDATE_ROWS_V1, DELETE_ROWS_V1, WRITE_ROWS_V2, UPDATE_ROWS_V2, DELETE_ROWS_V2 -> true;
            default -> false;
        };
    }

    /** The row images of the source's row events equal those of the relayed file, in order. */
    private static boolean sameRowImages(byte[] input, String name, byte[] relayed) {
        List<RowsEvent> a = new ArrayList<>();
        new BinlogEventDecoder(name, input).forEachRemaining(e -> {
            if (isRows(e.type())) {
                a.add(e.body(RowsEvent.class));
            }
        });
        List<RowsEvent> b = new ArrayList<>();
        new BinlogEventDecoder("relayed", relayed).forEachRemaining(e -> {
            if (isRows(e.type())) {
                b.add(e.body(RowsEvent.class));
            }
        });
        if (a.size() < b.size() || b.isEmpty()) {
            return false;
        }
        // rows outside XID-terminated transactions are not relayed, so compare the relayed ones as a subsequence
        int i = 0;
        for (RowsEvent r : b) {
            while (i < a.size() && !a.get(i).rows().equals(r.rows())) {
                i++;
            }
            if (i == a.size()) {
                return false;
            }
            i++;
        }
        return true;
    }

    private static boolean transactionLengthsMatch(List<BinlogEvent> events) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).type() != EventType.GTID) {
                continue;
            }
            long declared = events.get(i).body(GtidEvent.class).transactionLength();
            long actual = 0;
            for (int k = i; k < events.size(); k++) {
                actual += events.get(k).length();
                if (events.get(k).type() == EventType.XID) {
                    break;
                }
            }
            if (declared != actual) {
                return false;
            }
        }
        return true;
    }

    @ParameterizedTest
    @EnumSource(BinlogFlavor.class)
    void shouldRenameARepeatedTableMapBodyUnderWhateverIdAndNamesEachCallGives(BinlogFlavor flavor) {
        byte[] input = BinlogCorpus.read(BinlogCorpus.directory().resolve(MARIADB_SOURCE));
        BinlogEvent map = null;
        for (BinlogEventDecoder d = new BinlogEventDecoder(MARIADB_SOURCE, input); d.hasNext() && map == null; ) {
            BinlogEvent e = d.next();
            map = e.type() == EventType.TABLE_MAP ? e : null;
        }
        assertThat(map).as("a TABLE_MAP in %s", MARIADB_SOURCE).isNotNull();
        BinlogEventEncoder reused = new BinlogEventEncoder(flavor, 7);
        // the same decoded body again and again (as the merge path shares it), under changing ids and names
        long[] ids = {1000, 1000, 1001, 1000, 1000, 1000};
        String[] dbs = {"a", "a", "a", "b", "a", "a"};
        String[] tables = {"t", "t", "t", "t", "u", "t"};
        for (int i = 0; i < ids.length; i++) {
            byte[] cached = fileWith(flavor, reused, map, ids[i], dbs[i], tables[i]);
            byte[] fresh = fileWith(flavor, new BinlogEventEncoder(flavor, 7), map, ids[i], dbs[i], tables[i]);
            assertThat(cached).as("call %d: id %d, %s.%s", i, ids[i], dbs[i], tables[i]).isEqualTo(fresh);
            List<BinlogEvent> events = new ArrayList<>();
            new BinlogEventDecoder("renamed", cached).forEachRemaining(events::add);
            TableMapEvent renamed = events.get(1).body(TableMapEvent.class);
            assertThat(renamed.tableId()).isEqualTo(ids[i]);
            assertThat(renamed.database() + "." + renamed.table()).isEqualTo(dbs[i] + "." + tables[i]);
        }
    }

    /** A binlog of a format description and {@code map} renamed by {@code encoder}. */
    private static byte[] fileWith(BinlogFlavor flavor, BinlogEventEncoder encoder, BinlogEvent map, long id, String db,
                                   String table) {
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(BinlogEventDecoder.MAGIC);
        new BinlogEventEncoder(flavor, 7).formatDescription(out, 1_700_000_000L);
        encoder.tableMap(out, out.writerIndex(), map, id, db, table);
        return io.netty.buffer.ByteBufUtil.getBytes(out);
    }

    @Test
    void shouldReadARowsEventsTableIdFromItsPostHeaderWhenItsBodyIsNotDecoded() {
        for (String source : List.of(SOURCE, MARIADB_SOURCE)) {
            byte[] input = BinlogCorpus.read(BinlogCorpus.directory().resolve(source));
            List<BinlogEvent> full = new ArrayList<>();
            new BinlogEventDecoder(source, input).forEachRemaining(full::add);
            List<BinlogEvent> headers = new ArrayList<>();
            new BinlogEventDecoder(source, input, DecoderOptions.HEADERS_ONLY).forEachRemaining(headers::add);
            FormatDescription fde = full.get(0).body(FormatDescription.class);
            int rows = 0;
            for (int i = 0; i < full.size(); i++) {
                if (full.get(i).type() != null && full.get(i).type().isRows()) {
                    assertThat(RowsEvent.hasSixByteTableId(fde, full.get(i).header().typeCode())).isTrue();
                    assertThat(headers.get(i).body()).isNull();
                    assertThat(RowsEvent.tableIdOf(headers.get(i))).as("%s event %d", source, i)
                            .isEqualTo(full.get(i).body(RowsEvent.class).tableId());
                    rows++;
                }
            }
            assertThat(rows).as("rows events in %s", source).isPositive();
        }
    }

    private static String tail(String s) {
        return s.length() < 3000 ? s : s.substring(s.length() - 3000);
    }

}
