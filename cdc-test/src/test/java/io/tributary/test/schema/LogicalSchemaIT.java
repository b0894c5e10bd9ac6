package io.tributary.test.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The logical schema end to end: a daemon over 2 live MariaDB 10.11 shards (physical tables {@code shop_00.orders_0000},
 * {@code shop_00.orders_0001}, {@code shop_01.orders_0002}, ...), asked over its dump port by MariaDB Connector/J
 * and by the {@code mariadb} command-line client. Each schema statement's answer for the logical table is compared
 * with what a shard answers for one of its physical tables (names aside): rows, column labels and types, and the
 * {@code mariadb --column-type-info} description of every result-set column. The schema follows DDL run shard by
 * shard (one it cannot apply read again from the shard that wrote it), and survives a graceful restart and a
 * {@code kill -9}.
 */
@WithShards(count = 2)
class LogicalSchemaIT {

    private static final Path MARIADB_CLI = Path.of("/usr/bin/mariadb");
    private static final String ORDERS = "CREATE TABLE IF NOT EXISTS %s (id bigint unsigned NOT NULL AUTO_INCREMENT,"
            + " customer int NOT NULL, status enum('new','paid') NOT NULL DEFAULT 'new', amount decimal(12,2) NOT NULL"
            + " DEFAULT 0, note varchar(100) CHARACTER SET latin1 COMMENT 'free text', created timestamp NOT NULL DEFAULT"
            + " current_timestamp(), PRIMARY KEY (id), UNIQUE KEY uk (customer, status), KEY by_amount (amount))"
            + " DEFAULT CHARSET=utf8mb4";

    /** Physical database and tables of shard {@code i}: shop_0i with orders_(2i) and orders_(2i+1). */
    private static List<String> physicalOrders(int shard) {
        return List.of(String.format("shop_%02d.orders_%04d", shard, 2 * shard), String.format("shop_%02d.orders_%04d",
                shard, 2 * shard + 1));
    }

    private static void onEveryPhysicalTable(ShardCluster shards, String format) throws SQLException {
        onEveryPhysicalTable(shards, format, "orders");
    }

    /** Runs the statement on every physical table of logical table {@code table} (shop_00.table_0000 ...). */
    private static void onEveryPhysicalTable(ShardCluster shards, String format, String table) throws SQLException {
        for (int i = 0; i < shards.size(); i++) {
            try (Connection c = shards.info(i).openAdminConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE IF NOT EXISTS " + String.format("shop_%02d", i) + " CHARACTER SET utf8mb4");
                for (String t : physicalOrders(i)) {
                    s.execute(String.format(format, t.replace(".orders_", "." + table + "_")));
                }
            }
        }
    }

