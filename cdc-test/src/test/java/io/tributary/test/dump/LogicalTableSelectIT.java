package io.tributary.test.dump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code SELECT} over a logical table, end to end: a daemon over 2 live MariaDB 10.11 shards holding the logical table
 * {@code shop.orders} as three physical tables ({@code shop_00.orders_0000} and {@code shop_00.orders_0001} on shard 0,
 * {@code shop_01.orders_0002} on shard 1), asked over its dump port by MariaDB Connector/J. What it answers is
 * compared with the shards' own tables: {@code SELECT *} is their union row for row, in the physical tables' column
 * types; {@code ORDER BY} the key (and a utf8mb4_general_ci text column) is the order a single server gives the same
 * rows (a copy of the union on shard 0); WHERE, LIMIT/OFFSET, COUNT(*), MIN/MAX; an unsupported query is 1235 and
 * a stopped shard an error naming it.
 */
@WithShards(count = 2)
class LogicalTableSelectIT {

    private static final String ORDERS = "CREATE TABLE %s (id bigint unsigned NOT NULL, customer int NOT NULL,"
            + " name varchar(40) COLLATE utf8mb4_general_ci, amount decimal(10,2) NOT NULL, created datetime(3),"
            + " tag varbinary(8), PRIMARY KEY (id), KEY by_name (name)) DEFAULT CHARSET=utf8mb4";
    private static final String[] TABLES = {"shop_00.orders_0000", "shop_00.orders_0001", "shop_01.orders_0002"};
    private static final String[] NAMES = {"alice", "Alice", "ÄRGER", "arger", "bob", "Bob ", "émile", "Emile", "zoë",
        "Zorro", "ß", "ss", "", null};
    private static final int ROWS = 1500;

    private static String row(ResultSet rs) throws SQLException {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
            sb.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        return sb.toString();
    }

