package io.tributary.core.event.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogEventEncoder;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.ColumnType;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.TableMapEvent;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * A TABLE_MAP with full optional metadata and rows events built byte by byte from MySQL's layouts
 * ({@code Table_map_log_event}, {@code Rows_log_event}, {@code rows_event.h} optional metadata), read with
 * {@link BinlogEventDecoder} and decoded with {@link RowsEventDecoder}.
 *
 * <p>The table: {@code id INT UNSIGNED, v VARCHAR(75) utf8mb4, d DECIMAL(10,3), c CHAR(50) utf8mb4,
 * b BIT(11), dt DATETIME(6), bl BLOB, e ENUM('x','y','z'), s SET('a','b')}.
 */
class RowsEventDecoderTest {

    private static final String SOURCE = "handmade-bin.000001";
    private static final long TABLE_ID = 42;
    private static final int STMT_END_F = 1;

    /** Column types as written: ENUM and SET travel as STRING with the real type in the metadata. */
    private static final String TYPES = "03 0F F6 FE 10 12 FC FE FE";
    /** VARCHAR 300 bytes (LE), DECIMAL 10/3, CHAR real type FE length 50, BIT 3 bits + 1 byte, fsp 6, 2 length
     * bytes, ENUM 1 byte, SET 1 byte. */
    private static final String METADATA = "2C01 0A03 FE32 0301 06 02 F701 F801";

    private final List<Integer> offsets = new ArrayList<>();

    @Test
    void shouldBuildColumnsWithTableMapMetadataIntsAndOptionalMetadata() {
        TableMapEvent map = read(stream(tableMap(TABLE_ID)), DecoderOptions.FULL).get(1).body(TableMapEvent.class);
        assertThat(map.metadata()).containsExactly(0, 300, 0x0A03, 0xFE32, 0x0103, 6, 2, 0xF701, 0xF801);

        TableColumns t = TableColumns.of(map);
        assertThat(t.tableName()).isEqualTo("db.t");
        assertThat(t.columns()).extracting(ColumnDefinition::name)
                .containsExactly("id", "v", "d", "c", "b", "dt", "bl", "e", "s");
        assertThat(t.columns()).extracting(ColumnDefinition::metadata).isEqualTo(map.metadata());
        assertThat(t.columns()).extracting(ColumnDefinition::unsigned)
                .containsExactly(true, false, false, false, false, false, false, false, false);
        assertThat(t.columns()).extracting(ColumnDefinition::charset)
                .containsExactly(-1, 45, -1, 45, -1, -1, 63, 33, 33);
        assertThat(t.columns()).extracting(ColumnDefinition::storedType).containsExactly(ColumnType.LONG,
                ColumnType.VARCHAR, ColumnType.NEWDECIMAL, ColumnType.STRING, ColumnType.BIT, ColumnType.DATETIME2,
                ColumnType.BLOB, ColumnType.ENUM, ColumnType.SET);
        assertThat(t.get(3).stringLength()).isEqualTo(50);
        assertThat(t.get(7).enumValues()).containsExactly("x", "y", "z");
        assertThat(t.get(8).setValues()).containsExactly("a", "b");
        // CHAR(100) utf8mb4 = 400 bytes: byte0 0xEE (bits 4-5 carry 400 >> 8), byte1 0x90
        assertThat(ColumnDefinition.of(ColumnType.STRING, 0xEE90).stringLength()).isEqualTo(400);
    }

