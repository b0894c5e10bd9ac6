package io.tributary.test.quickstart;

import io.tributary.test.load.SampleLoad;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The README's first command: starts embedded MariaDB shards, runs the sample load (sharded tables,
 * single-shard and XA transactions) and prints a status line until Ctrl-C (or {@code --duration}).
 *
 * <p>Then it starts the Tributary daemon itself ({@link QuickstartDaemon}: the Spring Boot application, in
 * this JVM) against those shards: heartbeats, shard readers, sorter and merger, the global binlog, the dump
 * server and the metrics, so the one global binlog can be read with {@code mariadb-binlog} on the dump port.
 *
 * <p>Options: {@code --shards=N} (1-8, default 2), {@code --duration=SECONDS} (default: until Ctrl-C),
 * {@code --rate=TPS} (default 20), {@code --status-interval=SECONDS} (default 5).
 */
public final class Quickstart {

    /** Parsed command line. */
    record Options(int shards, Duration duration, int rate, Duration statusInterval) {
        static Options parse(String... args) {
            int shards = ShardClusterConfig.DEFAULT_SHARDS;
            Duration duration = null;
            int rate = 20;
            Duration status = Duration.ofSeconds(5);
            for (String arg : args) {
                String[] kv = arg.split("=", 2);
                if (kv.length != 2) {
                    throw new IllegalArgumentException("Invalid argument " + arg + ": expected --name=value");
                }
                switch (kv[0]) {
                    case "--shards" -> shards = positive(kv, 8);
                    case "--duration" -> duration = Duration.ofSeconds(positive(kv, Integer.MAX_VALUE));
                    case "--rate" -> rate = positive(kv, 10_000);
                    case "--status-interval" -> status = Duration.ofSeconds(positive(kv, 3600));
                    default -> throw new IllegalArgumentException("Unknown option " + kv[0]
                            + ": allowed are --shards, --duration, --rate, --status-interval");
                }
            }
            return new Options(shards, duration, rate, status);
        }

