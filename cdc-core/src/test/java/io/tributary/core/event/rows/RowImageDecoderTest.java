package io.tributary.core.event.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.ColumnType;
import java.math.BigInteger;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Row images assembled by hand from the layout in MySQL's {@code sql/rpl_record.cc}. */
class RowImageDecoderTest {
    private final RowImageDecoder decoder = new RowImageDecoder();

    private static final TableColumns TABLE = new TableColumns("shop.orders", List.of(
            ColumnDefinition.of(ColumnType.TINY, 0).with(true, -1, "flags"),
            ColumnDefinition.of(ColumnType.LONGLONG, 0).with(true, -1, "big"),
            ColumnDefinition.of(ColumnType.VARCHAR, 200).with(false, 255, "name"),
            ColumnDefinition.of(ColumnType.STRING, 0xF701).withValues(List.of("red", "green"), null),
            ColumnDefinition.of(ColumnType.STRING, 0xF801).withValues(null, List.of("a", "b", "c")),
            ColumnDefinition.of(ColumnType.BIT, 0x0003),
            ColumnDefinition.of(ColumnType.YEAR, 0)));

    private static BitSet all(int n) {
        BitSet b = new BitSet();
        b.set(0, n);
        return b;
    }

    @Test
    void shouldDecodeEachTypeOfAFullImageAndRenderItLikeMariadbBinlog() {
        // null bitmap (7 columns, none null), FF, 8 x FF, 03 'h' 'i' 'é' as utf8mb4, enum 2, set 0b101, bit 0b101, year 124
        byte[] image = HexFormat.of().parseHex("00" + "FF" + "FFFFFFFFFFFFFFFF" + "04 6869C3A9".replace(" ", "")
                + "02" + "05" + "05" + "7C");
        ByteBuf buf = Unpooled.wrappedBuffer(image);
        Row row = decoder.decodeImage(TABLE, all(7), buf);
        assertEquals(0, buf.readableBytes(), "the image is consumed exactly");
        assertEquals(255L, row.get(0));
        assertEquals(new BigInteger("18446744073709551615"), row.get(1));
        assertEquals("hié", row.get(2));
        assertEquals(new MysqlEnum(2, "green"), row.get(3));
        assertEquals(new MysqlSet(5, List.of("a", "c")), row.get(4));
        assertEquals(5L, row.get(5));
        assertEquals(2024, row.get(6));
        assertEquals(String.join("\n",
                "###   @1=-1 (255)", "###   @2=-1 (18446744073709551615)", "###   @3='hié'", "###   @4=2",
                "###   @5=b'00000101'", "###   @6=b'101'", "###   @7=2024"), row.toVerboseString());
    }

    @Test
    void shouldHonourNullBitmapAndColumnsPresentBitmap() {
        BitSet present = new BitSet();
        present.set(0);
        present.set(2);
        // two present columns; the second (name) is NULL: null bitmap 0b10
        Row row = decoder.decodeImage(TABLE, present, Unpooled.wrappedBuffer(new byte[] {0x02, 0x07}));
        assertEquals(7L, row.get(0));
        assertTrue(row.isNull(2));
        assertTrue(!row.isPresent(1));
        assertNull(row.get(1));
        assertEquals("###   @1=7\n###   @3=NULL", row.toVerboseString());
    }

    @Test
    void shouldDecodeUpdateRowsAsBeforeAfterPairs() {
        BitSet one = new BitSet();
        one.set(0);
        byte[] rows = {0, 1, 0, 2, 0, 3, 0, 4};
        List<RowChange> changes = decoder.decodeRows(TABLE, RowsImageLayout.UPDATE, one, one, rows, 0, rows.length);
        assertEquals(2, changes.size());
        assertEquals(3L, changes.get(1).before().get(0));
        assertEquals(4L, changes.get(1).after().get(0));
    }

    @Test
    void shouldReportTableColumnAndOffsetOfATruncatedValue() {
        BitSet present = new BitSet();
        present.set(2);
        byte[] rows = HexFormat.of().parseHex("00 0A 6869".replace(" ", ""));
        RowDecodeException e = assertThrows(RowDecodeException.class,
                () -> decoder.decodeRows(TABLE, RowsImageLayout.WRITE, present, null, rows, 0, rows.length));
        assertTrue(e.getMessage().contains("shop.orders") && e.getMessage().contains("`name`")
                && e.getMessage().contains("offset 1") && e.getMessage().contains("claims 10 bytes"), e.getMessage());
    }

    @Test
    void shouldRefuseAnEmptyImageThatWouldNeverAdvance() {
        byte[] rows = {1};
        RowDecodeException e = assertThrows(RowDecodeException.class,
                () -> decoder.decodeRows(TABLE, RowsImageLayout.WRITE, new BitSet(), null, rows, 0, 1));
        assertTrue(e.getMessage().contains("no columns present"), e.getMessage());
    }

    @Test
    void shouldKeepBytesWhenCharsetUnknownOrBytesInvalid() {
        TableColumns t = new TableColumns("db.t", List.of(ColumnDefinition.of(ColumnType.VARCHAR, 10).with(false, 45, "s"),
                ColumnDefinition.of(ColumnType.VARCHAR, 10)));
        byte[] image = {0, 1, (byte) 0xC3, 2, 'o', 'k'};
        Row row = decoder.decodeImage(t, all(2), Unpooled.wrappedBuffer(image));
        assertTrue(row.get(0) instanceof byte[], "invalid utf8mb4 stays bytes");
        assertTrue(row.get(1) instanceof byte[], "unknown charset stays bytes");
        assertEquals("###   @1='\u00c3'".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1).length,
                row.toVerboseBytes().length - "\n###   @2='ok'".length());
    }
}