    @Test
    void shouldDecodeInsertUpdateAndDeleteIntoTypedValues() {
        byte[] full = row("0000", "FFFFFFFF", "0600 68C3A96C6C6F", "7FED2978FC84", "02 6162", "05A5",
                "99b2bb7efa 01e240", "0300 00FF10", "02", "03");
        byte[] sparse = row("FE01", "01000000");
        List<BinlogEvent> events = read(stream(tableMap(TABLE_ID), rows(EventType.WRITE_ROWS_V2, 0, full, sparse),
                rows(EventType.UPDATE_ROWS_V2, 0, sparse, full), rows(EventType.DELETE_ROWS_V1, STMT_END_F, full)),
                DecoderOptions.FULL);
        TableMapEvent map = events.get(1).body(TableMapEvent.class);
        RowsEventDecoder decoder = new RowsEventDecoder(SOURCE);

        List<RowChange> inserts = decoder.decode(events.get(2), map);
        assertThat(inserts).hasSize(2);
        Row r = inserts.get(0).after();
        assertThat(inserts.get(0).before()).isNull();
        assertThat(r.values()).containsExactly(4294967295L, "h\u00e9llo", new BigDecimal("-1234567.891"), "ab", 0x5A5L,
                new MysqlDateTime(2024, 2, 29, 23, 59, 58, 123456), r.get(6), new MysqlEnum(2, "y"),
                new MysqlSet(3, List.of("a", "b")));
        assertThat((byte[]) r.get(6)).containsExactly(0x00, 0xFF, 0x10);
        Row nulls = inserts.get(1).after();
        assertThat(nulls.get(0)).isEqualTo(1L);
        for (int i = 1; i < 9; i++) {
            assertThat(nulls.isNull(i)).as("column %d is NULL", i).isTrue();
        }

        List<RowChange> updates = decoder.decode(events.get(3), map);
        assertThat(updates).containsExactly(new RowChange(nulls, r));
        List<RowChange> deletes = decoder.decode(events.get(4), map);
        assertThat(deletes).containsExactly(new RowChange(r, null));
    }

    @Test
    void shouldLookUpRememberedTableMapsByIdAndForgetThemAtStatementEnd() {
        byte[] sparse = row("FE01", "01000000");
        List<BinlogEvent> events = read(stream(tableMap(TABLE_ID), rows(EventType.WRITE_ROWS_V2, 0, sparse),
                rows(EventType.WRITE_ROWS_V2, STMT_END_F, sparse), rows(EventType.WRITE_ROWS_V2, STMT_END_F, sparse)),
                DecoderOptions.FULL);
        RowsEventDecoder decoder = new RowsEventDecoder(SOURCE);
        decoder.remember(events.get(1).body(TableMapEvent.class));

        assertThat(decoder.decode(events.get(2))).hasSize(1);
        assertThat(decoder.tableMap(TABLE_ID)).isNotNull();
        assertThat(decoder.decode(events.get(3))).hasSize(1);
        assertThat(decoder.tableMap(TABLE_ID)).as("forgotten after STMT_END_F").isNull();
        assertThatThrownBy(() -> decoder.decode(events.get(4))).isInstanceOf(RowDecodeException.class)
                .hasMessage(SOURCE + " at offset " + offsets.get(3) + " [WRITE_ROWS_V2(30) event]: no TABLE_MAP for"
                        + " table id 42 precedes this rows event in the statement (remembered ids: [])");
    }

    @Test
    void shouldNameSourceOffsetTypeAndTableWhenTheImageIsBad() {
        byte[] truncated = HexFormat.of().parseHex("0000" + "FFFFFFFF" + "0600" + "68C3");
        List<BinlogEvent> events = read(stream(tableMap(TABLE_ID), rows(EventType.WRITE_ROWS_V2, STMT_END_F, truncated)),
                DecoderOptions.FULL);
        TableMapEvent map = events.get(1).body(TableMapEvent.class);

        assertThatThrownBy(() -> new RowsEventDecoder(SOURCE).decode(events.get(2), map))
                .isInstanceOf(RowDecodeException.class)
                .hasMessageStartingWith(SOURCE + " at offset " + offsets.get(1) + " [WRITE_ROWS_V2(30) event]: table db.t"
                        + " column `v` (VARCHAR, metadata 300) at offset 6: VARCHAR value claims 6 bytes");
    }