        private static int positive(String[] kv, int max) {
            try {
                int v = Integer.parseInt(kv[1]);
                if (v >= 1 && v <= max) {
                    return v;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("Invalid value " + kv[1] + " for " + kv[0] + ": must be 1 to " + max);
        }
    }

    private Quickstart() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            main.interrupt();
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "quickstart-shutdown"));
        try {
            run(options, System.out);
        } finally {
            stopped.countDown();
        }
    }

    /** Runs until the duration ends or the thread is interrupted; stops everything it started. */
    static void run(Options options, PrintStream out) throws Exception {
        out.printf("Tributary quickstart: starting %d embedded MariaDB shard(s)...%n", options.shards());
        java.nio.file.Path data = java.nio.file.Files.createTempDirectory(
                java.nio.file.Files.createDirectories(java.nio.file.Path.of("target")), "quickstart-");
        try (ShardCluster cluster = ShardCluster.start(ShardClusterConfig.defaults().withCount(options.shards()));
             SampleLoad load = new SampleLoad(cluster.infos(), 42, 10);
             QuickstartDaemon tributary = new QuickstartDaemon(cluster.infos(), data, freePort(3399),
                     freePort(9400), options.statusInterval())) {
            for (ShardInfo s : cluster.infos()) {
                out.printf("  %s  %s:%d  server_id=%d  replication user %s / %s%n", s.name(), s.host(), s.port(),
                        s.serverId(), s.replUser(), s.replPassword());
            }
            ShardInfo first = cluster.info(0);
            out.println();
            out.println("Sample load: sharded tables shop_<i>.orders_000<t> (logical shop.orders), single-shard and XA");
            out.println("transactions. The Tributary daemon runs against the shards and logs its status line.");
            out.printf("The ONE global binlog, on the dump port %d (logical names, XA branches as one transaction):%n",
                    tributary.dumpPort());
            out.printf("  mariadb-binlog --read-from-remote-server --host=127.0.0.1 --port=%d --user=%s --password=%s"
                    + " --verbose --stop-never binlog.000001%n", tributary.dumpPort(), QuickstartDaemon.USER,
                    QuickstartDaemon.PASSWORD);
            out.printf("Metrics: curl http://127.0.0.1:%d/actuator/prometheus   health: curl http://127.0.0.1:%d"
                    + "/actuator/health%n", tributary.managementPort(), tributary.managementPort());
            out.println("A shard's own binlog, to compare:");
            out.printf("  mariadb-binlog --read-from-remote-server --host=%s --port=%d --user=%s --password=%s"
                    + " --verbose mariadb-bin.000001%n", first.host(), first.port(), first.replUser(), first.replPassword());
            out.println("Stop with Ctrl-C.");
            out.println();
            load.createSchema();
            long intervalNanos = 1_000_000_000L / options.rate();
            long start = System.nanoTime();
            long end = options.duration() == null ? Long.MAX_VALUE : start + options.duration().toNanos();
            long nextStatus = start + options.statusInterval().toNanos();
            long next = start;
            while (!Thread.currentThread().isInterrupted() && System.nanoTime() < end) {
                load.step();
                next += intervalNanos;
                long now = System.nanoTime();
                if (now >= nextStatus) {
                    out.println(statusLine(cluster, load) + " | " + tributary.status());
                    nextStatus += options.statusInterval().toNanos();
                }
                if (next > now && !sleepNanos(Math.min(next, end) - now)) {
                    break;
                }
            }
            waitForOutput(tributary);
            out.println(statusLine(cluster, load) + " | " + tributary.status());
            out.println("Stopping Tributary and the shards...");
        } finally {
            deleteTree(data);
        }
        out.println("Stopped.");
    }

    /** Lets the pipeline write what the load committed last (a few heartbeats), so the final line is complete. */
    private static void waitForOutput(QuickstartDaemon tributary) throws InterruptedException {
        long last = -1;
        long stableSince = System.nanoTime();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() - stableSince < 700_000_000L && System.nanoTime() < deadline) {
            Thread.sleep(100);
            long now = tributary.transactionsWritten();
            if (now != last) {
                last = now;
                stableSince = System.nanoTime();
            }
        }
    }

    private static void deleteTree(java.nio.file.Path root) throws java.io.IOException {
        try (var paths = java.nio.file.Files.walk(root)) {
            for (java.nio.file.Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.deleteIfExists(p);
            }
        }
    }

    /** {@code preferred} when free, else any free port. */
    private static int freePort(int preferred) {
        try (java.net.ServerSocket s = new java.net.ServerSocket(preferred, 1, java.net.InetAddress.getLoopbackAddress())) {
            return preferred;
        } catch (java.io.IOException e) {
            try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (java.io.IOException e2) {
                throw new java.io.UncheckedIOException(e2);
            }
        }
    }

    /** One line: each shard's binlog file:position and GTID position, and what the load committed. */
    static String statusLine(ShardCluster cluster, SampleLoad load) throws SQLException {
        List<String> parts = new ArrayList<>();
        for (ShardInfo s : cluster.infos()) {
            try (Connection c = s.openReplConnection(); Statement st = c.createStatement()) {
                String file;
                long pos;
                try (ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
                    rs.next();
                    file = rs.getString(1);
                    pos = rs.getLong(2);
                }
                String gtid;
                try (ResultSet rs = st.executeQuery("SELECT @@gtid_binlog_pos")) {
                    rs.next();
                    gtid = rs.getString(1);
                }
                parts.add(String.format("%s %s:%d gtid %s", s.name(), file, pos, gtid));
            }
        }
        return String.format("status %s | %s | txns single-shard %d, XA committed %d, XA rolled back %d",
                LocalTime.now().truncatedTo(ChronoUnit.SECONDS), String.join(" | ", parts),
                load.singleShardCommits(), load.xaCommits(), load.xaRollbacks());
    }

    private static boolean sleepNanos(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
