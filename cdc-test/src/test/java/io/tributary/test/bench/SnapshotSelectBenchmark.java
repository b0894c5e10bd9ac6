package io.tributary.test.bench;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code SELECT} over a logical table through the daemon's dump port against reading the physical tables directly
 * from the shards, in the same run, with the same client (MariaDB Connector/J, streaming with fetch size 1000,
 * {@code getString} of every column), alternating the two.
 *
 * <p>Topology: N embedded MariaDB 10.11 shards on this machine, each with one physical table
 * {@code shop_0i.orders_000i} (id bigint primary key, int, varchar(40), decimal(10,2), datetime) of R rows, loaded
 * without binlog so the daemon has nothing to catch up; one daemon; one client thread. "direct" reads the shards one
 * after the other ({@code SELECT *} / {@code ORDER BY id} on each physical table: the rate at which the shards
 * return the rows); "daemon" sends the same statement on the logical table {@code shop.orders} (the daemon reads
 * every shard, merges for ORDER BY, and streams to the client). Prints rows/s per round and the daemon/direct ratio
 * (median of the rounds).
 *
 * <p>Run: {@code ./mvnw -q -Pbench -pl cdc-test -am process-test-classes
 * -Dbench.main=io.tributary.test.bench.SnapshotSelectBenchmark -Dbench.args="--shards=4 --rows=250000 --rounds=3"}.
 */
public final class SnapshotSelectBenchmark {

    private SnapshotSelectBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int shards = 4;
        int rowsPerShard = 250_000;
        int rounds = 3;
        for (String a : args) {
            if (a.startsWith("--shards=")) {
                shards = Integer.parseInt(a.substring(9));
            } else if (a.startsWith("--rows=")) {
                rowsPerShard = Integer.parseInt(a.substring(7));
            } else if (a.startsWith("--rounds=")) {
                rounds = Integer.parseInt(a.substring(9));
            } else if (!a.isBlank()) {
                throw new IllegalArgumentException("Unknown argument " + a + ": expected --shards=N, --rows=N, --rounds=N");
            }
        }
        Path work = Files.createTempDirectory("tributary-snapshot-select");
        ShardClusterConfig config = ShardClusterConfig.defaults().withCount(shards).withBaseDir(work.resolve("shards"))
                .withServerOptions(List.of("--innodb-buffer-pool-size=256M", "--innodb-flush-log-at-trx-commit=0"));
        try (ShardCluster cluster = ShardCluster.start(config)) {
            long loadStart = System.nanoTime();
            for (int i = 0; i < shards; i++) {
                load(cluster.info(i), i, shards, rowsPerShard);
            }
            System.out.printf(Locale.ROOT, "Loaded %d shards x %d rows in %.1f s%n", shards, rowsPerShard,
                    (System.nanoTime() - loadStart) / 1e9);
            try (DaemonProcess d = DaemonProcess.builder(cluster.infos(), work.resolve("daemon")).flavor("mariadb")
                    .start()) {
                String daemonUrl = "jdbc:mariadb://127.0.0.1:" + d.dumpPort() + "/";
                for (String order : new String[] {"", " ORDER BY id"}) {
                    List<Double> direct = new ArrayList<>();
                    List<Double> daemon = new ArrayList<>();
                    for (int r = 0; r <= rounds; r++) {
                        double directRate = direct(cluster, order, (long) shards * rowsPerShard);
                        double daemonRate = throughDaemon(daemonUrl, "SELECT * FROM shop.orders" + order,
                                (long) shards * rowsPerShard);
                        System.out.printf(Locale.ROOT, "SELECT *%s round %d%s: direct %,.0f rows/s, daemon %,.0f rows/s,"
                                + " ratio %.2f%n", order, r, r == 0 ? " (warm-up)" : "", directRate, daemonRate,
                                daemonRate / directRate);
                        if (r > 0) {
                            direct.add(directRate);
                            daemon.add(daemonRate);
                        }
                    }
                    double md = median(direct);
                    double mt = median(daemon);
                    System.out.printf(Locale.ROOT, "RESULT SELECT *%s over %d shards x %d rows: direct %,.0f rows/s,"
                            + " daemon %,.0f rows/s, daemon/direct %.2f (median of %d rounds)%n", order, shards,
                            rowsPerShard, md, mt, mt / md, rounds);
                }
            }
        }
    }

    private static void load(ShardInfo shard, int index, int shards, int rows) throws SQLException {
        String db = String.format("shop_%02d", index);
        String table = String.format("orders_%04d", index);
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("SET SESSION sql_log_bin = 0");
            s.execute("CREATE DATABASE " + db);
            s.execute("USE " + db); // the sequence engine's seq_1_to_N tables live in the current database
            s.execute("CREATE TABLE " + db + "." + table + " (id bigint NOT NULL PRIMARY KEY, customer int NOT NULL,"
                    + " name varchar(40), amount decimal(10,2) NOT NULL, created datetime NOT NULL)"
                    + " DEFAULT CHARSET=utf8mb4");
            s.execute("INSERT INTO " + db + "." + table + " SELECT seq * " + shards + " + " + index + ", seq % 1000,"
                    + " CONCAT('customer name ', seq), (seq % 100000) / 100, TIMESTAMP'2026-01-01 00:00:00' + INTERVAL"
                    + " seq SECOND FROM seq_1_to_" + rows);
        }
    }

    private static double direct(ShardCluster cluster, String order, long expected) throws SQLException {
        long rows = 0;
        long start = System.nanoTime();
        for (int i = 0; i < cluster.size(); i++) {
            ShardInfo s = cluster.info(i);
            try (Connection c = DriverManager.getConnection(s.jdbcUrl(), s.replUser(), s.replPassword())) {
                rows += read(c, String.format("SELECT * FROM shop_%02d.orders_%04d", i, i) + order);
            }
        }
        return rate(rows, expected, start);
    }

    private static double throughDaemon(String url, String sql, long expected) throws SQLException {
        long start = System.nanoTime();
        try (Connection c = DriverManager.getConnection(url, DaemonProcess.DUMP_USER, DaemonProcess.DUMP_PASSWORD)) {
            return rate(read(c, sql), expected, start);
        }
    }

    private static long read(Connection c, String sql) throws SQLException {
        long rows = 0;
        long chars = 0;
        try (Statement s = c.createStatement()) {
            s.setFetchSize(1000);
            try (ResultSet rs = s.executeQuery(sql)) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int i = 1; i <= n; i++) {
                        String v = rs.getString(i);
                        chars += v == null ? 0 : v.length();
                    }
                    rows++;
                }
            }
        }
        if (chars == 0 && rows > 0) {
            throw new IllegalStateException("no values read");
        }
        return rows;
    }

    private static double rate(long rows, long expected, long start) {
        if (rows != expected) {
            throw new IllegalStateException("read " + rows + " rows, expected " + expected);
        }
        return rows / ((System.nanoTime() - start) / 1e9);
    }

    private static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }
}