    @Test
    void shouldRefuseEventsItCannotDecodeSayingWhy() {
        byte[] sparse = row("FE01", "01000000");
        byte[] stream = stream(tableMap(TABLE_ID), tableMap(7), rows(EventType.WRITE_ROWS_V2, STMT_END_F, sparse));
        List<BinlogEvent> events = read(stream, DecoderOptions.FULL);
        TableMapEvent map42 = events.get(1).body(TableMapEvent.class);
        TableMapEvent map7 = events.get(2).body(TableMapEvent.class);
        RowsEventDecoder decoder = new RowsEventDecoder(SOURCE);

        assertThatThrownBy(() -> decoder.decode(events.get(3), map7)).hasMessage(SOURCE + " at offset " + offsets.get(2)
                + " [WRITE_ROWS_V2(30) event]: table id 42 does not match the TABLE_MAP given, which maps id 7 to db.t");
        assertThatThrownBy(() -> decoder.decode(events.get(1), map42)).hasMessage(SOURCE + " at offset " + offsets.get(0)
                + " [TABLE_MAP(19) event]: not a rows event");
        BinlogEvent headersOnly = read(stream, DecoderOptions.HEADERS_ONLY).get(3);
        assertThatThrownBy(() -> decoder.decode(headersOnly, map42)).isInstanceOf(RowDecodeException.class)
                .hasMessageContaining("[WRITE_ROWS_V2(30) event]: the event body was not decoded (headers-only mode)");
    }

    @Test
    void shouldReadColumnCountsAboveTheBytesLeftButRefuseBitmapsThatCannotFit() {
        // 9 columns, 8 bytes after the count: a mostly-NULL row of a wide table is shorter than its column count
        List<BinlogEvent> ok = read(stream(tableMap(TABLE_ID), rows(EventType.WRITE_ROWS_V2, STMT_END_F,
                row("FE01", "01000000"))), DecoderOptions.FULL);
        assertThat(ok.get(2).body(io.tributary.core.event.RowsEvent.class).columnCount()).isEqualTo(9);
        // 200 columns need a 25-byte bitmap; 2 bytes are left
        byte[] body = hex("2A0000000000 0100 0200 C8 FFFF");
        byte[] stream = stream(event(EventType.WRITE_ROWS_V2, body));
        assertThatThrownBy(() -> read(stream, DecoderOptions.FULL))
                .isInstanceOf(io.tributary.core.event.BinlogFormatException.class)
                .hasMessage(SOURCE + " at offset " + offsets.get(offsets.size() - 1) + " [WRITE_ROWS_V2(30) event]: column"
                        + " count: 200 columns need a 25-byte bitmap at body offset 11, only 2 bytes left");
    }

    @Test
    void shouldCountYearAsNumericAndGeometryAsCharacterInMariaDbOptionalMetadata() {
        // yr YEAR, i INT (signed), g GEOMETRY, v VARCHAR(10) utf8mb4, as MariaDB 10.11 writes them: SIGNEDNESS
        // covers yr and i (yr unsigned), COLUMN_CHARSET covers g (binary) and v
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(tableIdAndFlags(9, 1));
        b.writeBytes(hex("02 6462 00 01 75 00 04 0D 03 FF 0F 03 04 0A00 0F"));
        field(b, 1, hex("80"));
        field(b, 3, hex("3F 2D"));
        byte[] tableMap = event(EventType.TABLE_MAP, b.toByteArray());

        TableMapEvent maria = read(stream(BinlogFlavor.MARIADB, tableMap), DecoderOptions.FULL).get(1)
                .body(TableMapEvent.class);
        assertThat(TableColumns.of(maria).columns()).extracting(ColumnDefinition::unsigned)
                .containsExactly(true, false, false, false);
        assertThat(TableColumns.of(maria).columns()).extracting(ColumnDefinition::charset)
                .containsExactly(-1, -1, 63, 45);
        // MySQL counts neither: the same bytes from a MySQL server carry one charset entry too many
        assertThatThrownBy(() -> read(stream(BinlogFlavor.MYSQL, tableMap), DecoderOptions.FULL))
                .hasMessageContaining("column charsets: more entries than the 1 columns they can apply to");
    }

