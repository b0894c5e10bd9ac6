package io.tributary.test.bench;

import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes a real shard binlog of a given size for benchmarks: one embedded MariaDB shard, sysbench's
 * schema ({@code sbtest1..4}: {@code id, k, c CHAR(120), pad CHAR(60)}), a {@code prepare}-like bulk load,
 * then an {@code oltp_write_only}-like load (per transaction: an index update, a non-index update, a
 * delete and an insert) from four connections until the binlog reaches the size.
 *
 * <p>The files are kept in a cache directory ({@code ~/.cache/tributary/bench/}) keyed by size, so the
 * load runs once per machine; progress is printed every five seconds.
 */
public final class ShardBinlogGenerator {

    private static final int TABLES = 4;
    private static final int ROWS_PER_TABLE = 25_000;
    private static final int CLIENTS = 4;

    private ShardBinlogGenerator() {
    }

    /** The binlog files of a shard that wrote at least {@code targetBytes}, generating them if not cached. */
    static List<Path> binlogOfAtLeast(long targetBytes, PrintStream out) {
        Path cache = Path.of(System.getProperty("user.home"), ".cache", "tributary", "bench",
                "mariadb-oltp-" + (targetBytes >> 20) + "mb");
        Path marker = cache.resolve(".complete");
        try {
            if (!Files.exists(marker)) {
                generate(targetBytes, cache, out);
                Files.writeString(marker, "");
            }
            try (var files = Files.list(cache)) {
                return files.filter(p -> p.getFileName().toString().matches("mariadb-bin\\.\\d+")).sorted().toList();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (SQLException e) {
            throw new IllegalStateException("generating the benchmark binlog failed: " + e.getMessage(), e);
        }
    }

    private static void generate(long targetBytes, Path cache, PrintStream out) throws IOException, SQLException {
        out.printf("Generating a %d MB shard binlog (once; cached in %s)%n", targetBytes >> 20, cache);
        ShardClusterConfig config = ShardClusterConfig.defaults().withCount(1).withServerOptions(List.of(
                "--max-binlog-size=1073741824", "--innodb-buffer-pool-size=512M", "--innodb-log-file-size=512M"));
        try (ShardCluster cluster = ShardCluster.start(config)) {
            ShardInfo shard = cluster.info(0);
            String url = shard.jdbcUrl() + "?allowMultiQueries=true";
            try (Connection c = DriverManager.getConnection(url, shard.adminUser(), shard.adminPassword());
                 Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE sbtest");
                for (int t = 1; t <= TABLES; t++) {
                    s.execute("CREATE TABLE sbtest.sbtest" + t + " (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
                            + " k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '',"
                            + " KEY k_" + t + " (k)) ENGINE=InnoDB");
                }
            }
            long started = System.nanoTime();
            AtomicLong transactions = new AtomicLong();
            AtomicBoolean done = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            CountDownLatch loaded = new CountDownLatch(CLIENTS);
            List<Future<?>> clients = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                int client = i;
                clients.add(pool.submit(() -> {
                    runClient(url, shard, client, loaded, done, transactions);
                    return null;
                }));
            }
            long lastReport = System.nanoTime();
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                while (true) {
                    long bytes = binlogBytes(s);
                    long now = System.nanoTime();
                    if (bytes >= targetBytes) {
                        break;
                    }
                    if (now - lastReport > 5_000_000_000L) {
                        double secs = (now - started) / 1e9;
                        out.printf("  %5.0f s  %6d MB of %d MB  %5.1f MB/s  %d transactions%n", secs, bytes >> 20,
                                targetBytes >> 20, bytes / 1e6 / secs, transactions.get());
                        lastReport = now;
                    }
                    for (Future<?> f : clients) {
                        if (f.isDone()) {
                            f.get(); // a client that stopped early failed: surface its error
                        }
                    }
                    Thread.sleep(200);
                }
                done.set(true);
                for (Future<?> f : clients) {
                    f.get();
                }
                s.execute("FLUSH BINARY LOGS");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("a load client failed: " + e.getCause(), e.getCause());
            } finally {
                done.set(true);
                pool.shutdownNow();
            }
            Files.createDirectories(cache);
            Path binlogs = cluster.directory().resolve("shard-0/binlog");
            try (var files = Files.list(binlogs)) {
                List<Path> all = files.filter(p -> p.getFileName().toString().matches("mariadb-bin\\.\\d+")).sorted().toList();
                // the newest file was opened by FLUSH BINARY LOGS and holds no transactions
                for (Path p : all.subList(0, all.size() - 1)) {
                    Files.copy(p, cache.resolve(p.getFileName()));
                }
            }
            out.printf("Generated %d transactions in %.0f s%n", transactions.get(), (System.nanoTime() - started) / 1e9);
        }
    }

