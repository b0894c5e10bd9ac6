package io.tributary.core.naming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.event.rows.RowsReshaper;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.core.schema.SchemaTable;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.EmbeddedMariaDbShard;
import io.tributary.test.shard.ShardCluster;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: the value {@link LogicalShape} supplies for a column added by a DDL that a shard has not run yet is the
 * value the server itself writes for a row inserted without that column. On a live MariaDB shard, a table
 * {@code o (id)} and, per column definition below, a table {@code t_k (id, c <definition>)}, each get a row with
 * only {@code id}; the row of {@code o} is rewritten into {@code t_k}'s shape and must equal, byte for byte, the
 * row event the server wrote for {@code t_k} (and its TABLE_MAP the server's column types, metadata, nullability).
 * Likewise for a type widened (DECIMAL, FLOAT to DOUBLE, fractional seconds), against the server's own ALTER.
 */
@WithShards(count = 1)
class AddedColumnDefaultsIT {

    private static final String DB = "added_defaults";

    /** Column definitions whose value is supplied. */
    private static final List<String> SUPPLIED = List.of(
            "DATE DEFAULT '2021-03-04'", "DATE NOT NULL", "DATE DEFAULT NULL",
            "DATETIME DEFAULT '2021-03-04 05:06:07'", "DATETIME(2) DEFAULT '1999-12-31 23:59:59.99'",
            "DATETIME(3) DEFAULT '2021-03-04 05:06:07.891'", "DATETIME(6) NOT NULL DEFAULT '1000-01-01 00:00:00.000001'",
            "DATETIME(4) NOT NULL",
            "TIMESTAMP(3) NULL DEFAULT NULL", "TIMESTAMP NOT NULL DEFAULT '0000-00-00 00:00:00'",
            "TIME DEFAULT '12:34:56'", "TIME(1) DEFAULT '01:02:03.4'", "TIME(4) DEFAULT '838:59:59.9999'",
            "TIME(6) DEFAULT '100:00:00.000123'", "TIME NOT NULL",
            "DECIMAL(10,2) DEFAULT 12345678.91", "DECIMAL(5,0) DEFAULT 0",
            "DECIMAL(30,12) DEFAULT 123456789012345678.123456789012", "DECIMAL(65,30) DEFAULT 1.000000000000000000000000000001",
            "DECIMAL(4,4) NOT NULL", "DECIMAL(12,3) DEFAULT NULL",
            "FLOAT DEFAULT 1.1", "FLOAT DEFAULT 3.4e38", "DOUBLE DEFAULT 2.5e-7", "DOUBLE DEFAULT 0.1", "FLOAT NOT NULL",
            "DOUBLE NOT NULL",
            "YEAR DEFAULT 2024", "YEAR DEFAULT 1901", "YEAR NOT NULL",
            "ENUM('small','medium','large') DEFAULT 'medium'", "ENUM('a','b') NOT NULL",
            "ENUM('it''s','x') DEFAULT 'it''s'",
            "SET('red','green','blue') DEFAULT 'red,blue'", "SET('x','y') NOT NULL", "SET('a','b') DEFAULT ''",
            "TEXT", "TEXT NOT NULL", "TEXT DEFAULT 'h\u00e9llo'", "TINYTEXT NOT NULL", "MEDIUMTEXT DEFAULT 'x'",
            "LONGTEXT DEFAULT 'long'", "BLOB NOT NULL", "TINYBLOB DEFAULT 'b'", "MEDIUMBLOB", "LONGBLOB NOT NULL",
            "BIT(3) DEFAULT NULL", "GEOMETRY DEFAULT NULL", "BIT(3) DEFAULT b'101'", "BIT(12) NOT NULL DEFAULT b'100000000011'",
            "BIT(64) DEFAULT b'1000000000000000000000000000000000000000000000000000000000000001'", "BIT(1) NOT NULL",
            // negative defaults, read back from SHOW CREATE TABLE (DEFAULT -3.50)
            "DECIMAL(10,2) DEFAULT -3.50", "DECIMAL(65,30) DEFAULT -1.000000000000000000000000000001",
            "DECIMAL(9,0) DEFAULT -7", "INT DEFAULT -1", "BIGINT DEFAULT -9223372036854775808", "FLOAT DEFAULT -3.4e38",
            "DOUBLE DEFAULT -2.5e-7", "DOUBLE DEFAULT -1.5",
            "FLOAT(7,3) DEFAULT 1.5", "DOUBLE(10,4) DEFAULT -2.25", "FLOAT(5,2) NOT NULL",
            // JSON (MariaDB: LONGTEXT utf8mb4_bin with a json_valid check)
            "JSON", "JSON DEFAULT NULL", "JSON DEFAULT '{\"a\": [1, \"\u00e9\"]}'",
            // TIMESTAMP literals: seconds since the epoch from the DDL session's time zone (+05:30 here)
            "TIMESTAMP NULL DEFAULT '2020-01-01 00:00:00'", "TIMESTAMP(3) NOT NULL DEFAULT '2021-03-04 05:06:07.891'",
            // CURRENT_TIMESTAMP: the row's own time (the rows event's, SET TIMESTAMP below)
            "TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP", "TIMESTAMP(6) NULL DEFAULT CURRENT_TIMESTAMP(6)",
            "TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP",
            "DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3)", "DATETIME DEFAULT NOW() ON UPDATE NOW()",
            "DATETIME(2) NOT NULL DEFAULT CURRENT_TIMESTAMP(1)");

    /**
     * {@code DEFAULT x ON UPDATE CURRENT_TIMESTAMP}: x in an insert, the row's own time in the after image of an
     * update; both compared (the insert at {@link #INSERTED}, an update of every row at {@link #UPDATED}).
     */
    private static final List<String> ON_UPDATE = List.of(
            "TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP",
            "DATETIME(6) DEFAULT '2020-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP(6)",
            "TIMESTAMP(2) NOT NULL DEFAULT '2001-02-03 04:05:06.78' ON UPDATE CURRENT_TIMESTAMP(2)");

    /** The time of the inserts and of the updates ({@code SET TIMESTAMP}), seconds since the epoch. */
    private static final long INSERTED = 1_700_000_000L;
    private static final long UPDATED = 1_700_003_723L;

    /** The time zone of the test's session, its DDL's and its rows'. */
    private static final String ZONE = "+05:30";

    /** Column definitions whose value cannot be known to the rewrite: the plan must refuse them. */
    private static final Map<String, String> REFUSED = Map.of(
            "INT DEFAULT (1 + 1)", "default is an expression",
            "DOUBLE DEFAULT (RAND())", "default is an expression",
            "DATETIME DEFAULT (CURRENT_TIMESTAMP + INTERVAL 1 DAY)", "default is an expression");

    @Test
    void shouldSupplyTheBytesTheServerWritesForAColumnMissingFromAnInsert(ShardCluster cluster) throws Exception {
        Map<String, String> createTexts = new HashMap<>();
        List<String> defs = new java.util.ArrayList<>(SUPPLIED);
        defs.addAll(ON_UPDATE);
        defs.addAll(REFUSED.keySet());
        try (Connection c = cluster.info(0).openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("SET SESSION sql_mode = ''"); // implicit defaults of NOT NULL columns, as an ALTER gives old rows
            s.execute("SET SESSION time_zone = '" + ZONE + "'");
            s.execute("SET TIMESTAMP = " + INSERTED);
            s.execute("CREATE DATABASE " + DB + " CHARACTER SET utf8mb4");
            s.execute("CREATE TABLE " + DB + ".o (id INT NOT NULL)");
            s.execute("INSERT INTO " + DB + ".o (id) VALUES (1)");
            for (int k = 0; k < defs.size(); k++) {
                s.execute("CREATE TABLE " + DB + ".t_" + k + " (id INT NOT NULL, c " + defs.get(k) + ")");
                s.execute("INSERT INTO " + DB + ".t_" + k + " (id) VALUES (1)");
            }
            s.execute("SET TIMESTAMP = " + UPDATED);
            s.execute("UPDATE " + DB + ".o SET id = 2");
            for (int k = SUPPLIED.size(); k < SUPPLIED.size() + ON_UPDATE.size(); k++) {
                s.execute("UPDATE " + DB + ".t_" + k + " SET id = 2");
            }
            for (String table : tables(s)) {
                try (ResultSet rs = s.executeQuery("SHOW CREATE TABLE " + DB + "." + table)) {
                    rs.next();
                    createTexts.put(table, rs.getString(2));
                }
            }
        }
        Map<String, TableMapEvent> maps = new HashMap<>();
        Map<String, List<BinlogEvent>> rows = new HashMap<>();
        Map<String, String> ddlZones = new HashMap<>();
        readBinlog(cluster, DB, maps, rows, ddlZones);
        SchemaTable from = shape(createTexts.get("o"));
        // the shard's rows are those of sessions in ZONE (a server whose time zone it is)
        ShardServer server = ShardServer.of(BinlogFlavor.MARIADB, java.time.ZoneOffset.of(ZONE));
        int compared = 0;
        for (int k = 0; k < SUPPLIED.size() + ON_UPDATE.size(); k++) {
            String table = "t_" + k;
            String what = "c " + defs.get(k) + " (" + createTexts.get(table).replaceAll("\\s+", " ") + ")";
            SchemaTable to = shape(createTexts.get(table));
            RowsReshaper r = LogicalShape.plan("s0", DB + ".o", maps.get("o"), from, to,
                    server.withDdlTimeZone(ddlZones.get(table))).orElseThrow();
            TableMapEvent map = maps.get(table);
            assertThat(r.targetMap().columnTypes()).as(what + ": TABLE_MAP types").isEqualTo(map.columnTypes());
            assertThat(r.targetMap().metadata()).as(what + ": TABLE_MAP metadata").isEqualTo(map.metadata());
            assertThat(r.targetMap().nullable()).as(what + ": TABLE_MAP nullability").isEqualTo(map.nullable());
            assertSameTableMap(r, DB, "o", table, what);
            int events = k < SUPPLIED.size() ? 1 : 2;
            assertThat(rows.get(table)).as(what + ": rows events").hasSize(events);
            for (int e = 0; e < events; e++) {
                BinlogEvent source = rows.get("o").get(e);
                byte[] ours = r.rows(source, source.header().timestamp() * 1_000_000L).rawBytes();
                byte[] theirs = rows.get(table).get(e).rawBytes();
                String event = what + (e == 0 ? ": insert" : ": update");
                // after the header (19 bytes) and the 6-byte table id: flags, column count, bitmaps and the row
                // images; the server's event ends with its CRC32 checksum, the rewritten one has none
                assertThat(theirs.length - ours.length).as(event + ": length of the server's event less ours")
                        .isEqualTo(4);
                assertThat(hex(Arrays.copyOfRange(ours, 25, ours.length))).as(event + ": rows event after the table id")
                        .isEqualTo(hex(Arrays.copyOfRange(theirs, 25, theirs.length - 4)));
                compared++;
            }
        }
        int k = SUPPLIED.size() + ON_UPDATE.size();
        for (Map.Entry<String, String> refused : REFUSED.entrySet()) {
            SchemaTable to = shape(createTexts.get("t_" + k++));
            assertThatThrownBy(() -> LogicalShape.plan("s0", DB + ".o", maps.get("o"), from, to, server))
                    .as("c " + refused.getKey()).isInstanceOf(ShapeConflictException.class)
                    .hasMessageContaining("column `c`").hasMessageContaining(refused.getValue());
        }
        assertThat(compared).isEqualTo(SUPPLIED.size() + 2 * ON_UPDATE.size());
        System.out.printf("added-column defaults: %d column definitions, %d rows events equal to the server's bytes"
                + " (DDL session time zones in the binlog: %s), %d refused%n", SUPPLIED.size() + ON_UPDATE.size(),
                compared, new java.util.TreeSet<>(ddlZones.values()), REFUSED.size());
    }

    /**
     * {@code binlog_row_image=MINIMAL} and {@code NOBLOB} on the shard, tables with and without a primary key: an
     * insert, an update, an insert of the key alone and a delete on a table without the added columns, rewritten,
     * against the rows events the server writes for a table with them (a MINIMAL insert logs what the statement
     * gave and a CURRENT_TIMESTAMP the server set, its update the key before and the changed columns after, with
     * an ON UPDATE CURRENT_TIMESTAMP column; NOBLOB leaves out the TEXT columns a statement does not need). The
     * TABLE_MAPs here are those of {@code binlog_row_metadata=MINIMAL} but the last pair's (FULL: a UNIQUE NOT NULL
     * key, which the server takes for the primary key).
     */
    @Test
    void shouldRewritePartialImagesAsTheServerWritesThem(ShardCluster cluster) throws Exception {
        String db = "partial_images";
        List<String> statements = List.of("INSERT INTO %s (id, v, b) VALUES (1, 10, 'b')",
                "UPDATE %s SET v = 11 WHERE id = 1", "INSERT INTO %s (id) VALUES (2)", "DELETE FROM %s WHERE id = 2");
        String added = ", c INT DEFAULT 7, n TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,"
                + " u TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP, x TEXT DEFAULT 'x'";
        // per table pair: the session's binlog_row_image; a primary key (even), none (odd), a UNIQUE NOT NULL key (4)
        List<String> cases = List.of("MINIMAL", "MINIMAL", "NOBLOB", "NOBLOB", "MINIMAL");
        Map<String, String> createTexts = new HashMap<>();
        try (Connection c = cluster.info(0).openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("SET TIMESTAMP = " + INSERTED);
            s.execute("CREATE DATABASE " + db);
            // the TABLE_MAPs of this test as binlog_row_metadata=MINIMAL writes them (the others': FULL)
            s.execute("SET GLOBAL binlog_row_metadata = 'MINIMAL'");
            try {
                writeEach(s, db, cases, 0, 4, statements, added);
            } finally {
                s.execute("SET GLOBAL binlog_row_metadata = 'FULL'");
            }
            writeEach(s, db, cases, 4, 5, statements, added);
            createTexts.putAll(createTexts(s, db));
        }
        Map<String, TableMapEvent> maps = new HashMap<>();
        Map<String, List<BinlogEvent>> rows = new HashMap<>();
        readBinlog(cluster, db, maps, rows, new HashMap<>());
        assertThat(maps.get("t_0").optional().columnNames()).as("MINIMAL: no names").isEmpty();
        assertThat(maps.get("t_0").optional().isEmpty()).as("MINIMAL: signedness and charsets").isFalse();
        int partial = 0;
        for (int k = 0; k < cases.size(); k++) {
            RowsReshaper r = LogicalShape.plan("s0", db + ".o_" + k, maps.get("o_" + k), shape(createTexts.get("o_" + k)),
                    shape(createTexts.get("t_" + k)), ShardServer.withoutTimeZone(BinlogFlavor.MARIADB)
                            .withRowImage(RowsReshaper.RowImage.valueOf(cases.get(k)))).orElseThrow();
            assertSameTableMap(r, db, "o_" + k, "t_" + k, cases.get(k));
            for (int e = 0; e < statements.size(); e++) {
                BinlogEvent source = rows.get("o_" + k).get(e);
                byte[] ours = r.rows(source, source.header().timestamp() * 1_000_000L).rawBytes();
                byte[] theirs = rows.get("t_" + k).get(e).rawBytes();
                assertThat(hex(Arrays.copyOfRange(ours, 25, ours.length)))
                        .as(cases.get(k) + (k == 4 ? ", unique key: " : k % 2 == 0 ? ", primary key: " : ", no key: ")
                                + statements.get(e))
                        .isEqualTo(hex(Arrays.copyOfRange(theirs, 25, theirs.length - 4)));
                RowsEvent body = (RowsEvent) rows.get("t_" + k).get(e).body();
                partial += body.columnsPresent().cardinality() < body.columnCount() ? 1 : 0;
            }
        }
        assertThat(partial).as("rows events of partial images among the server's").isGreaterThanOrEqualTo(6);
        System.out.printf("partial row images: %d rows events (%d of partial images) equal to the server's bytes%n",
                cases.size() * statements.size(), partial);
    }

    /**
     * A type change rolled out: rows of a shard still in the old type, rewritten, equal the row the server writes
     * after {@code ALTER TABLE ... MODIFY} to the new type ({@code INSERT ... SELECT} of the altered value).
     */
    @Test
    void shouldConvertAWidenedColumnAsTheServersAlterDoes(ShardCluster cluster) throws Exception {
        String db = "widened";
        List<String[]> cases = List.of(new String[] {"DECIMAL(10,2)", "DECIMAL(12,2)", "12345678.91"},
                new String[] {"DECIMAL(10,2)", "DECIMAL(12,2)", "-3.5"},
                new String[] {"DECIMAL(5,2)", "DECIMAL(20,6)", "-999.99"},
                new String[] {"DECIMAL(9,0)", "DECIMAL(18,0)", "123456789"},
                new String[] {"DECIMAL(30,10)", "DECIMAL(40,12)", "-12345678901234567890.0123456789"},
                new String[] {"FLOAT", "DOUBLE", "1.1"}, new String[] {"FLOAT", "DOUBLE", "-3.4e38"},
                new String[] {"DATETIME", "DATETIME(3)", "'2021-03-04 05:06:07'"},
                new String[] {"DATETIME(2)", "DATETIME(6)", "'2021-03-04 05:06:07.12'"},
                new String[] {"DATETIME(3)", "DATETIME(4)", "'1999-12-31 23:59:59.123'"},
                new String[] {"TIMESTAMP(1) NULL", "TIMESTAMP(5) NULL", "'2021-03-04 05:06:07.1'"});
        Map<String, String> createTexts = new HashMap<>();
        try (Connection c = cluster.info(0).openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("SET SESSION time_zone = '+00:00'");
            s.execute("CREATE DATABASE " + db);
            for (int k = 0; k < cases.size(); k++) {
                String[] t = cases.get(k);
                for (String table : new String[] {"a_" + k, "b_" + k}) {
                    s.execute("CREATE TABLE " + db + "." + table + " (id INT NOT NULL, c " + t[0] + ")");
                }
                s.execute("INSERT INTO " + db + ".a_" + k + " VALUES (1, " + t[2] + ")");
                s.execute("INSERT INTO " + db + ".b_" + k + " VALUES (2, " + t[2] + ")");
                s.execute("ALTER TABLE " + db + ".b_" + k + " MODIFY c " + t[1]);
                s.execute("INSERT INTO " + db + ".b_" + k + " SELECT 1, c FROM " + db + ".b_" + k + " WHERE id = 2");
            }
            createTexts.putAll(createTexts(s, db));
        }
        Map<String, TableMapEvent> maps = new HashMap<>();
        Map<String, List<BinlogEvent>> rows = new HashMap<>();
        readBinlog(cluster, db, maps, rows, new HashMap<>());
        for (int k = 0; k < cases.size(); k++) {
            String what = String.join(" -> ", cases.get(k));
            SchemaTable from = shape(createTexts.get("a_" + k));
            SchemaTable to = shape(createTexts.get("b_" + k));
            RowsReshaper r = LogicalShape.plan("s0", db + ".a_" + k, maps.get("a_" + k), from, to).orElseThrow();
            TableMapEvent server = maps.get("b_" + k);
            assertThat(r.targetMap().columnTypes()).as(what + ": TABLE_MAP types").isEqualTo(server.columnTypes());
            assertThat(r.targetMap().metadata()).as(what + ": TABLE_MAP metadata").isEqualTo(server.metadata());
            assertSameTableMap(r, db, "a_" + k, "b_" + k, what);
            byte[] ours = r.rows(rows.get("a_" + k).get(0)).rawBytes();
            byte[] theirs = rows.get("b_" + k).get(rows.get("b_" + k).size() - 1).rawBytes();
            assertThat(hex(Arrays.copyOfRange(ours, 25, ours.length))).as(what + ": row event after the table id")
                    .isEqualTo(hex(Arrays.copyOfRange(theirs, 25, theirs.length - 4)));
        }
        for (String[] narrowing : new String[][] {{"c decimal(10,2)", "c decimal(10,3)"}, {"c double", "c float"},
                {"c datetime(3)", "c datetime(2)"}, {"c decimal(10,2)", "c decimal(10,2) unsigned"}}) {
            SchemaTable from = shape("CREATE TABLE x (" + narrowing[0] + ")");
            SchemaTable to = shape("CREATE TABLE x (" + narrowing[1] + ")");
            TableMapEvent map = new TableMapEvent(1, 1, db, "x", List.of(storageOf(from)), List.of(
                    AddedValues.storage(from.columns().get(0)).metadata()), new java.util.BitSet(),
                    io.tributary.core.event.TableMapOptionalMetadata.EMPTY);
            assertThatThrownBy(() -> LogicalShape.plan("s0", db + ".x", map, from, to)).as(String.join(" -> ", narrowing))
                    .isInstanceOf(ShapeConflictException.class).hasMessageContaining("column `c`");
        }
        System.out.printf("widened columns: %d type changes equal to the server's ALTER, byte for byte%n", cases.size());
    }

    /** Tables o_k (without the added columns) and t_k (with them), each statement on both, per row image k. */
    private static void writeEach(Statement s, String db, List<String> cases, int from, int to, List<String> statements,
            String added) throws SQLException {
        for (int k = from; k < to; k++) {
            s.execute("SET SESSION binlog_row_image = '" + cases.get(k) + "'");
            String columns = "id INT NOT NULL" + (k == 4 ? "" : k % 2 == 0 ? " PRIMARY KEY" : "") + ", v INT, b TEXT"
                    + (k == 4 ? ", UNIQUE KEY u (id)" : "");
            s.execute("CREATE TABLE " + db + ".o_" + k + " (" + columns + ")");
            s.execute("CREATE TABLE " + db + ".t_" + k + " (" + columns + added + ")");
            for (String st : statements) {
                s.execute(String.format(st, db + ".o_" + k));
                s.execute(String.format(st, db + ".t_" + k));
            }
        }
    }

    /** The TABLE_MAP events read, by database.table (the last of each). */
    private static final Map<String, BinlogEvent> MAP_EVENTS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The rewritten TABLE_MAP against the server's, from the column count to the end (the names differ: the
     * rewrite keeps the shard's), optional metadata included (the shards run binlog_row_metadata=FULL).
     */
    private static void assertSameTableMap(RowsReshaper r, String db, String source, String table, String what) {
        byte[] ours = r.tableMap(MAP_EVENTS.get(db + "." + source)).rawBytes();
        byte[] theirs = MAP_EVENTS.get(db + "." + table).rawBytes();
        assertThat(hex(Arrays.copyOfRange(ours, afterNames(ours), ours.length)))
                .as(what + ": TABLE_MAP after the names").isEqualTo(hex(Arrays.copyOfRange(theirs, afterNames(theirs),
                        theirs.length - 4)));
    }

    private static int afterNames(byte[] map) {
        int p = 19 + 8;
        p += 1 + (map[p] & 0xFF) + 1;
        return p + 1 + (map[p] & 0xFF) + 1;
    }

    private static io.tributary.core.event.ColumnType storageOf(SchemaTable t) {
        return AddedValues.storage(t.columns().get(0)).type();
    }

    /**
     * The TABLE_MAP, the rows events (in binlog order) and the time zone of the CREATE TABLE statement's session
     * (its Q_TIME_ZONE_CODE, where the server wrote one) of each table of {@code db}.
     */
    private static void readBinlog(ShardCluster cluster, String db, Map<String, TableMapEvent> maps,
            Map<String, List<BinlogEvent>> rows, Map<String, String> ddlZones) throws Exception {
        EmbeddedMariaDbShard shard = (EmbeddedMariaDbShard) cluster.shard(0);
        try (var files = Files.list(shard.binlogDirectory())) {
            for (var file : files.filter(f -> f.getFileName().toString().matches(".*\\.\\d{6}")).sorted().toList()) {
                Map<Long, TableMapEvent> byId = new HashMap<>();
                for (BinlogEventDecoder d = new BinlogEventDecoder(file.toString(), Files.readAllBytes(file)); d.hasNext(); ) {
                    BinlogEvent e = d.next();
                    if (e.body() instanceof TableMapEvent m && m.database().equals(db)) {
                        byId.put(m.tableId(), m);
                        maps.put(m.table(), m);
                        MAP_EVENTS.put(db + "." + m.table(), e);
                    } else if (e.body() instanceof RowsEvent r && byId.containsKey(r.tableId())) {
                        rows.computeIfAbsent(byId.get(r.tableId()).table(), t -> new java.util.ArrayList<>()).add(e);
                    } else if (e.body() instanceof io.tributary.core.event.QueryEvent q && q.status() != null
                            && q.status().timeZone() != null) {
                        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)^CREATE TABLE " + db
                                + "\\.(\\w+)").matcher(q.sql());
                        if (m.find()) {
                            ddlZones.put(m.group(1), q.status().timeZone());
                        }
                    }
                }
            }
        }
    }

    private static List<String> tables(Statement s) throws SQLException {
        return tables(s, DB);
    }

    private static List<String> tables(Statement s, String db) throws SQLException {
        List<String> out = new java.util.ArrayList<>();
        try (ResultSet rs = s.executeQuery("SHOW TABLES FROM " + db)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static SchemaTable shape(String createText) {
        return new SchemaDdl(BinlogFlavor.MARIADB).parseCreateTable(LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci"),
                DB, createText);
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /** {@code SHOW CREATE TABLE} of every table of {@code db}, by table name. */
    private static Map<String, String> createTexts(Statement s, String db) throws SQLException {
        Map<String, String> texts = new HashMap<>();
        for (String table : tables(s, db)) {
            try (ResultSet rs = s.executeQuery("SHOW CREATE TABLE " + db + "." + table)) {
                rs.next();
                texts.put(table, rs.getString(2));
            }
        }
        return texts;
    }
}