    @Test
    void shouldRefusePreGaRowsEventsOfTheCorpusNamingTheFileAndOffset() throws Exception {
        java.nio.file.Path file = RowImageCorpusTest.sharedDir()
                .resolve("testdata/binlog/mysql-5.1-and-older/rmc__ver_5_1-wl2325_r.001");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isRegularFile(file), file + " not found; skipping");
        RowsEventDecoder decoder = new RowsEventDecoder(file.getFileName().toString());
        int refused = 0;
        for (BinlogEvent e : read(java.nio.file.Files.readAllBytes(file), DecoderOptions.FULL)) {
            if (e.body() instanceof TableMapEvent map) {
                decoder.remember(map);
            } else if (e.type().isRows()) {
                assertThatThrownBy(() -> decoder.decode(e)).isInstanceOf(RowDecodeException.class).hasMessage(
                        file.getFileName() + " at offset " + e.offset() + " [" + EventType.nameOf(e.type().code())
                        + " event]: a pre-GA 5.1 rows event, whose row images predate the v1 format: not decoded");
                refused++;
            }
        }
        assertThat(refused).as("PRE_GA_WRITE/UPDATE/DELETE_ROWS in the file").isEqualTo(3);
    }

    /** A row image: null bitmap then the values, all given in hex. */
    private static byte[] row(String nullBitmap, String... values) {
        return HexFormat.of().parseHex((nullBitmap + String.join("", values)).replace(" ", ""));
    }

    private static byte[] tableMap(long tableId) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(tableIdAndFlags(tableId, 1));
        b.writeBytes(hex("02 6462 00 01 74 00 09" + TYPES));
        byte[] metadata = hex(METADATA);
        b.write(metadata.length);
        b.writeBytes(metadata);
        b.writeBytes(hex("FF01"));
        field(b, 1, hex("80"));                                   // SIGNEDNESS: id (1st numeric) unsigned
        field(b, 2, hex("2D 02 3F"));                             // DEFAULT_CHARSET 45, 3rd character column 63
        ByteArrayOutputStream names = new ByteArrayOutputStream();
        for (String n : new String[] {"id", "v", "d", "c", "b", "dt", "bl", "e", "s"}) {
            names.write(n.length());
            names.writeBytes(n.getBytes(StandardCharsets.US_ASCII));
        }
        field(b, 4, names.toByteArray());                           // COLUMN_NAME
        field(b, 5, hex("02 0161 0162"));                          // SET_STR_VALUE
        field(b, 6, hex("03 0178 0179 017A"));                     // ENUM_STR_VALUE
        field(b, 10, hex("21"));                                  // ENUM_AND_SET_DEFAULT_CHARSET 33
        return event(EventType.TABLE_MAP, b.toByteArray());
    }

    private static byte[] rows(EventType type, int flags, byte[]... images) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(tableIdAndFlags(TABLE_ID, flags));
        if (type.isRowsV2()) {
            b.writeBytes(hex("0200"));
        }
        b.write(9);
        b.writeBytes(hex(type.isUpdateRows() ? "FF01 FF01" : "FF01"));
        for (byte[] image : images) {
            b.writeBytes(image);
        }
        return event(type, b.toByteArray());
    }

    private static byte[] tableIdAndFlags(long tableId, int flags) {
        return new byte[] {(byte) tableId, (byte) (tableId >> 8), (byte) (tableId >> 16), (byte) (tableId >> 24), 0, 0,
            (byte) flags, 0};
    }

    private static void field(ByteArrayOutputStream b, int type, byte[] value) {
        b.write(type);
        b.write(value.length);
        b.writeBytes(value);
    }

    private static byte[] event(EventType type, byte[] body) {
        int size = 19 + body.length + 4;
        ByteBuf e = Unpooled.buffer(size);
        e.writeIntLE(1_700_000_000).writeByte(type.code()).writeIntLE(1).writeIntLE(size).writeIntLE(0).writeShortLE(0);
        e.writeBytes(body);
        CRC32 crc = new CRC32();
        crc.update(e.array(), e.arrayOffset(), e.writerIndex());
        e.writeIntLE((int) crc.getValue());
        byte[] out = new byte[size];
        e.readBytes(out);
        return out;
    }

    /** Magic, a MySQL 8 FDE with CRC32, then the events; remembers where each event starts. */
    private byte[] stream(byte[]... events) {
        return stream(BinlogFlavor.MYSQL, events);
    }

    private byte[] stream(BinlogFlavor flavor, byte[]... events) {
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(BinlogEventDecoder.MAGIC);
        new BinlogEventEncoder(flavor, 1).formatDescription(out, 1_700_000_000);
        for (byte[] e : events) {
            offsets.add(out.writerIndex());
            out.writeBytes(e);
        }
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return bytes;
    }

    private static List<BinlogEvent> read(byte[] stream, DecoderOptions options) {
        List<BinlogEvent> events = new ArrayList<>();
        new BinlogEventDecoder(SOURCE, stream, options).forEachRemaining(events::add);
        return events;
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }
}
