package io.tributary.core.event.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.ColumnType;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardInfo;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every column type of issue 3's all-types appendix, written to a live shard with extreme and ordinary
 * values, zero dates, negative TIMEs, large blobs and a row of NULLs, then updated and deleted; the shard's
 * own binlog files are read with {@link BinlogEventDecoder} and decoded with {@link RowsEventDecoder}.
 * Checked: (a) every decoded value of every insert, update (before and after) and delete equals the typed
 * value written; (b) every row image prints exactly as {@code mariadb-binlog --verbose
 * --base64-output=decode-rows} prints it for the same file.
 *
 * <p>One abstract suite, one subclass per server flavor; the rows are written once per class and both
 * tests look at them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AllTypesIT {

    private static final Path MARIADB_BINLOG = Path.of("/usr/bin/mariadb-binlog");
    private static final String DB = "all_types";
    private static final String TABLE = "t";
    /** Mixed 1- to 4-byte UTF-8 characters for the utf8mb4 columns. */
    private static final String MIXED = "a\u00e9\u20ac\u65e5\ud83d\ude00\u03a9";

    /** The table, in column order: name and SQL type. */
    private static final List<String[]> COLUMNS = List.of(
            col("id", "INT"), col("bit1", "BIT(1)"), col("bit64", "BIT(64)"),
            col("ti", "TINYINT"), col("tiu", "TINYINT UNSIGNED"), col("si", "SMALLINT"), col("siu", "SMALLINT UNSIGNED"),
            col("mi", "MEDIUMINT"), col("miu", "MEDIUMINT UNSIGNED"), col("i", "INT"), col("iu", "INT UNSIGNED"),
            col("bi", "BIGINT"), col("biu", "BIGINT UNSIGNED"),
            col("d10_0", "DECIMAL(10,0)"), col("d10_3", "DECIMAL(10,3)"), col("d65_30", "DECIMAL(65,30)"),
            col("f", "FLOAT"), col("dbl", "DOUBLE"),
            col("dt", "DATE"), col("dtm", "DATETIME"), col("dtm6", "DATETIME(6)"),
            col("ts", "TIMESTAMP NULL DEFAULT NULL"), col("ts6", "TIMESTAMP(6) NULL DEFAULT NULL"),
            col("tm", "TIME"), col("tm6", "TIME(6)"), col("yr", "YEAR"),
            col("ch", "CHAR(50)"), col("vc", "VARCHAR(50)"), col("vc5000", "VARCHAR(5000)"),
            col("bin", "BINARY(200)"), col("vbin", "VARBINARY(200)"),
            col("tb", "TINYBLOB"), col("b", "BLOB"), col("mb", "MEDIUMBLOB"), col("lb", "LONGBLOB"),
            col("tt", "TINYTEXT"), col("tx", "TEXT"), col("mt", "MEDIUMTEXT"), col("lt", "LONGTEXT"),
            col("e", "ENUM('small','medium','large')"), col("s", "SET('red','green','blue')"),
            col("j", "JSON"), col("g", "GEOMETRY"));

    /** A value as written: SQL text, or {@code ?} bound to {@code param}; and what decoding must give. */
    record Value(String sql, Object param, Object expected) {
        static final Value NULL = new Value("NULL", null, null);
    }

    /** One row as written: a label for messages and a value per column name. */
    record Written(String label, Map<String, Value> values) {
        Written with(String label, String column, Value v) {
            Map<String, Value> copy = new LinkedHashMap<>(values);
            copy.put(column, v);
            return new Written(label, copy);
        }
    }

    /** What the binlog held for the table, decoded, and every row of every rows event as mariadb-binlog lines. */
    record Decoded(TableColumns table, List<RowChange> changes, Map<String, List<String>> verboseLinesByFile,
                   Map<String, Path> files, int compressedRowsEvents) {
    }

    private List<Written[]> expected;
    private Decoded decoded;
    private Path copies;

    /** Reads a binlog file of shard 0 as bytes. */
    abstract byte[] readBinlog(ShardCluster cluster, String fileName) throws Exception;

    /** The TABLE_MAP type of the JSON column: BLOB (LONGTEXT) on MariaDB, JSON on MySQL. */
    abstract ColumnType jsonColumnType();

    /** The written JSON text as decoded: a String on MariaDB, the text of a binary JSON document on MySQL. */
    abstract String jsonText(Object decoded);

    /** Whether the shard compresses its rows events (MariaDB {@code log_bin_compress}). */
    boolean compressesRowsEvents() {
        return false;
    }

    /** Whether the server's SIGNEDNESS metadata covers YEAR, flagged unsigned. */
    abstract boolean yearIsUnsigned();

    /** Why mariadb-binlog cannot be compared for this flavor, or null when it can. */
    abstract String verboseComparisonUnavailable();

    @Test
    void shouldDecodeEveryValueOfEveryTypeAsWrittenForInsertUpdateAndDelete(ShardCluster cluster) throws Exception {
        Decoded d = decoded(cluster);
        TableColumns table = d.table();
        assertThat(table.tableName()).isEqualTo(DB + "." + TABLE);
        assertThat(table.columns()).extracting(ColumnDefinition::name)
                .containsExactlyElementsOf(COLUMNS.stream().map(c -> c[0]).toList());
        for (int i = 0; i < COLUMNS.size(); i++) {
            boolean unsigned = COLUMNS.get(i)[1].contains("UNSIGNED")
                    || (COLUMNS.get(i)[1].equals("YEAR") && yearIsUnsigned());
            assertEquals(unsigned, table.get(i).unsigned(), "UNSIGNED of " + COLUMNS.get(i)[0]);
        }
        assertEquals(jsonColumnType(), table.get(index("j")).type(), "how the server stores JSON");
        if (jsonColumnType() == ColumnType.BLOB) {
            assertEquals(4, table.get(index("j")).metadata(), "JSON stored as LONGTEXT: a 4-byte length");
        }
        assertEquals(compressesRowsEvents(), d.compressedRowsEvents() > 0, "compressed rows events in the binlog: "
                + d.compressedRowsEvents());
        assertEquals(expected.size(), d.changes().size(), "row changes of " + table.tableName());
        for (int k = 0; k < expected.size(); k++) {
            Written[] w = expected.get(k);
            RowChange c = d.changes().get(k);
            String what = "change " + k + " (" + (w[0] == null ? "INSERT " + w[1].label() : w[1] == null
                    ? "DELETE " + w[0].label() : "UPDATE " + w[0].label() + " -> " + w[1].label()) + ")";
            assertImage(what + " before", w[0], c.before());
            assertImage(what + " after", w[1], c.after());
        }
        System.out.printf("all-types: %d row changes (%d compressed rows events), %d columns each, %d values compared"
                + " with what was written%n", d.changes().size(), d.compressedRowsEvents(), COLUMNS.size(), d.changes().stream()
                        .mapToInt(c -> (c.before() == null ? 0 : COLUMNS.size()) + (c.after() == null ? 0 : COLUMNS.size()))
                        .sum());
    }

    @Test
    void shouldPrintEveryRowExactlyAsMariadbBinlogDoes(ShardCluster cluster) throws Exception {
        String unavailable = verboseComparisonUnavailable();
        Assumptions.assumeTrue(unavailable == null, unavailable);
        Assumptions.assumeTrue(Files.isExecutable(MARIADB_BINLOG), MARIADB_BINLOG + " is not installed; cannot compare");
        Decoded d = decoded(cluster);
        int lines = 0;
        for (Map.Entry<String, Path> file : d.files().entrySet()) {
            List<String> ours = d.verboseLinesByFile().get(file.getKey());
            List<String> theirs = mariadbBinlogValueLines(file.getValue());
            int i = 0;
            while (i < Math.min(ours.size(), theirs.size()) && ours.get(i).equals(theirs.get(i))) {
                i++;
            }
            String first = i < Math.max(ours.size(), theirs.size()) ? "; first difference at line " + i + ":\n ours:   "
                    + (i < ours.size() ? abbreviate(ours.get(i)) : "<none>") + "\n theirs: "
                    + (i < theirs.size() ? abbreviate(theirs.get(i)) : "<none>") : "";
            assertTrue(ours.equals(theirs), file.getKey() + ": " + ours.size() + " value lines ours, " + theirs.size()
                    + " mariadb-binlog" + first);
            lines += theirs.size();
        }
        assertEquals(d.changes().stream().mapToInt(c -> (c.before() == null ? 0 : 1) + (c.after() == null ? 0 : 1)).sum()
                * COLUMNS.size(), lines, "every column of every row image was compared");
        System.out.printf("all-types: %d value lines equal to mariadb-binlog's in %d files%n", lines, d.files().size());
    }

    @AfterAll
    void removeCopies() throws java.io.IOException {
        if (copies != null) {
            try (var files = Files.list(copies)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(copies);
        }
    }

    /** Writes the rows once per class, then reads and decodes the shard's binlog files. */
    private synchronized Decoded decoded(ShardCluster cluster) throws Exception {
        if (expected == null) {
            write(cluster.info(0));
        }
        if (decoded == null) {
            decoded = decode(cluster);
        }
        return decoded;
    }

    private void write(ShardInfo shard) throws SQLException {
        expected = List.of();   // written at most once per class, also when writing fails
        Written min = minimum();
        Written max = maximum();
        Written ordinary = ordinary();
        Written zero = zeroDates();
        Written nulls = allNull();
        Written ordinary13 = ordinary.with("ordinary as id 13", "id", lit("13", 13L));
        Written max12 = max.with("maximum as id 12", "id", lit("12", 12L));
        Written zeroNulled = new Written("zero dates with every other column NULL", nulls.with("", "id", lit("4", 4L)).values());
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            // zero dates and zero-in-date values need a session without NO_ZERO_DATE / NO_ZERO_IN_DATE / strict mode
            s.execute("SET SESSION sql_mode = ''");
            s.execute("SET SESSION time_zone = '+00:00'");
            s.execute("CREATE DATABASE " + DB + " CHARACTER SET utf8mb4");
            StringBuilder ddl = new StringBuilder("CREATE TABLE " + DB + "." + TABLE + " (");
            for (String[] col : COLUMNS) {
                ddl.append(col == COLUMNS.get(0) ? "" : ", ").append(col[0]).append(' ').append(col[1]);
            }
            s.execute(ddl.append(") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4").toString());
            for (Written w : List.of(min, max, ordinary, zero, nulls)) {
                insert(c, w);
            }
            update(c, "id = 1", ordinary13);
            update(c, "id IS NULL", max12);
            update(c, "id = 4", zeroNulled);
            for (int id : new int[] {13, 2, 3, 4, 12}) {
                s.execute("DELETE FROM " + DB + "." + TABLE + " WHERE id = " + id);
            }
            s.execute("FLUSH BINARY LOGS");
        }
        expected = List.of(
                new Written[] {null, min}, new Written[] {null, max}, new Written[] {null, ordinary},
                new Written[] {null, zero}, new Written[] {null, nulls},
                new Written[] {min, ordinary13}, new Written[] {nulls, max12}, new Written[] {zero, zeroNulled},
                new Written[] {ordinary13, null}, new Written[] {max, null}, new Written[] {ordinary, null},
                new Written[] {zeroNulled, null}, new Written[] {max12, null});
    }

    private static void insert(Connection c, Written w) throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT INTO " + DB + "." + TABLE + " VALUES (");
        for (String[] col : COLUMNS) {
            sql.append(col == COLUMNS.get(0) ? "" : ", ").append(w.values().get(col[0]).sql());
        }
        execute(c, sql.append(')').toString(), w);
    }

    private static void update(Connection c, String where, Written w) throws SQLException {
        StringBuilder sql = new StringBuilder("UPDATE " + DB + "." + TABLE + " SET ");
        for (String[] col : COLUMNS) {
            sql.append(col == COLUMNS.get(0) ? "" : ", ").append(col[0]).append(" = ").append(w.values().get(col[0]).sql());
        }
        execute(c, sql.append(" WHERE ").append(where).toString(), w);
    }

    private static void execute(Connection c, String sql, Written w) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(sql)) {
            int n = 1;
            for (String[] col : COLUMNS) {
                Value v = w.values().get(col[0]);
                if (v.sql().equals("?")) {
                    if (v.param() instanceof byte[] bytes) {
                        p.setBytes(n++, bytes);
                    } else {
                        p.setString(n++, (String) v.param());
                    }
                }
            }
            assertEquals(1, p.executeUpdate(), "rows changed by " + w.label());
        }
    }

    private Decoded decode(ShardCluster cluster) throws Exception {
        List<String> names = new ArrayList<>();
        try (Connection c = cluster.info(0).openReplConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        TableColumns table = null;
        int compressed = 0;
        List<RowChange> changes = new ArrayList<>();
        Map<String, List<String>> verbose = new LinkedHashMap<>();
        Map<String, Path> files = new LinkedHashMap<>();
        copies = Files.createTempDirectory("all-types-binlogs");
        for (String name : names) {
            byte[] bytes = readBinlog(cluster, name);
            Path copy = Files.write(copies.resolve(name), bytes);
            files.put(name, copy);
            List<String> lines = new ArrayList<>();
            verbose.put(name, lines);
            RowsEventDecoder rows = new RowsEventDecoder(cluster.info(0).name() + " " + name);
            for (BinlogEventDecoder events = new BinlogEventDecoder(name, bytes); events.hasNext(); ) {
                BinlogEvent e = events.next();
                if (e.body() instanceof TableMapEvent map) {
                    rows.remember(map);
                } else if (e.body() instanceof RowsEvent r) {
                    EventType original = EventType.ofCode(e.originalTypeCode());
                    compressed += original != null && original.isMariaCompressed() ? 1 : 0;
                    TableMapEvent map = rows.tableMap(r.tableId());
                    assertNotNull(map, name + " at " + e.offset() + ": a TABLE_MAP precedes the rows event");
                    boolean ours = map.database().equals(DB) && map.table().equals(TABLE);
                    for (RowChange change : rows.decode(e)) {
                        if (ours) {
                            changes.add(change);
                            table = change.before() != null ? change.before().table() : change.after().table();
                        }
                        for (Row row : new Row[] {change.before(), change.after()}) {
                            if (row != null) {
                                lines.addAll(List.of(new String(row.toVerboseBytes(), StandardCharsets.ISO_8859_1)
                                        .split("\n", -1)));
                            }
                        }
                    }
                }
            }
        }
        assertNotNull(table, "the binlog holds rows events of " + DB + "." + TABLE);
        return new Decoded(table, changes, verbose, files, compressed);
    }

    private void assertImage(String what, Written w, Row row) {
        if (w == null) {
            assertNull(row, what + " is absent");
            return;
        }
        assertNotNull(row, what + " is present");
        for (int i = 0; i < COLUMNS.size(); i++) {
            String name = COLUMNS.get(i)[0];
            String where = what + " column " + name + " (" + COLUMNS.get(i)[1] + ")";
            assertTrue(row.isPresent(i), where + " is in the FULL row image");
            Object expectedValue = w.values().get(name).expected();
            Object actual = row.get(i);
            if (expectedValue == null) {
                assertTrue(row.isNull(i), where + " is NULL, decoded " + actual);
            } else if (name.equals("bin")) {
                // BINARY(200) is zero-padded to its length; the server logs it without the trailing pad bytes
                assertArrayEquals(padded((byte[]) expectedValue, 200), padded((byte[]) actual, 200), where);
            } else if (name.equals("j")) {
                assertEquals(expectedValue, jsonText(actual), where);
            } else if (expectedValue instanceof byte[] bytes) {
                assertTrue(actual instanceof byte[], where + " decodes as bytes, not " + typeOf(actual));
                assertArrayEquals(bytes, (byte[]) actual, where);
            } else {
                assertEquals(expectedValue, actual, where + ": " + typeOf(expectedValue) + " written, "
                        + typeOf(actual) + " decoded");
            }
        }
    }

    // ---- the rows ----

    private static Written minimum() {
        Map<String, Value> v = new LinkedHashMap<>();
        v.put("id", lit("1", 1L));
        v.put("bit1", lit("b'0'", 0L));
        v.put("bit64", lit("b'1" + "0".repeat(63) + "'", Long.MIN_VALUE));
        ints(v, -128, 0, -32768, 0, -8388608, 0, Integer.MIN_VALUE, 0L, Long.MIN_VALUE, BigInteger.ZERO);
        v.put("d10_0", dec("-9999999999"));
        v.put("d10_3", dec("-9999999.999"));
        v.put("d65_30", dec("-" + "9".repeat(35) + "." + "9".repeat(30)));
        v.put("f", lit("-1.5", -1.5f));
        v.put("dbl", lit("-1.7976931348623157E308", -Double.MAX_VALUE));
        v.put("dt", param("1000-01-01", MysqlDateTime.ofDate(1000, 1, 1)));
        v.put("dtm", param("1000-01-01 00:00:00", new MysqlDateTime(1000, 1, 1, 0, 0, 0, 0)));
        v.put("dtm6", param("1000-01-01 00:00:00.000000", new MysqlDateTime(1000, 1, 1, 0, 0, 0, 0)));
        v.put("ts", param("1970-01-01 00:00:01", Instant.ofEpochSecond(1)));
        v.put("ts6", param("1970-01-01 00:00:01.000001", Instant.ofEpochSecond(1, 1_000)));
        v.put("tm", param("-838:59:59", new MysqlTime(true, 838, 59, 59, 0)));
        v.put("tm6", param("-838:59:59.000000", new MysqlTime(true, 838, 59, 59, 0)));
        v.put("yr", lit("1901", 1901));
        for (String text : List.of("ch", "vc", "vc5000", "tt", "tx", "mt", "lt")) {
            v.put(text, param("", ""));
        }
        for (String bytes : List.of("bin", "vbin", "tb", "b", "mb", "lb")) {
            v.put(bytes, param(new byte[0], new byte[0]));
        }
        v.put("e", param("small", new MysqlEnum(1, "small")));
        v.put("s", param("", new MysqlSet(0, List.of())));
        v.put("j", param("[]", "[]"));
        v.put("g", lit("ST_GeomFromText('POINT(0 0)')", point(0, 0)));
        return new Written("minimum values", v);
    }

    private static Written maximum() {
        Map<String, Value> v = new LinkedHashMap<>();
        v.put("id", lit("2", 2L));
        v.put("bit1", lit("b'1'", 1L));
        v.put("bit64", lit("b'" + "1".repeat(64) + "'", -1L));
        ints(v, 127, 255, 32767, 65535, 8388607, 16777215, Integer.MAX_VALUE, 4294967295L, Long.MAX_VALUE,
                new BigInteger("18446744073709551615"));
        v.put("d10_0", dec("9999999999"));
        v.put("d10_3", dec("9999999.999"));
        v.put("d65_30", dec("9".repeat(35) + "." + "9".repeat(30)));
        v.put("f", lit("16777216", 16777216f));
        v.put("dbl", lit("1.7976931348623157E308", Double.MAX_VALUE));
        v.put("dt", param("9999-12-31", MysqlDateTime.ofDate(9999, 12, 31)));
        v.put("dtm", param("9999-12-31 23:59:59", new MysqlDateTime(9999, 12, 31, 23, 59, 59, 0)));
        v.put("dtm6", param("9999-12-31 23:59:59.999999", new MysqlDateTime(9999, 12, 31, 23, 59, 59, 999_999)));
        v.put("ts", param("2038-01-19 03:14:07", Instant.ofEpochSecond(Integer.MAX_VALUE)));
        v.put("ts6", param("2038-01-19 03:14:07.999999", Instant.ofEpochSecond(Integer.MAX_VALUE, 999_999_000)));
        v.put("tm", param("838:59:59", new MysqlTime(false, 838, 59, 59, 0)));
        v.put("tm6", param("838:59:59.000000", new MysqlTime(false, 838, 59, 59, 0)));
        v.put("yr", lit("2155", 2155));
        v.put("ch", text(text(MIXED, 50)));
        v.put("vc", text(text(MIXED, 50)));
        v.put("vc5000", text(text(MIXED, 5000)));
        v.put("bin", bytes(bytes(200, 1)));
        v.put("vbin", bytes(bytes(200, 2)));
        v.put("tb", bytes(bytes(255, 3)));
        v.put("b", bytes(bytes(65_535, 4)));
        v.put("mb", bytes(bytes(300_000, 5)));
        v.put("lb", bytes(bytes(500_000, 6)));
        v.put("tt", text(text("\u00e9", 127)));
        v.put("tx", text(text("\u65e5", 21_845)));
        v.put("mt", text(text(MIXED, 100_000)));
        v.put("lt", text(text(MIXED, 150_000)));
        v.put("e", param("large", new MysqlEnum(3, "large")));
        v.put("s", param("red,green,blue", new MysqlSet(7, List.of("red", "green", "blue"))));
        String json = "{\"a\": [1, 2.5, \"x\", null, true], \"b\": {\"c\": \"\u00fc\"}}";
        v.put("j", param(json, json));
        v.put("g", lit("ST_GeomFromText('POINT(1.5 -2.25)')", point(1.5, -2.25)));
        return new Written("maximum values", v);
    }

    private static Written ordinary() {
        Map<String, Value> v = new LinkedHashMap<>();
        v.put("id", lit("3", 3L));
        v.put("bit1", lit("b'1'", 1L));
        v.put("bit64", lit("b'" + Long.toBinaryString(0x0123456789ABCDEFL) + "'", 0x0123456789ABCDEFL));
        ints(v, -1, 200, -300, 40000, -70000, 10000000, -100000, 3000000000L, -1234567890123L,
                new BigInteger("9223372036854775808"));
        v.put("d10_0", dec("-42"));
        v.put("d10_3", dec("-0.001"));
        v.put("d65_30", dec("-0.000000000000000000000000000001"));
        v.put("f", lit("0.1", 0.1f));
        v.put("dbl", lit("-0.1", -0.1));
        v.put("dt", param("2024-02-29", MysqlDateTime.ofDate(2024, 2, 29)));
        v.put("dtm", param("2024-02-29 12:34:56", new MysqlDateTime(2024, 2, 29, 12, 34, 56, 0)));
        v.put("dtm6", param("2024-02-29 12:34:56.123456", new MysqlDateTime(2024, 2, 29, 12, 34, 56, 123_456)));
        v.put("ts", param("2024-02-29 12:34:56", Instant.parse("2024-02-29T12:34:56Z")));
        v.put("ts6", param("2024-02-29 12:34:56.654321", Instant.parse("2024-02-29T12:34:56.654321Z")));
        v.put("tm", param("-00:00:01", new MysqlTime(true, 0, 0, 1, 0)));
        v.put("tm6", param("-00:00:00.500000", new MysqlTime(true, 0, 0, 0, 500_000)));
        v.put("yr", lit("2024", 2024));
        v.put("ch", text("h\u00e9llo w\u00f6rld \ud83d\ude00"));
        v.put("vc", text("\u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8\ud83d\ude00"));
        v.put("vc5000", text(text("abc\u20ac", 4999)));
        v.put("bin", bytes(new byte[] {0, 1, 0, (byte) 0xFF, 0}));
        v.put("vbin", bytes(new byte[] {0}));
        v.put("tb", bytes(new byte[] {0, 1, 2}));
        v.put("b", bytes(bytes(1000, 7)));
        v.put("mb", bytes(bytes(10, 8)));
        v.put("lb", bytes(bytes(70_000, 9)));
        v.put("tt", text("tiny \u2713"));
        v.put("tx", text("text\nwith\ttabs, 'quotes', \\ and \u0001 control"));
        v.put("mt", text("medium"));
        v.put("lt", text("long \ud83d\ude00"));
        v.put("e", param("medium", new MysqlEnum(2, "medium")));
        v.put("s", param("green", new MysqlSet(2, List.of("green"))));
        v.put("j", param("{\"k\": \"v\"}", "{\"k\": \"v\"}"));
        v.put("g", lit("ST_GeomFromText('LINESTRING(0 0, 1 1)')", geometry(2, 2, 0, 0, 1, 1)));
        return new Written("ordinary values", v);
    }

    private static Written zeroDates() {
        Map<String, Value> v = new LinkedHashMap<>(allNull().values());
        v.put("id", lit("4", 4L));
        v.put("dt", param("0000-00-00", MysqlDateTime.ofDate(0, 0, 0)));
        v.put("dtm", param("2024-00-00 00:00:00", new MysqlDateTime(2024, 0, 0, 0, 0, 0, 0)));
        v.put("dtm6", param("0000-00-00 00:00:00.000000", new MysqlDateTime(0, 0, 0, 0, 0, 0, 0)));
        v.put("ts", param("0000-00-00 00:00:00", Instant.EPOCH));
        v.put("ts6", param("0000-00-00 00:00:00.000000", Instant.EPOCH));
        v.put("tm", param("00:00:00", new MysqlTime(false, 0, 0, 0, 0)));
        v.put("yr", lit("0", 0));
        return new Written("zero dates", v);
    }

    private static Written allNull() {
        Map<String, Value> v = new LinkedHashMap<>();
        for (String[] col : COLUMNS) {
            v.put(col[0], Value.NULL);
        }
        return new Written("all NULL", v);
    }

    // ---- helpers ----

    private static String[] col(String name, String type) {
        return new String[] {name, type};
    }

    private static int index(String column) {
        for (int i = 0; i < COLUMNS.size(); i++) {
            if (COLUMNS.get(i)[0].equals(column)) {
                return i;
            }
        }
        throw new IllegalArgumentException(column);
    }

    private static Value lit(String sql, Object expected) {
        return new Value(sql, null, expected);
    }

    private static Value param(Object param, Object expected) {
        return new Value("?", param, expected);
    }

    private static Value text(String s) {
        return param(s, s);
    }

    private static Value bytes(byte[] b) {
        return param(b, b);
    }

    private static Value dec(String s) {
        return lit(s, new BigDecimal(s));
    }

    private static void ints(Map<String, Value> v, long ti, long tiu, long si, long siu, long mi, long miu, long i,
                             long iu, long bi, BigInteger biu) {
        long[] values = {ti, tiu, si, siu, mi, miu, i, iu, bi};
        String[] names = {"ti", "tiu", "si", "siu", "mi", "miu", "i", "iu", "bi"};
        for (int k = 0; k < names.length; k++) {
            v.put(names[k], lit(Long.toString(values[k]), values[k]));
        }
        // an unsigned BIGINT above Long.MAX_VALUE decodes as a BigInteger, anything else as a Long
        v.put("biu", lit(biu.toString(), biu.bitLength() > 63 ? biu : (Object) biu.longValue()));
    }

    /** A string of exactly {@code codePoints} code points cycling through those of {@code unit}. */
    private static String text(String unit, int codePoints) {
        int[] cps = unit.codePoints().toArray();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < codePoints; i++) {
            sb.appendCodePoint(cps[i % cps.length]);
        }
        return sb.toString();
    }

    /** Seeded random bytes with 0x00 at the start and in the middle. */
    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        b[0] = 0;
        b[n / 2] = 0;
        return b;
    }

    private static byte[] padded(byte[] b, int length) {
        return Arrays.copyOf(b, Math.max(length, b.length));
    }

    /** A POINT as the server stores it: SRID 0 (4 bytes) then little-endian WKB. */
    private static byte[] point(double x, double y) {
        return ByteBuffer.allocate(4 + 1 + 4 + 16).order(ByteOrder.LITTLE_ENDIAN).putInt(0).put((byte) 1).putInt(1)
                .putDouble(x).putDouble(y).array();
    }

    /** A geometry of {@code wkbType} with a point count and points, as the server stores it (SRID 0). */
    private static byte[] geometry(int wkbType, int points, double... xy) {
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + 4 + 4 + 8 * xy.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0).put((byte) 1).putInt(wkbType).putInt(points);
        for (double d : xy) {
            b.putDouble(d);
        }
        return b.array();
    }

    private static String typeOf(Object o) {
        return o == null ? "null" : o.getClass().getSimpleName() + " " + o;
    }

    private static String abbreviate(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "... (" + s.length() + " chars)";
    }

    /** The {@code ###   @N=} lines mariadb-binlog prints for a file, read as ISO-8859-1 to keep every byte. */
    private static List<String> mariadbBinlogValueLines(Path file) throws Exception {
        Path out = Files.createTempFile("mariadb-binlog", ".out");
        Path err = Files.createTempFile("mariadb-binlog", ".err");
        try {
            Process p = new ProcessBuilder(MARIADB_BINLOG.toString(), "--verbose", "--base64-output=decode-rows",
                    file.toString()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("mariadb-binlog did not finish within 120 s on " + file);
            }
            String errors = Files.readString(err, StandardCharsets.ISO_8859_1);
            assertEquals(0, p.exitValue(), "mariadb-binlog exit status on " + file + ": " + errors);
            List<String> lines = new ArrayList<>();
            for (String l : new String(Files.readAllBytes(out), StandardCharsets.ISO_8859_1).split("\n")) {
                if (l.startsWith("###   @")) {
                    lines.add(l);
                }
            }
            return lines;
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