    private static void runClient(String url, ShardInfo shard, int client, CountDownLatch loaded, AtomicBoolean done,
            AtomicLong transactions) throws SQLException, InterruptedException {
        Random random = new Random(client);
        try (Connection c = DriverManager.getConnection(url, shard.adminUser(), shard.adminPassword());
             Statement s = c.createStatement()) {
            // prepare: each client bulk-loads one table in multi-row inserts of 1000 rows
            int table = client % TABLES + 1;
            for (int first = 0; first < ROWS_PER_TABLE && !done.get(); first += 1000) {
                StringBuilder sql = new StringBuilder("INSERT INTO sbtest.sbtest" + table + " (k, c, pad) VALUES ");
                for (int r = 0; r < 1000; r++) {
                    sql.append(r == 0 ? "" : ",").append("(").append(random.nextInt(ROWS_PER_TABLE)).append(",'")
                            .append(text(random, 119)).append("','").append(text(random, 59)).append("')");
                }
                s.execute(sql.toString());
            }
            // every table is loaded before any OLTP transaction: an OLTP insert of an id that a bulk load still
            // to come also inserts would fail with a duplicate key (seen on a fresh machine)
            loaded.countDown();
            loaded.await();
            // oltp_write_only: one index update, one non-index update, a delete and an insert per transaction;
            // a transaction the shard rolled back (deadlock between two clients' updates, lock wait timeout) is
            // skipped, as sysbench does
            while (!done.get()) {
                int t = random.nextInt(TABLES) + 1;
                int id = random.nextInt(ROWS_PER_TABLE) + 1;
                String tbl = "sbtest.sbtest" + t;
                try {
                    s.execute("BEGIN;"
                            + "UPDATE " + tbl + " SET k=k+1 WHERE id=" + (random.nextInt(ROWS_PER_TABLE) + 1) + ";"
                            + "UPDATE " + tbl + " SET c='" + text(random, 119) + "' WHERE id="
                            + (random.nextInt(ROWS_PER_TABLE) + 1) + ";"
                            + "DELETE FROM " + tbl + " WHERE id=" + id + ";"
                            + "INSERT INTO " + tbl + " (id, k, c, pad) VALUES (" + id + "," + random.nextInt(ROWS_PER_TABLE)
                            + ",'" + text(random, 119) + "','" + text(random, 59) + "');"
                            + "COMMIT");
                    transactions.incrementAndGet();
                } catch (SQLException e) {
                    if (e.getErrorCode() != 1213 && e.getErrorCode() != 1205) {
                        throw e;
                    }
                    s.execute("ROLLBACK");
                }
            }
        }
    }

    /** The bytes of all the server's binlog files, by {@code SHOW BINARY LOGS}. */
    public static long binlogBytes(Statement s) throws SQLException {
        long total = 0;
        try (ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
            while (rs.next()) {
                total += rs.getLong(2);
            }
        }
        return total;
    }

    /** sysbench-like filler: groups of 11 digits separated by dashes. */
    private static String text(Random random, int length) {
        StringBuilder b = new StringBuilder(length);
        while (b.length() < length) {
            b.append(b.length() % 12 == 11 ? '-' : (char) ('0' + random.nextInt(10)));
        }
        return b.toString();
    }
}
