package io.tributary.core.event;

import static io.tributary.core.event.BinlogEventDecoderTest.decodeAll;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Decoded fields of real events equal what the corpus' upstream tests and SOURCES.md document for them
 * (tagged GTIDs, previous-GTID sets, payload contents, optional metadata, XA ids).
 */
class EventBodyDecodingTest {

    private static List<BinlogEvent> events(String file) {
        return decodeAll(file, BinlogCorpus.read(file), DecoderOptions.FULL);
    }

    private static <T extends EventBody> List<T> bodies(List<BinlogEvent> events, Class<T> type) {
        return events.stream().filter(e -> type.isInstance(e.body())).map(e -> type.cast(e.body())).toList();
    }

    @Test
    void taggedGtidAndTaggedPreviousGtidsOfMysql96() {
        List<BinlogEvent> events = events("mysql-8.x-9.x/rmc__binlog_transaction_with_GTID_TAG.000001");
        UUID uuid = UUID.fromString("55778904-0299-11f1-b1b8-4ef0c4956feb");

        GtidEvent gtid = bodies(events, GtidEvent.class).get(0);
        assertThat(gtid.sid()).isEqualTo(uuid);
        assertThat(gtid.tag()).isEqualTo("mytag");
        assertThat(gtid.gno()).isEqualTo(3);
        assertThat(gtid.gtid()).isEqualTo(uuid + ":mytag:3");
        assertThat(gtid.immediateServerVersion()).isEqualTo(90600);
        assertThat(gtid.originalCommitTimestamp()).isEqualTo(gtid.immediateCommitTimestamp()).isPositive();

        PreviousGtidsEvent previous = bodies(events, PreviousGtidsEvent.class).get(0);
        assertThat(previous.sets()).containsExactly(
                new PreviousGtidsEvent.SidIntervals(uuid, "", List.of(new PreviousGtidsEvent.Interval(1, 14))),
                new PreviousGtidsEvent.SidIntervals(uuid, "mytag", List.of(new PreviousGtidsEvent.Interval(1, 3))));
        assertThat(previous.gtidSet()).isEqualTo(uuid + ":1-13," + uuid + ":mytag:1-2");
    }

    @Test
    void untaggedPreviousGtidsOfMysql80() {
        PreviousGtidsEvent previous = bodies(events("mysql-8.0/rmc__binlog_transaction_previous_GTID_no_tag.000001"),
                PreviousGtidsEvent.class).get(0);
        assertThat(previous.gtidSet()).isEqualTo("b9b88c66-0755-11f1-9899-4a9da94c4d71:1-2");
    }

    @Test
    void transactionPayloadYieldsItsInnerEventsInOrderInPlaceOfThePayload() {
        List<BinlogEvent> events = events("mysql-8.0/rmc__transaction_compression.000001");
        List<BinlogEvent> inner = events.stream().filter(BinlogEvent::isFromPayload).toList();
        assertThat(inner).extracting(BinlogEvent::type)
                .containsExactly(EventType.QUERY, EventType.TABLE_MAP, EventType.WRITE_ROWS_V2, EventType.XID);
        assertThat(inner).allSatisfy(e -> {
            assertThat(e.header().logPos()).isZero();
            assertThat(e.offset()).isEqualTo(inner.get(0).offset());
        });
        assertThat(inner.get(3).innerOffset() + inner.get(3).length()).isEqualTo(179);
        assertThat(events.indexOf(inner.get(0))).isEqualTo(events.indexOf(events.stream()
                .filter(e -> e.type() == EventType.ANONYMOUS_GTID).findFirst().orElseThrow()) + 1);
        TableMapEvent map = inner.get(1).body(TableMapEvent.class);
        RowsEvent rows = inner.get(2).body(RowsEvent.class);
        assertThat(rows.tableId()).isEqualTo(map.tableId());
        assertThat(rows.columnCount()).isEqualTo(map.columnCount());
    }

    @Test
    void mariaDbTableMapCarriesFullOptionalMetadata() {
        List<BinlogEvent> events = events("mariadb-10.x/rmc__mariadb-bin.000001");
        TableMapEvent map = bodies(events, TableMapEvent.class).get(0);
        assertThat(map.database()).isEqualTo("toddy_test");
        assertThat(map.table()).isEqualTo("outbox");
        TableMapOptionalMetadata meta = map.optional();
        assertThat(meta.columnNames()).containsExactly("id", "topic", "event_type", "event", "created");
        int eventType = meta.columnNames().indexOf("event_type");
        assertThat(map.realType(eventType)).isEqualTo(ColumnType.ENUM);
        // The annotated statement inserts 'JSON' into event_type: the ENUM must admit it.
        String annotated = bodies(events, RowsQueryEvent.class).get(0).query();
        assertThat(annotated).contains("'JSON'");
        assertThat(meta.enumValues().get(eventType)).contains("JSON");
        assertThat(meta.primaryKey()).containsExactly(new TableMapOptionalMetadata.PrimaryKeyPart(0, 0));
        assertThat(meta.columnCharsets()).containsKey(meta.columnNames().indexOf("topic"));
    }

