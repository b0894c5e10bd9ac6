package io.tributary.core.event.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Binary JSON layouts from MySQL's {@code json_binary.h} and JSON diffs from {@code json_diff.cc}. */
class JsonBinaryTest {
    /** {"a": 1, "b": [true, null]} as a small object: offsets count from the element count. */
    static final String OBJECT = "00 0200 1E00 1200 0100 1300 0100 05 0100 02 1400 61 62 0200 0A00 04 0100 04 0000";

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static JsonDocument decode(String s) {
        byte[] b = hex(s);
        return JsonBinary.decode(b, 0, b.length);
    }

    @Test
    void shouldDecodeSmallObjectWithInlinedValuesAndNestedArray() {
        assertEquals("{\"a\": 1, \"b\": [true, null]}", decode(OBJECT).toJson());
    }

    @Test
    void shouldDecodeLargeArrayWithInlinedInt32AndString() {
        assertEquals("[100000, \"xy\"]", decode("03 02000000 15000000 07 A0860100 0C 12000000 02 7879").toJson());
    }

    @Test
    void shouldRefuseOpaqueDecimalWhoseDigitsRunPastItsValue() {
        // opaque NEWDECIMAL(38,3) declaring 6 bytes (precision, scale, 4 digit bytes) where 18 digit bytes
        // are needed; 20 more bytes follow the value in the buffer and must not be read as its digits
        byte[] b = hex("0F F6 06 2603 80000001" + "00".repeat(20));
        RowDecodeException e = assertThrows(RowDecodeException.class, () -> JsonBinary.decode(b, 0, 9));
        assertTrue(e.getMessage().contains("DECIMAL(38,3) needs 18 bytes, 4 available"), e.getMessage());
        assertEquals("1.250", JsonBinary.decode(hex("0F F6 05 0403 8100FA"), 0, 8).root().toString());
    }

    @Test
    void shouldDecodeScalarsAndLiterals() {
        assertEquals("1.5", decode("0B 000000000000F83F").toJson());
        assertEquals("18446744073709551615", decode("0A FFFFFFFFFFFFFFFF").toJson());
        assertEquals("-2", decode("09 FEFFFFFFFFFFFFFF").toJson());
        assertEquals("false", decode("04 02").toJson());
        assertEquals("\"a\\\"b\\n\"", decode("0C 04 61 22 62 0A").toJson());
        // opaque DECIMAL(4,2) 12.34
        assertEquals("12.34", decode("0F F6 04 04 02 8C22").toJson());
    }

    @Test
    void shouldRejectTruncatedAndImpossibleDocuments() {
        RowDecodeException e = assertThrows(RowDecodeException.class, () -> decode("00 0200 FF00 1200"));
        assertTrue(e.getMessage().contains("claims 255 bytes"), e.getMessage());
        assertThrows(RowDecodeException.class, () -> decode("0C 05 61"));
        assertThrows(RowDecodeException.class, () -> decode("0E 00"));
    }

    @Test
    void shouldApplyReplaceInsertAndRemoveDiffs() {
        // REPLACE $.a = 2; INSERT $.c = "z"; REMOVE $.b[1]
        String diffs = "00 03 242E61 03 050200" + "01 03 242E63 03 0C017A" + "02 06 242E625B315D";
        byte[] vector = hex(String.format("%02X000000", hex(diffs).length) + diffs.replace(" ", ""));
        int[] consumed = new int[1];
        List<JsonDiff> read = JsonDiffApplier.read(vector, 0, vector.length, consumed);
        assertEquals(vector.length, consumed[0]);
        assertEquals(List.of(JsonDiff.Operation.REPLACE, JsonDiff.Operation.INSERT, JsonDiff.Operation.REMOVE),
                read.stream().map(JsonDiff::operation).toList());
        JsonDocument before = decode(OBJECT);
        JsonDocument after = JsonDiffApplier.apply(before, read, "db.t", "`doc`");
        assertEquals("{\"a\": 2, \"b\": [true], \"c\": \"z\"}", after.toJson());
        assertEquals("{\"a\": 1, \"b\": [true, null]}", before.toJson(), "the before value is left alone");
    }

    @Test
    void shouldRefuseDiffsThatDoNotFitOrHaveNoBeforeValue() {
        JsonDiff replaceMissing = new JsonDiff(JsonDiff.Operation.REPLACE, "$.zz", decode("04 00"));
        RowDecodeException e = assertThrows(RowDecodeException.class,
                () -> JsonDiffApplier.apply(decode(OBJECT), List.of(replaceMissing), "db.t", "`doc`"));
        assertTrue(e.getMessage().contains("db.t") && e.getMessage().contains("$.zz"), e.getMessage());
        e = assertThrows(RowDecodeException.class,
                () -> JsonDiffApplier.apply(null, List.of(replaceMissing), "shop.orders", "`doc`"));
        assertTrue(e.getMessage().contains("shop.orders") && e.getMessage().contains("before image"), e.getMessage());
    }

    @Test
    void shouldParseQuotedMembersAndLastCells() {
        assertEquals(List.of("a b", new JsonPath.Cell(1, true), "c"), JsonPath.parse("$.\"a b\"[last-1].c"));
    }
}