    private static Connection dump(DaemonProcess d) throws SQLException {
        return DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + d.dumpPort() + "/", DaemonProcess.DUMP_USER,
                DaemonProcess.DUMP_PASSWORD);
    }

    private static List<List<String>> rows(Connection c, String sql, String... renames) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData md = rs.getMetaData();
            List<List<String>> out = new ArrayList<>();
            List<String> header = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                String label = md.getColumnLabel(i);
                for (int k = 0; k + 1 < renames.length; k += 2) {
                    label = label.replace(renames[k], renames[k + 1]);
                }
                header.add(label + ":" + md.getColumnTypeName(i) + ":" + md.getColumnType(i));
            }
            out.add(header);
            while (rs.next()) {
                List<String> r = new ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    String v = rs.getString(i);
                    for (int k = 0; v != null && k + 1 < renames.length; k += 2) {
                        v = v.replace(renames[k], renames[k + 1]);
                    }
                    r.add(v);
                }
                out.add(r);
            }
            return out;
        }
    }

    private static String showCreate(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW CREATE TABLE " + table)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(2);
        }
    }

    /** The shard's SHOW CREATE TABLE of shop_00.orders_0000 as the logical table's. */
    private static String expectedOrders(ShardInfo shard) throws SQLException {
        try (Connection c = shard.openAdminConnection()) {
            return showCreate(c, "shop_00.orders_0000").replace("`orders_0000`", "`orders`");
        }
    }

    private static void awaitCreateTable(DaemonProcess d, String table, String expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String last = null;
        while (System.nanoTime() < deadline) {
            try (Connection c = dump(d)) {
                last = showCreate(c, table);
                if (last.equals(expected)) {
                    return;
                }
            } catch (SQLException e) {
                last = e.toString();
            }
            Thread.sleep(200);
        }
        assertThat(last).as("SHOW CREATE TABLE %s on the dump port within 60 s", table).isEqualTo(expected);
    }

    @Test
    void shouldAnswerSchemaStatementsAsTheShardsDoAndFollowDdlAcrossRestartsAndKill9(ShardCluster shards,
            @TempDir Path dir) throws Exception {
        onEveryPhysicalTable(shards, ORDERS);
        try (DaemonProcess d = DaemonProcess.builder(shards.infos(), dir).flavor("mariadb").start();
                Connection shard = shards.info(0).openAdminConnection()) {
            String expected = expectedOrders(shards.info(0));
            assertThat(cli(d, "SHOW FULL COLUMNS FROM orders FROM shop"))
                    .isEqualTo(cliOnShard(shards.info(0), "SHOW FULL COLUMNS FROM orders_0000 FROM shop_00"));
            assertThat(columnTypeInfo(cli(d, "SHOW INDEX FROM shop.orders")))
                    .isEqualTo(columnTypeInfo(cliOnShard(shards.info(0), "SHOW INDEX FROM shop_00.orders_0000")));
            assertThat(columnTypeInfo(cli(d, "SHOW TABLE STATUS FROM shop LIKE 'orders'")))
                    .isEqualTo(columnTypeInfo(cliOnShard(shards.info(0), "SHOW TABLE STATUS FROM shop_00 LIKE 'orders_0000'")));
            assertThat(columnTypeInfo(cli(d, "SHOW DATABASES"))).isEqualTo(columnTypeInfo(cliOnShard(shards.info(0),
                    "SHOW DATABASES")));
            try (Connection c = dump(d)) {
                assertThat(showCreate(c, "shop.orders")).isEqualTo(expected);
                assertThat(rows(c, "SHOW DATABASES").stream().map(r -> r.get(0)).toList())
                        .contains("shop", "information_schema").doesNotContain("shop_00", "shop_01", "__cdc__", "mysql");
                assertThat(rows(c, "SHOW FULL TABLES FROM shop WHERE Table_type = 'BASE TABLE'")).isEqualTo(
                        rows(shard, "SHOW FULL TABLES FROM shop_00 WHERE Table_type = 'BASE TABLE' AND Tables_in_shop_00"
                                + " LIKE 'orders_0000'", "shop_00", "shop", "orders_0000", "orders"));
                // each statement on the logical table answers what the shard answers on its physical table
                String[][] pairs = {
                    {"SHOW FULL COLUMNS FROM orders FROM shop", "SHOW FULL COLUMNS FROM orders_0000 FROM shop_00"},
                    {"SHOW COLUMNS FROM shop.orders LIKE 'c%'", "SHOW COLUMNS FROM shop_00.orders_0000 LIKE 'c%'"},
                    {"SHOW INDEX FROM shop.orders", "SHOW INDEX FROM shop_00.orders_0000"},
                    {"SHOW CREATE DATABASE shop", "SHOW CREATE DATABASE shop_00"},
                    {"SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH,"
                            + " CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION,"
                            + " CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE, COLUMN_KEY, EXTRA, COLUMN_COMMENT"
                            + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'orders'"
                            + " ORDER BY ORDINAL_POSITION",
                        "SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH,"
                            + " CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION,"
                            + " CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE, COLUMN_KEY, EXTRA, COLUMN_COMMENT"
                            + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'shop_00' AND TABLE_NAME = 'orders_0000'"
                            + " ORDER BY ORDINAL_POSITION"},
                    {"SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE, NULLABLE, INDEX_TYPE FROM"
                            + " information_schema.STATISTICS WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME IN ('orders')"
                            + " ORDER BY INDEX_NAME, SEQ_IN_INDEX",
                        "SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE, NULLABLE, INDEX_TYPE FROM"
                            + " information_schema.STATISTICS WHERE TABLE_SCHEMA = 'shop_00' AND TABLE_NAME IN ('orders_0000')"
                            + " ORDER BY INDEX_NAME, SEQ_IN_INDEX"},
                    {"SELECT CONSTRAINT_NAME, TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION FROM"
                            + " information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'shop' ORDER BY CONSTRAINT_NAME,"
                            + " ORDINAL_POSITION",
                        "SELECT CONSTRAINT_NAME, TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION FROM"
                            + " information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'shop_00' AND TABLE_NAME ="
                            + " 'orders_0000' ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION"},
                    {"SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA"
                            + " WHERE SCHEMA_NAME = 'shop'",
                        "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA"
                            + " WHERE SCHEMA_NAME = 'shop_00'"},
                    {"SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_COLLATION, TABLE_COMMENT FROM"
                            + " information_schema.TABLES WHERE TABLE_SCHEMA = 'shop'",
                        "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_COLLATION, TABLE_COMMENT FROM"
                            + " information_schema.TABLES WHERE TABLE_SCHEMA = 'shop_00' AND TABLE_NAME = 'orders_0000'"},
                };
                for (String[] p : pairs) {
                    assertThat(rows(c, p[0])).as(p[0]).isEqualTo(rows(shard, p[1], "shop_00", "shop", "orders_0000", "orders"));
                }
                assertThatThrownBy(() -> rows(c, "SHOW CREATE TABLE shop.nope")).isInstanceOfSatisfying(SQLException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(1146)).hasMessageContaining("Table 'shop.nope' doesn't exist");
                assertThatThrownBy(() -> rows(c, "SHOW CREATE DATABASE nope")).isInstanceOfSatisfying(SQLException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(1049)).hasMessageContaining("Unknown database 'nope'");
                assertThatThrownBy(() -> rows(c, "SHOW TABLES")).isInstanceOfSatisfying(SQLException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(1046));
                try (Statement s = c.createStatement()) {
                    s.execute("USE shop");
                }
                assertThat(rows(c, "SHOW TABLES")).hasSize(2);
                assertThat(showCreate(c, "orders")).isEqualTo(expected);
            }
            try (Connection c = dump(d)) { // COM_INIT_DB, as the mysql client's "use" and setCatalog send it
                c.setCatalog("shop");
                assertThat(showCreate(c, "orders")).isEqualTo(expected);
                assertThatThrownBy(() -> c.setCatalog("nope")).isInstanceOfSatisfying(SQLException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(1049));
            }

            // a DDL rolled out shard by shard, table by table: the schema follows the first copy written
            onEveryPhysicalTable(shards, "ALTER TABLE %s ADD COLUMN channel varchar(16) NOT NULL DEFAULT 'web' AFTER"
                    + " customer, ADD KEY by_channel (channel), DROP KEY by_amount");
            String altered = expectedOrders(shards.info(0));
            assertThat(altered).contains("`channel`").doesNotContain("by_amount");
            awaitCreateTable(d, "shop.orders", altered);
            onEveryPhysicalTable(shards, "CREATE TABLE IF NOT EXISTS %s (order_id bigint unsigned NOT NULL,"
                    + " sku varchar(20) NOT NULL, PRIMARY KEY (order_id, sku))", "items");
            String items;
            try (Connection c = shards.info(0).openAdminConnection()) {
                items = showCreate(c, "shop_00.items_0000").replace("`items_0000`", "`items`");
            }
            awaitCreateTable(d, "shop.items", items);

            // a DDL the schema cannot apply as written (a generated column's expression in the server's spelling is
            // unknown): logged, and the table read again from the shard that wrote it
            onEveryPhysicalTable(shards, "ALTER TABLE %s ADD COLUMN doubled bigint AS (customer * 2) VIRTUAL");
            altered = expectedOrders(shards.info(0));
            assertThat(altered).contains("GENERATED ALWAYS AS (`customer` * 2) VIRTUAL");
            awaitCreateTable(d, "shop.orders", altered);
            assertThat(d.logContains("cannot apply the DDL statement")).isTrue();
            java.util.Map<String, Double> metrics = d.metrics();
            assertThat(metrics.get("tributary_schema_ddl_total{outcome=\"reread\"}")).as("in %s", metrics.keySet())
                    .isEqualTo(1.0);
            assertThat(metrics.get("tributary_schema_ddl_total{outcome=\"applied\"}")).isGreaterThanOrEqualTo(2.0);
            assertThat(metrics.get("tributary_schema_ddl_total{outcome=\"failed\"}")).isZero();

            d.stop(Duration.ofSeconds(60));
            d.restart();
            try (Connection c = dump(d)) {
                assertThat(showCreate(c, "shop.orders")).as("after a graceful restart").isEqualTo(altered);
                assertThat(showCreate(c, "shop.items")).isEqualTo(items);
            }
            assertThat(d.logContains("logical schema built from")).as("built once, at the first start").isFalse();
            d.kill9();
            d.restart();
            try (Connection c = dump(d)) {
                assertThat(showCreate(c, "shop.orders")).as("after kill -9").isEqualTo(altered);
            }
            onEveryPhysicalTable(shards, "ALTER TABLE %s DROP COLUMN note");
            awaitCreateTable(d, "shop.orders", expectedOrders(shards.info(0)));
        }
    }

    private static String cli(DaemonProcess d, String sql) throws Exception {
        return runCli("127.0.0.1", d.dumpPort(), DaemonProcess.DUMP_USER, DaemonProcess.DUMP_PASSWORD, sql)
                .replace("`shop`", "`shop_00`").replace("`orders`", "`orders_0000`");
    }

    /** The column descriptions alone: without the rows and the lengths of the values in them. */
    private static String columnTypeInfo(String cliOutput) {
        int table = cliOutput.indexOf("\n+");
        return (table < 0 ? cliOutput : cliOutput.substring(0, table)).replaceAll("(?m)^Max_length:.*\n", "");
    }

    private static String cliOnShard(ShardInfo s, String sql) throws Exception {
        return runCli(s.host(), s.port(), s.adminUser(), s.adminPassword(), sql);
    }

    /** The mariadb client's {@code --column-type-info} description and rows. */
    private static String runCli(String host, int port, String user, String password, String sql) throws Exception {
        assumeTrue(Files.isExecutable(MARIADB_CLI), MARIADB_CLI + " is not installed");
        Process p = new ProcessBuilder(MARIADB_CLI.toString(), "--no-defaults", "--skip-ssl", "-h", host, "-P",
                String.valueOf(port), "-u", user, "-p" + password, "--column-type-info", "--table", "-e", sql)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("mariadb -e %s: %s", sql, out).isZero();
        return out;
    }
}