    private static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(row(rs));
            }
        }
        return out;
    }

    private static List<String> shape(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                out.add(md.getColumnLabel(i) + ":" + md.getColumnTypeName(i) + ":" + md.getColumnType(i) + ":"
                        + md.getPrecision(i) + ":" + md.getScale(i) + ":" + md.isNullable(i) + ":" + md.isSigned(i));
            }
        }
        return out;
    }

    /** The {@code mariadb} client's {@code --column-type-info} description and rows of a statement. */
    private static String cli(int port, String user, String password, String sql) throws Exception {
        Path client = Path.of("/usr/bin/mariadb");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(client), client + " is not installed");
        Process p = new ProcessBuilder(client.toString(), "--no-defaults", "--skip-ssl", "-h", "127.0.0.1", "-P",
                String.valueOf(port), "-u", user, "-p" + password, "--column-type-info", "--batch", "-e", sql)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("mariadb -e %s: %s", sql, out).isZero();
        return out;
    }

    /** Equal lists; on a difference, the rows around the first one. */
    private static void assertSameRows(List<String> actual, List<String> expected) {
        for (int i = 0; i < Math.min(actual.size(), expected.size()); i++) {
            if (!actual.get(i).equals(expected.get(i))) {
                int from = Math.max(0, i - 3);
                assertThat(actual.subList(from, Math.min(actual.size(), i + 6))).as("rows from %d", from)
                        .isEqualTo(expected.subList(from, Math.min(expected.size(), i + 6)));
            }
        }
        assertThat(actual).hasSameSizeAs(expected);
    }

    private static List<String> reversed(List<String> rows) {
        List<String> r = new ArrayList<>(rows);
        java.util.Collections.reverse(r);
        return r;
    }

    private static long id(String row) {
        return Long.parseLong(row.substring(0, row.indexOf('|')));
    }

    @Test
    void shouldAnswerSelectOverALogicalTableAsTheUnionOfItsPhysicalTables(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        Random random = new Random(17);
        try (Connection s0 = shards.info(0).openAdminConnection(); Connection s1 = shards.info(1).openAdminConnection();
                Statement st0 = s0.createStatement(); Statement st1 = s1.createStatement()) {
            st0.execute("CREATE DATABASE shop_00");
            st1.execute("CREATE DATABASE shop_01");
            st0.execute("CREATE DATABASE reference");
            st0.execute(String.format(ORDERS, "reference.all_orders"));
            for (String t : TABLES) {
                (t.startsWith("shop_00") ? st0 : st1).execute(String.format(ORDERS, t));
            }
            String insert = "INSERT INTO %s VALUES (?, ?, ?, ?, ?, ?)";
            PreparedStatement[] ps = {s0.prepareStatement(String.format(insert, TABLES[0])),
                s0.prepareStatement(String.format(insert, TABLES[1])), s1.prepareStatement(String.format(insert,
                TABLES[2])), s0.prepareStatement(String.format(insert, "reference.all_orders"))};
            {
                for (int id = 1; id <= ROWS; id++) {
                    int table = random.nextInt(3);
                    java.math.BigDecimal amount = java.math.BigDecimal.valueOf(random.nextInt(1_000_000) - 500_000, 2);
                    for (PreparedStatement p : new PreparedStatement[] {ps[table], ps[3]}) {
                        p.setLong(1, id * 7L);
                        p.setInt(2, id % 5);
                        p.setString(3, NAMES[id % NAMES.length]);
                        p.setBigDecimal(4, amount);
                        p.setString(5, id % 9 == 0 ? null : "2026-11-" + (10 + id % 18) + " 10:11:12." + (id % 1000));
                        p.setBytes(6, id % 4 == 0 ? null : new byte[] {(byte) id, (byte) 0x80, 0});
                        p.addBatch();
                    }
                }
                for (PreparedStatement p : ps) {
                    p.executeBatch();
                }
            }
        }
        try (DaemonProcess d = DaemonProcess.builder(shards.infos(), dir).flavor("mariadb").start();
                Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + d.dumpPort() + "/shop",
                        DaemonProcess.DUMP_USER, DaemonProcess.DUMP_PASSWORD);
                Connection ref = shards.info(0).openAdminConnection()) {
            List<String> union = new ArrayList<>();
            for (String t : TABLES) {
                try (Connection s = shards.info(t.startsWith("shop_00") ? 0 : 1).openAdminConnection()) {
                    union.addAll(rows(s, "SELECT * FROM " + t));
                }
            }
            assertThat(union).hasSize(ROWS);
            union.sort(Comparator.comparingLong(LogicalTableSelectIT::id));

            // SELECT *: the union, in the physical tables' shape and with the logical names
            List<String> all = rows(c, "SELECT * FROM shop.orders");
            assertThat(all).hasSize(ROWS);
            assertThat(all.stream().sorted(Comparator.comparingLong(LogicalTableSelectIT::id)).toList()).isEqualTo(union);
            assertThat(shape(c, "SELECT * FROM orders")).isEqualTo(shape(ref, "SELECT * FROM shop_00.orders_0000"));
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id AS k, name FROM orders"
                    + " LIMIT 1")) {
                assertThat(rs.getMetaData().getTableName(1)).isEqualTo("orders");
                assertThat(rs.getMetaData().getColumnLabel(1)).isEqualTo("k");
            }

            // the mariadb client sees the rows and column descriptions a server sends for the same rows (raw text)
            String first50 = "SELECT * FROM %s ORDER BY id LIMIT 50";
            assertThat(cli(d.dumpPort(), DaemonProcess.DUMP_USER, DaemonProcess.DUMP_PASSWORD, String.format(first50,
                    "shop.orders")).replace("shop", "reference").replace("orders", "all_orders"))
                    .isEqualTo(cli(shards.info(0).port(), shards.info(0).adminUser(), shards.info(0).adminPassword(),
                            String.format(first50, "reference.all_orders")));

            // ORDER BY: a k-way merge, in the order one server gives the same rows
            assertThat(rows(c, "SELECT * FROM shop.orders ORDER BY id")).isEqualTo(union);
            assertSameRows(rows(c, "SELECT id, name FROM shop.orders ORDER BY name, id DESC"),
                    rows(ref, "SELECT id, name FROM reference.all_orders ORDER BY name, id DESC"));
            String byTime = " ORDER BY created DESC, amount, id LIMIT 40 OFFSET 3";
            assertThat(rows(c, "SELECT id, name, created FROM orders" + byTime))
                    .isEqualTo(rows(ref, "SELECT id, name, created FROM reference.all_orders" + byTime));
            assertThat(rows(c, "SELECT * FROM orders ORDER BY id DESC LIMIT 10 OFFSET 5"))
                    .isEqualTo(reversed(union).subList(5, 15));

            // WHERE on a key range and simple predicates, passed to the shards
            String where = " WHERE id BETWEEN 700 AND 5600 AND (customer IN (1, 2) OR name IS NULL) AND amount > -2000";
            assertThat(rows(c, "SELECT * FROM orders" + where + " ORDER BY id"))
                    .isEqualTo(rows(ref, "SELECT * FROM reference.all_orders" + where + " ORDER BY id"))
                    .isNotEmpty();
            assertThat(rows(c, "SELECT * FROM orders LIMIT 7")).hasSize(7).isSubsetOf(union);

            // row-count estimates: the sums of the shards' (InnoDB's estimates, so compared with theirs)
            long estimate = 0;
            for (String t : TABLES) {
                try (Connection s = shards.info(t.startsWith("shop_00") ? 0 : 1).openAdminConnection()) {
                    String[] dbTable = t.split("\\.");
                    estimate += Long.parseLong(rows(s, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE"
                            + " TABLE_SCHEMA = '" + dbTable[0] + "' AND TABLE_NAME = '" + dbTable[1] + "'").get(0));
                }
            }
            assertThat(estimate).isPositive();
            assertThat(rows(c, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'shop' AND"
                    + " TABLE_NAME = 'orders'")).containsExactly(String.valueOf(estimate));
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW TABLE STATUS LIKE 'orders'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong("Rows")).isEqualTo(estimate);
            }

            // aggregates over the shards
            assertThat(rows(c, "SELECT COUNT(*) FROM orders")).containsExactly(String.valueOf(ROWS));
            String aggregates = "SELECT COUNT(*), COUNT(name), MIN(id), MAX(id), MIN(name), MAX(name), MIN(amount),"
                    + " MAX(created) FROM ";
            assertThat(rows(c, aggregates + "orders" + where))
                    .isEqualTo(rows(ref, aggregates + "reference.all_orders" + where));
            assertThat(rows(c, aggregates + "orders WHERE id < 0"))
                    .isEqualTo(rows(ref, aggregates + "reference.all_orders WHERE id < 0"));

            // anything else: 1235 saying what is served, and the connection goes on
            assertThatThrownBy(() -> rows(c, "SELECT customer, COUNT(*) FROM orders GROUP BY customer"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1235);
                        assertThat(e.getMessage()).contains("GROUP BY").contains("ORDER BY its columns");
                    });
            assertThatThrownBy(() -> rows(c, "SELECT nope FROM orders"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(1054));
            assertThat(rows(c, "SELECT COUNT(*) FROM orders WHERE id = 7")).hasSize(1);

            // a shard that cannot be reached: an error naming it, not a dropped connection or partial rows
            shards.shard(1).stop(Duration.ofSeconds(20));
            assertThatThrownBy(() -> rows(c, "SELECT * FROM orders ORDER BY id"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1429);
                        assertThat(e.getMessage()).contains("shard " + shards.info(1).name());
                    });
            assertThat(rows(c, "SELECT 1")).containsExactly("1");
        }
    }
}
