package io.tributary.core.event.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Storage formats checked against byte layouts documented in MySQL's sources. */
class ValueFormatsTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    @Test
    void shouldDecodeTheDecimalExampleFromDecimalCcIncludingItsNegative() {
        // strings/decimal.cc, decimal2bin: 1234567890.1234 as DECIMAL(14,4) is 81 0D FB 38 D2 04 D2
        assertEquals(new BigDecimal("1234567890.1234"), PackedDecimal.decode(hex("810DFB38D204D2"), 0, 14, 4));
        assertEquals(new BigDecimal("-1234567890.1234"), PackedDecimal.decode(hex("7EF204C72DFB2D"), 0, 14, 4));
        assertEquals(7, PackedDecimal.binarySize(14, 4));
    }

    @Test
    void shouldKeepScaleAndLeadingZeroGroupsOfDecimals() {
        // DECIMAL(10,3) 0.012: intg 7 digits (4 bytes), frac 3 digits (2 bytes)
        assertEquals("0.012", PackedDecimal.decode(hex("80000000 000C"), 0, 10, 3).toPlainString());
        // DECIMAL(65,30): 35 integer digits (8 bytes + 3 groups) and 30 fraction digits (3 groups + 2 bytes)
        byte[] b = new byte[PackedDecimal.binarySize(65, 30)];
        b[0] = (byte) 0x80;
        b[b.length - 1] = 1;   // last fraction group (3 digits in 2 bytes) = 001
        assertEquals("0.000000000000000000000000000001", PackedDecimal.decode(b, 0, 65, 30).toPlainString());
        assertEquals(30, b.length);
    }

    @Test
    void shouldDecodeDatetime2WithFractionAndZeroDate() {
        long ymd = (2015L * 13 + 1) << 5 | 15;
        long packed = (ymd << 17 | 23L << 12 | 24L << 6 | 25L) + 0x8000000000L;
        byte[] b = new byte[7];
        for (int i = 0; i < 5; i++) {
            b[i] = (byte) (packed >>> (8 * (4 - i)));
        }
        b[5] = (byte) (1230 >>> 8);   // fsp 3: fraction / 100 as 2 bytes big-endian
        b[6] = (byte) 1230;
        assertEquals(new MysqlDateTime(2015, 1, 15, 23, 24, 25, 123000), TemporalCodec.datetime2(b, 0, 3));
        assertEquals("2015-01-15 23:24:25.123", TemporalCodec.datetime2(b, 0, 3).format(3));

        MysqlDateTime zero = TemporalCodec.datetime2(hex("8000000000"), 0, 0);
        assertEquals("0000-00-00 00:00:00", zero.format(0));
        assertEquals(null, zero.toLocalDateTimeOrNull());
    }

    @Test
    void shouldDecodeNegativeTime2WithFractionAsMysqlPacksIt() {
        // my_time_packed_to_binary of -00:00:01.5 with fsp 3: int part -2 (0x7FFFFE), fraction -5000 (0xEC78)
        MysqlTime t = TemporalCodec.time2(hex("7FFFFE EC78"), 0, 3);
        assertEquals(new MysqlTime(true, 0, 0, 1, 500000), t);
        assertEquals("-00:00:01.500", t.format(3));
        // fsp 1-2: -00:00:01.5 -> int part -2, fraction byte 0x100 - 50
        assertEquals("-00:00:01.50", TemporalCodec.time2(hex("7FFFFE CE"), 0, 2).format(2));
        // fsp 6: the 6 bytes are the packed value + 0x800000000000; 838:59:59.000001
        long packed = ((838L << 12 | 59L << 6 | 59L) << 24) + 1;
        long stored = packed + 0x800000000000L;
        byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) {
            b[i] = (byte) (stored >>> (8 * (5 - i)));
        }
        assertEquals("838:59:59.000001", TemporalCodec.time2(b, 0, 6).format(6));
        // fsp 0 negative: -507:48:27
        long neg = 0x800000L - (507L << 12 | 48L << 6 | 27L);
        assertEquals("-507:48:27", TemporalCodec.time2(new byte[] {(byte) (neg >>> 16), (byte) (neg >>> 8), (byte) neg}, 0, 0)
                .format(0));
    }

    @Test
    void shouldDecodeTimestamp2AndDates() {
        assertEquals(java.time.Instant.ofEpochSecond(1_600_000_000L, 123_456_000L),
                TemporalCodec.timestamp2(hex("5F5E1000 01E240"), 0, 6));
        // DATE 2017-04-13: 2017 << 9 | 4 << 5 | 13, little-endian
        int v = 2017 << 9 | 4 << 5 | 13;
        assertEquals(MysqlDateTime.ofDate(2017, 4, 13), TemporalCodec.date(new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16)}, 0));
        assertEquals(MysqlDateTime.ofDate(0, 0, 0), TemporalCodec.date(new byte[3], 0));
    }

    @Test
    void shouldFormatFloatsAsCPrintfG() {
        assertEquals("1.1", VerboseFormat.formatG(1.1f, 6));
        assertEquals("0.10000000000000000555", VerboseFormat.formatG(0.1, 20));
        assertEquals("1e+20", VerboseFormat.formatG(1e20, 6));
        assertEquals("1.23457e-05", VerboseFormat.formatG(1.23456789e-5, 6));
        assertEquals("-2.5", VerboseFormat.formatG(-2.5, 6));
        assertEquals("100000", VerboseFormat.formatG(100000, 6));
        assertEquals("1e+06", VerboseFormat.formatG(1000000, 6));
    }
}
