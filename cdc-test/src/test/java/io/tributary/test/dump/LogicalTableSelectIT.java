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
import java.util.Map;
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
 *
 * <p>Snapshots and positions (issue 17), on the same shards and daemon: Debezium's snapshot statements with no writes
 * running give the union and the global binlog's end (exact); with writes running, the snapshot's rows plus the global
 * binlog's row events from the position answered, applied as upserts by key, equal the shards' tables at the end; a
 * sync point ({@code SHOW MASTER STATUS} outside a snapshot) covers a row just written on a shard; {@code KILL QUERY}
 * stops a streamed {@code SELECT} with error 1317; a snapshot while a shard is down is an error naming it, and works
 * again once the shard is back.
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
            // shop.pages: 2 x 1000 rows of 10 kB, more than the socket and channel buffers hold (KILL QUERY below)
            long pagesFrom = System.nanoTime();
            for (int i = 0; i < 2; i++) {
                Statement st = i == 0 ? st0 : st1;
                String t = i == 0 ? "shop_00.pages_0000" : "shop_01.pages_0001";
                st.execute("CREATE TABLE " + t + " (id int NOT NULL PRIMARY KEY, body mediumtext)");
                st.execute("SET SESSION max_recursive_iterations = 1500");
                st.execute("INSERT INTO " + t + " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                        + " WHERE i < 1000) SELECT i * 2 + " + i + ", REPEAT('x', 10000) FROM n");
            }
            System.out.printf("shop.pages written in %.1f s%n", (System.nanoTime() - pagesFrom) / 1e9);
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

            long snapshotsFrom = System.nanoTime();
            try (Connection other = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + d.dumpPort() + "/shop",
                    DaemonProcess.DUMP_USER, DaemonProcess.DUMP_PASSWORD)) {
                exactSnapshotWithNoWritesRunning(c, other, d, union);
                snapshotPhaseStatementsOfTheClientsAreAnswered(other, union);
                snapshotWithWritesRunningConvergesOnTheShards(shards, c, other, d, dir);
                syncPointCoversARowJustWritten(shards, other, dir);
                killQueryStopsAStreamedSelect(shards, c, other);
            }

            // a shard that cannot be reached: an error naming it, not a dropped connection or partial rows
            shards.shard(1).stop(Duration.ofSeconds(20));
            java.util.function.Consumer<String> namesShard1 = sql -> assertThatThrownBy(() -> rows(c, sql))
                    .as(sql).isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1429);
                        assertThat(e.getMessage()).contains("shard " + shards.info(1).name());
                    });
            namesShard1.accept("SELECT * FROM orders ORDER BY id");
            assertThat(rows(c, "SELECT 1")).containsExactly("1");
            // ... also for a snapshot and a position, and both work again once it is back
            try (Statement s = c.createStatement()) {
                assertThatThrownBy(() -> s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT"))
                        .isInstanceOfSatisfying(SQLException.class, e -> {
                            assertThat(e.getErrorCode()).isEqualTo(1429);
                            assertThat(e.getMessage()).contains("shard " + shards.info(1).name());
                        });
                // outside a snapshot a position is still given (the durable end, unsynchronised): a streaming
                // client is not stopped by a shard that is down
                assertThat(masterStatus(c)).isNotEmpty();
                shards.shard(1).start();
                s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
                assertThat(rows(c, "SELECT COUNT(*) FROM shop.pages")).containsExactly("2000");
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (true) { // the position waits for the daemon's reader of shard 1 to be back
                    try {
                        assertThat(masterStatus(c)).isNotEmpty();
                        break;
                    } catch (SQLException e) {
                        if (System.nanoTime() > deadline) {
                            throw e;
                        }
                    }
                }
                s.execute("COMMIT");
            }
            System.out.printf("snapshot scenarios took %.1f s%n", (System.nanoTime() - snapshotsFrom) / 1e9);
        }
    }

    // ---- snapshots and positions (issue 17)

    /** {@code SHOW MASTER STATUS} as file:position, and the session's {@code gtid_binlog_pos}. */
    private static String masterStatus(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            assertThat(rs.next()).isTrue();
            String at = rs.getString(1) + ":" + rs.getLong(2);
            return at + " " + rows(c, "SHOW GLOBAL VARIABLES LIKE 'GTID_BINLOG_POS'").get(0);
        }
    }

    /** Debezium's MariaDB connector's snapshot statements, with what they answer: the position and the rows. */
    private static String debeziumSnapshot(Connection c, List<String> rowsOut) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("FLUSH TABLES WITH READ LOCK");
            s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
            String position = masterStatus(c);
            s.execute("UNLOCK TABLES");
            rowsOut.addAll(rows(c, "SELECT * FROM shop.orders"));
            assertThat(masterStatus(c)).as("asked again in the same snapshot").isEqualTo(position);
            s.execute("COMMIT");
            return position;
        }
    }

    /**
     * What Debezium's MySQL (3.6.1) and MariaDB (3.5.0, each statement wrapped in {@code SET STATEMENT ... FOR}) connectors
     * and Flink CDC's MySQL source (3.2.1, incremental snapshot: chunk bounds, chunk reads between two watermarks) send
     * in their snapshot phase, from their sources: each answered without an error. Flink's query for the next chunk's
     * end on an unevenly distributed key (a subquery) is refused, as SELECT over a logical table serves no subquery.
     */
    private static void snapshotPhaseStatementsOfTheClientsAreAnswered(Connection c, List<String> union)
            throws SQLException {
        List<String> debezium = List.of("SET SESSION lock_wait_timeout=10", "SET SESSION innodb_lock_wait_timeout=10",
                "FLUSH TABLES WITH READ LOCK", "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
                "START TRANSACTION WITH CONSISTENT SNAPSHOT", "SHOW MASTER STATUS", "SHOW BINARY LOG STATUS",
                "SHOW GLOBAL VARIABLES LIKE 'GTID_BINLOG_POS'", "SHOW DATABASES",
                "SHOW FULL TABLES IN `shop` where Table_Type = 'BASE TABLE'",
                "SELECT schema_name, default_character_set_name, default_collation_name FROM information_schema.schemata",
                "SHOW CREATE TABLE `shop`.`orders`", "UNLOCK TABLES", "USE `shop`;", "SHOW TABLE STATUS LIKE 'orders';",
                "SELECT `id`, `customer`, `name`, `amount`, `created`, `tag` FROM `shop`.`orders`",
                "SELECT * FROM `shop`.`orders` LIMIT 1", "SELECT `id` FROM `shop`.`orders` ORDER BY `id` LIMIT 1 OFFSET 100",
                "SELECT 1", "COMMIT",
                // table locks (Debezium's fallback): a position under them is a sync point; a snapshot still starts
                "FLUSH TABLES `shop`.`orders` WITH READ LOCK", "SHOW MASTER STATUS",
                "START TRANSACTION WITH CONSISTENT SNAPSHOT", "SELECT COUNT(*) FROM `shop`.`orders`", "COMMIT",
                "UNLOCK TABLES");
        List<String> flink = List.of("SHOW MASTER STATUS", "USE `shop`;", "SHOW TABLE STATUS LIKE 'orders';",
                "SELECT MIN(`id`), MAX(`id`) FROM `shop`.`orders`", "SELECT MIN(`id`) FROM `shop`.`orders` WHERE `id` > 700",
                "SELECT * FROM `shop`.`orders` WHERE `id` <= 700 AND NOT (`id` = 700)", "SHOW MASTER STATUS",
                "SELECT * FROM `shop`.`orders` WHERE `id` >= 700 AND NOT (`id` = 1400) AND `id` <= 1400",
                "SELECT * FROM `shop`.`orders` WHERE `id` >= 1400", "SHOW MASTER STATUS");
        List<String> all = new ArrayList<>(debezium);
        debezium.forEach(sql -> all.add("SET STATEMENT max_statement_time=600 FOR " + sql));
        all.addAll(flink);
        try (Statement s = c.createStatement()) {
            for (String sql : all) {
                try {
                    if (s.execute(sql)) {
                        try (ResultSet rs = s.getResultSet()) {
                            while (rs.next()) {
                                // read to the end
                            }
                        }
                    }
                } catch (SQLException e) {
                    throw new AssertionError(sql + " was refused: " + e.getErrorCode() + " " + e.getMessage(), e);
                }
            }
            // Flink CDC's next chunk end on an unevenly spread key: the 100th id from 700 on, over all shards
            List<Long> from700 = union.stream().map(LogicalTableSelectIT::id).filter(id -> id >= 700).sorted().toList();
            assertThat(from700).hasSizeGreaterThan(100);
            assertThat(rows(c, "SELECT MAX(`id`) FROM (SELECT `id` FROM `shop`.`orders` WHERE `id` >= 700 ORDER BY `id`"
                    + " ASC LIMIT 100) AS T")).containsExactly(Long.toString(from700.get(99)));
            assertThat(rows(c, "SELECT MAX(`id`) FROM (SELECT `id` FROM `shop`.`orders` WHERE `id` >= 999999999"
                    + " ORDER BY `id` ASC LIMIT 100) AS T")).as("an empty window").containsExactly("null");
        }
    }

    private static void exactSnapshotWithNoWritesRunning(Connection c, Connection other, DaemonProcess d,
            List<String> union) throws SQLException {
        List<String> snapshot = new ArrayList<>();
        String position = debeziumSnapshot(c, snapshot);
        assertThat(snapshot.stream().sorted(Comparator.comparingLong(LogicalTableSelectIT::id)).toList())
                .isEqualTo(union);
        // exact: the global binlog's end (asked as a sync point on another connection), nothing after it to apply
        assertThat(position).isEqualTo(masterStatus(other));
        assertThat(d.logContains("(G1, exact")).as("the daemon logs the exact answer").isTrue();
        // a sync point on the idle cluster is cheap: no wait for a heartbeat
        long[] nanos = new long[10];
        for (int i = 0; i < nanos.length; i++) {
            long t0 = System.nanoTime();
            rows(other, "SELECT @@gtid_binlog_pos");
            nanos[i] = System.nanoTime() - t0;
        }
        java.util.Arrays.sort(nanos);
        System.out.printf("sync point on the idle cluster: median %.1f ms, max %.1f ms%n", nanos[5] / 1e6,
                nanos[9] / 1e6);
        assertThat(nanos[5]).as("median of 10 sync points, ns").isLessThan(100_000_000L);
        assertThat(nanos[9]).as("slowest of 10 sync points, ns").isLessThan(1_000_000_000L);
    }

    /**
     * Writes on the 3 physical tables (inserts, updates, deletes, some two to a transaction) while a snapshot is taken:
     * the snapshot's rows, with the global binlog's events from the position answered applied in order as upserts by
     * key, are the shards' rows at the end, row by row.
     */
    private static void snapshotWithWritesRunningConvergesOnTheShards(ShardCluster shards, Connection c,
            Connection other, DaemonProcess d, Path dir) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread load = new Thread(() -> {
            Random random = new Random(5);
            long next = 100_000;
            try (Connection s0 = shards.info(0).openAdminConnection();
                    Connection s1 = shards.info(1).openAdminConnection()) {
                while (!stop.get()) {
                    int table = random.nextInt(3);
                    Connection s = table < 2 ? s0 : s1;
                    String t = TABLES[table];
                    try (Statement st = s.createStatement()) {
                        int op = random.nextInt(10);
                        if (op < 3) {
                            st.execute("INSERT INTO " + t + " (id, customer, amount) VALUES (" + next++ + ", 9, 1.25)");
                        } else if (op < 9) {
                            long id = 7L * (1 + random.nextInt(ROWS));
                            if (op == 8) {
                                s.setAutoCommit(false); // two updates in one transaction
                            }
                            st.execute("UPDATE " + t + " SET customer = customer + 1, amount = " + random.nextInt(9000)
                                    + " / 100 WHERE id = " + id);
                            if (op == 8) {
                                st.execute("UPDATE " + t + " SET amount = amount + 1 WHERE id IN (SELECT id FROM"
                                        + " (SELECT id FROM " + t + " LIMIT 1) x)");
                                s.commit();
                                s.setAutoCommit(true);
                            }
                        } else {
                            st.execute("DELETE FROM " + t + " WHERE id = " + 7L * (1 + random.nextInt(ROWS)));
                        }
                        writes.incrementAndGet();
                    }
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "snapshot-load");
        load.start();
        Thread.sleep(200);
        long[] nanos = new long[3]; // what a sync point costs with writes running (Flink CDC asks two per chunk)
        for (int i = 0; i < nanos.length; i++) {
            long t0 = System.nanoTime();
            masterStatus(other);
            nanos[i] = System.nanoTime() - t0;
        }
        java.util.Arrays.sort(nanos);
        System.out.printf("sync point with writes running: median %.0f ms, max %.0f ms (the daemon's delay now: %.0f ms)%n",
                nanos[1] / 1e6, nanos[2] / 1e6, DaemonProcess.sum(d.metrics(), "tributary_delay_max_milliseconds"));
        List<String> snapshot = new ArrayList<>();
        String position = debeziumSnapshot(c, snapshot);
        long writesDuringSnapshot = writes.get();
        Thread.sleep(200);
        stop.set(true);
        load.join(30_000);
        assertThat(failed.get()).isNull();
        assertThat(writes.get()).isGreaterThan(writesDuringSnapshot);
        String end = masterStatus(other); // a sync point: every write above is in the global binlog up to here

        Map<Long, String> state = new java.util.TreeMap<>();
        for (String row : snapshot) {
            String[] v = row.split("\\|", -1);
            state.put(Long.parseLong(v[0]), v[1] + "|" + v[3]);
        }
        int applied = applyGlobalBinlog(dir.resolve("binlog"), position, end, state);
        Map<Long, String> shardsNow = new java.util.TreeMap<>();
        for (String t : TABLES) {
            try (Connection s = shards.info(t.startsWith("shop_00") ? 0 : 1).openAdminConnection()) {
                for (String row : rows(s, "SELECT id, customer, amount FROM " + t)) {
                    String[] v = row.split("\\|", -1);
                    shardsNow.put(Long.parseLong(v[0]), v[1] + "|" + v[2]);
                }
            }
        }
        System.out.printf("snapshot with writes running: %d writes, snapshot at %s (%s), %d row events applied up to"
                + " %s%n", writes.get(), position, d.logContains("(G0, at-least-once") ? "G0, at-least-once" : "G1, exact",
                applied, end);
        assertThat(applied).isPositive();
        for (Map.Entry<Long, String> e : shardsNow.entrySet()) {
            assertThat(state.get(e.getKey())).as("row %d", e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(state.keySet()).isEqualTo(shardsNow.keySet());
    }

    /** A row written on a shard, then a sync point: the global binlog up to the position answered holds it. */
    private static void syncPointCoversARowJustWritten(ShardCluster shards, Connection other, Path dir)
            throws Exception {
        try (Connection s1 = shards.info(1).openAdminConnection(); Statement st = s1.createStatement()) {
            st.execute("INSERT INTO " + TABLES[2] + " (id, customer, amount) VALUES (999999, 4, 2.50)");
        }
        String at = masterStatus(other);
        Map<Long, String> rows = new java.util.TreeMap<>();
        applyGlobalBinlog(dir.resolve("binlog"), null, at, rows);
        assertThat(rows).containsEntry(999_999L, "4|2.50");
    }

    /**
     * Applies the row events of {@code shop.orders} in the global binlog from {@code from} (null: its start) up to
     * {@code to} ("file:pos ..." as {@link #masterStatus} gives them) to {@code state} (id to customer|amount) as
     * upserts and deletes by key; returns how many row changes it applied.
     */
    private static int applyGlobalBinlog(Path binlog, String from, String to, Map<Long, String> state)
            throws Exception {
        String[] start = from == null ? null : from.split(" ")[0].split(":");
        String[] end = to.split(" ")[0].split(":");
        io.tributary.core.event.rows.RowsEventDecoder decoder = new io.tributary.core.event.rows.RowsEventDecoder(
                "global");
        int applied = 0;
        List<Path> files;
        try (var list = java.nio.file.Files.list(binlog)) {
            files = list.filter(f -> f.getFileName().toString().matches("binlog\\.\\d+")).sorted().toList();
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (start != null && name.compareTo(start[0]) < 0 || name.compareTo(end[0]) > 0) {
                continue;
            }
            byte[] bytes = java.nio.file.Files.readAllBytes(f);
            int length = name.equals(end[0]) ? Integer.parseInt(end[1]) : bytes.length; // nothing past the durable end
            io.tributary.core.event.BinlogEventDecoder events = new io.tributary.core.event.BinlogEventDecoder(name,
                    bytes, 0, length, io.tributary.core.event.DecoderOptions.FULL);
            long skipBelow = start != null && name.equals(start[0]) ? Long.parseLong(start[1]) : 0;
            while (events.hasNext()) {
                io.tributary.core.event.BinlogEvent e = events.next();
                if (e.body() instanceof io.tributary.core.event.TableMapEvent m) {
                    decoder.remember(m);
                    continue;
                }
                if (e.offset() < skipBelow || e.type() == null || !e.type().isRows()) {
                    continue;
                }
                io.tributary.core.event.TableMapEvent m = decoder.tableMap(io.tributary.core.event.RowsEvent.tableIdOf(e));
                if (m == null || !m.database().equals("shop") || !m.table().equals("orders")) {
                    continue;
                }
                for (io.tributary.core.event.rows.RowChange change : decoder.decode(e)) {
                    if (change.after() == null) {
                        state.remove(((Number) change.before().get(0)).longValue());
                    } else {
                        io.tributary.core.event.rows.Row r = change.after();
                        state.put(((Number) r.get(0)).longValue(), ((Number) r.get(1)).longValue() + "|"
                                + ((java.math.BigDecimal) r.get(3)).toPlainString());
                    }
                    applied++;
                }
            }
        }
        return applied;
    }

    /**
     * {@code KILL QUERY} from another connection stops a streamed {@code SELECT} the client reads slowly: the client
     * gets error 1317 instead of the rest of the rows, the shards' queries end, and the connection goes on.
     */
    private static void killQueryStopsAStreamedSelect(ShardCluster shards, Connection c, Connection other)
            throws Exception {
        killStreamedPages(c, other);
        assertThat(rows(c, "SELECT 1")).containsExactly("1");
        // in a snapshot transaction: the shard's query is cancelled, the transaction goes on
        try (Statement s = c.createStatement()) {
            s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
            killStreamedPages(c, other);
            assertThat(rows(c, "SELECT COUNT(*) FROM shop.pages")).containsExactly("2000");
            assertThat(rows(c, "SELECT id FROM shop.pages ORDER BY id LIMIT 2")).containsExactly("2", "3");
            s.execute("COMMIT");
        }
        for (int i = 0; i < 2; i++) {
            try (Connection s = shards.info(i).openAdminConnection()) {
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (!rows(s, "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '%pages_000%'"
                        + " AND INFO NOT LIKE '%PROCESSLIST%'").isEmpty()) {
                    assertThat(System.nanoTime()).as("shard %d's query ended", i).isLessThan(deadline);
                    Thread.sleep(50);
                }
            }
        }
    }

    /** Streams shop.pages on {@code c}, reads a row, kills the statement from {@code other}: error 1317 follows. */
    private static void killStreamedPages(Connection c, Connection other) throws Exception {
        long id = Long.parseLong(rows(c, "SELECT CONNECTION_ID()").get(0));
        int read = 0;
        try (Statement s = c.createStatement()) {
            s.setFetchSize(10);
            try (ResultSet rs = s.executeQuery("SELECT * FROM shop.pages")) {
                assertThat(rs.next()).isTrue();
                read++;
                Thread.sleep(300); // the daemon fills the buffers and waits for the client
                try (Statement k = other.createStatement()) {
                    k.execute("KILL QUERY " + id);
                }
                SQLException error = null;
                try {
                    while (rs.next()) {
                        read++;
                    }
                } catch (SQLException e) {
                    error = e;
                }
                assertThat((Object) error).as("after %d rows", read).isNotNull();
                assertThat(error.getErrorCode()).isEqualTo(1317);
                assertThat(read).isLessThan(2000);
                System.out.printf("KILL QUERY: the client read %d of 2000 rows, then error 1317%n", read);
            }
        }
    }
}