    @Test
    void vectorDimensionsOfMysql9() {
        List<TableMapEvent> maps = bodies(events("mysql-8.x-9.x/rmc__vector.binlog"), TableMapEvent.class);
        Map<String, List<Integer>> dims = new java.util.HashMap<>();
        for (TableMapEvent m : maps) {
            dims.put(m.table(), m.optional().vectorDimensions().entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .map(Map.Entry::getValue).toList());
        }
        assertThat(dims).containsEntry("foo", List.of(3)).containsEntry("bar", List.of(2, 4));
    }

    @Test
    void enumAndSetValuesAreKeyedByColumn() {
        List<TableMapEvent> maps = bodies(events("mysql-8.0/rmc__mysql-enum-string-set.000001"), TableMapEvent.class);
        assertThat(maps).isNotEmpty().allSatisfy(m -> {
            m.optional().enumValues().keySet().forEach(c -> assertThat(m.realType(c)).isEqualTo(ColumnType.ENUM));
            m.optional().setValues().keySet().forEach(c -> assertThat(m.realType(c)).isEqualTo(ColumnType.SET));
        });
        assertThat(maps).anySatisfy(m -> assertThat(m.optional().enumValues()).isNotEmpty());
        assertThat(maps).anySatisfy(m -> assertThat(m.optional().setValues()).isNotEmpty());
    }

    @Test
    void xaPrepareCarriesTheXidOfItsXaStart() {
        String file = "vendor/polardbx__mysql_bin.1";
        byte[] bytes = BinlogCorpus.read(file);
        List<BinlogEvent> events = new java.util.ArrayList<>();
        BinlogEventDecoder decoder = new BinlogEventDecoder(file, bytes);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> decoder.forEachRemaining(events::add))
                .isInstanceOf(BinlogFormatException.class);
        XaPrepareEvent prepare = bodies(events, XaPrepareEvent.class).get(0);
        String xaStart = bodies(events, QueryEvent.class).get(0).sql();
        assertThat(xaStart).isEqualTo("XA START " + prepare.xid());
        assertThat(events).filteredOn(e -> e.type() == null).extracting(e -> e.header().typeCode())
                .containsExactly(80, 80, 101);
    }

    @Test
    void heartbeatsOfBothVersionsCarryFileAndPosition() {
        String file = "mysql-8.0/maxwell__binlog.000004";
        FormatDescription fde = events(file).get(0).body(FormatDescription.class);
        java.io.ByteArrayOutputStream v2 = new java.io.ByteArrayOutputStream();
        v2.write(1);
        v2.write(13);
        v2.writeBytes("binlog.000042".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        v2.write(2);
        v2.write(4);
        v2.writeBytes(new byte[] {(byte) 253, 0x15, (byte) 0xCD, 0x5B}); // packed 0x5BCD15 = 6016277
        v2.write(0);
        byte[] stream = concat(event(41, v2.toByteArray(), 0), event(27,
                "binlog.000042".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 777));
        List<BinlogEvent> beats = new java.util.ArrayList<>();
        BinlogEventDecoder.continuing("heartbeats", fde, 0, stream, 0, stream.length, DecoderOptions.FULL)
                .forEachRemaining(beats::add);
        assertThat(beats).extracting(e -> e.body(HeartbeatEvent.class)).containsExactly(
                new HeartbeatEvent("binlog.000042", 6016277), new HeartbeatEvent("binlog.000042", 777));
    }

    /** A CRC32 event of the given type around a body, as a source sends it on an idle connection. */
    private static byte[] event(int type, byte[] body, long logPos) {
        byte[] e = new byte[EventHeader.LENGTH + body.length + 4];
        e[EventHeader.TYPE_OFFSET] = (byte) type;
        Bytes.putU32(e, 5, 1);
        Bytes.putU32(e, EventHeader.SIZE_OFFSET, e.length);
        Bytes.putU32(e, 13, logPos);
        System.arraycopy(body, 0, e, EventHeader.LENGTH, body.length);
        BinlogEventDecoderTest.fixCrc(e, 0);
        return e;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void mariaDbGtidsAndGtidList() {
        List<BinlogEvent> events = events("mariadb-11.x/mariadbpoc__domain_id_0_mariadb-repl-bin.000009");
        List<MariaGtidEvent> gtids = bodies(events, MariaGtidEvent.class);
        assertThat(gtids).hasSize(3).allSatisfy(g -> assertThat(g.domainId()).isZero());
        assertThat(gtids).extracting(MariaGtidEvent::sequence).isSorted();
        GtidListEvent list = bodies(events, GtidListEvent.class).get(0);
        assertThat(list.gtids()).extracting(Object::toString).containsExactly("0-10-292193");
        assertThat(gtids.get(0).sequence()).isEqualTo(292194);
    }
}
