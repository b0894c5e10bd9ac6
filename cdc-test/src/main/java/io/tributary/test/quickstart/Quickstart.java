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
 * <p>Today it stops short of the daemon, which is not built yet: the status line reports each shard's
 * own binlog position and GTID, and the hints show how to look at a shard's binlog. As the daemon
 * lands, this command starts it against the same shards.
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
    static void run(Options options, PrintStream out) throws SQLException {
        out.printf("Tributary quickstart: starting %d embedded MariaDB shard(s)...%n", options.shards());
        try (ShardCluster cluster = ShardCluster.start(ShardClusterConfig.defaults().withCount(options.shards()));
             SampleLoad load = new SampleLoad(cluster.infos(), 42, 10)) {
            for (ShardInfo s : cluster.infos()) {
                out.printf("  %s  %s:%d  server_id=%d  replication user %s / %s%n", s.name(), s.host(), s.port(),
                        s.serverId(), s.replUser(), s.replPassword());
            }
            ShardInfo first = cluster.info(0);
            out.println();
            out.println("The Tributary daemon is not built yet (see README, Status): this run starts the shards and");
            out.println("a sample load (sharded tables shop_<i>.orders_000<t>, single-shard and XA transactions).");
            out.println("Look at a shard's own binlog:");
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
                    out.println(statusLine(cluster, load));
                    nextStatus += options.statusInterval().toNanos();
                }
                if (next > now && !sleepNanos(Math.min(next, end) - now)) {
                    break;
                }
            }
            out.println(statusLine(cluster, load));
            out.println("Stopping the shards...");
        }
        out.println("Stopped.");
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
