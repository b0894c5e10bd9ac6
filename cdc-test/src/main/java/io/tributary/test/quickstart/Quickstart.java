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
 * single-shard and XA transactions) and prints a load line (shard positions, what the load committed) until Ctrl-C (or {@code --duration}).
 *
 * <p>Then it starts the Tributary daemon itself ({@link QuickstartDaemon}: the Spring Boot application, in
 * this JVM) against those shards: heartbeats, shard readers, sorter and merger, the global binlog, the dump
 * server and the metrics, so the one global binlog can be read with {@code mariadb-binlog} on the dump port, and
 * the live settings edited with {@code curl} on the management port or {@code mariadb} on the dump port (both
 * accounts are configured and the commands printed). Options: {@link #USAGE}.
 */
public final class Quickstart {

    /** What {@code --help} prints. */
    static final String USAGE = """
            Tributary quickstart: starts embedded MariaDB shards, a sample load (sharded tables, single-shard and XA
            transactions) and the Tributary daemon against them; prints the commands that read the global binlog
            and edit the live settings. Ctrl-C stops everything.

            Usage: ./mvnw -q -Pquickstart -pl cdc-test -am process-classes -Dexec.args="[options]"

            Options:
              --shards=N                 embedded MariaDB shards, 1 to 8 (default 2)
              --rate=TPS                 sample-load transactions per second, 1 to 10000 (default 20)
              --duration=SECONDS         stop after this many seconds (default: run until Ctrl-C)
              --status-interval=SECONDS  how often the daemon logs its status line ("status: EPS ...") and the
                                         quickstart prints its load line ("load ...": the shards' positions and
                                         what the load committed), 1 to 3600 (default 5)
              --bind=ADDR                address the dump port and the management port listen on (default
                                         127.0.0.1; 0.0.0.0 for every interface: the accounts' passwords are fixed)
              --keep                     keep the global binlog (and the daemon's other files) at exit and print
                                         where it is (default: deleted)
              --help                     print this and exit
            """;

    /** Parsed command line. */
    record Options(int shards, Duration duration, int rate, Duration statusInterval, String bind, boolean keep,
                   boolean help) {

        static Options parse(String... args) {
            int shards = ShardClusterConfig.DEFAULT_SHARDS;
            Duration duration = null;
            int rate = 20;
            Duration status = Duration.ofSeconds(5);
            String bind = "127.0.0.1";
            boolean keep = false;
            boolean help = false;
            for (String arg : args) {
                switch (arg) {
                    case "--help", "-h" -> {
                        help = true;
                        continue;
                    }
                    case "--keep" -> {
                        keep = true;
                        continue;
                    }
                    default -> {
                    }
                }
                String[] kv = arg.split("=", 2);
                if (kv.length != 2) {
                    throw new IllegalArgumentException("Invalid argument " + arg + ": expected --name=value, --keep or"
                            + " --help");
                }
                switch (kv[0]) {
                    case "--shards" -> shards = positive(kv, 8);
                    case "--duration" -> duration = Duration.ofSeconds(positive(kv, Integer.MAX_VALUE));
                    case "--rate" -> rate = positive(kv, 10_000);
                    case "--status-interval" -> status = Duration.ofSeconds(positive(kv, 3600));
                    case "--bind" -> bind = address(kv);
                    default -> throw new IllegalArgumentException("Unknown option " + kv[0]
                            + ": allowed are --shards, --duration, --rate, --status-interval, --bind, --keep, --help");
                }
            }
            return new Options(shards, duration, rate, status, bind, keep, help);
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

        private static String address(String[] kv) {
            String a = kv[1].strip();
            if (a.isEmpty() || !a.matches("[0-9A-Za-z.:%_-]+")) {
                throw new IllegalArgumentException("Invalid value " + kv[1] + " for " + kv[0] + ": expected an address"
                        + " of this machine, e.g. 127.0.0.1 or 0.0.0.0");
            }
            return a;
        }

        /** The host the printed commands connect to: the bound address, or 127.0.0.1 for every interface. */
        String connectHost() {
            return bind.equals("0.0.0.0") || bind.equals("::") ? "127.0.0.1" : bind;
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
            System.err.println("--help lists the options.");
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.print(USAGE);
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
             QuickstartDaemon tributary = new QuickstartDaemon(cluster.infos(), data, options.bind(),
                     freePort(options.bind(), 3399), freePort(options.bind(), 9400), options.statusInterval())) {
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
            String host = options.connectHost();
            out.printf("  mariadb-binlog --read-from-remote-server --host=%s --port=%d --user=%s --password=%s"
                    + " --verbose --stop-never binlog.000001%n", host, tributary.dumpPort(), QuickstartDaemon.USER,
                    QuickstartDaemon.PASSWORD);
            out.printf("Status page (shards, lag, throughput, subscribers): http://%s:%d/%n", host,
                    tributary.managementPort());
            out.printf("Metrics: curl http://%s:%d/actuator/prometheus   health: curl http://%s:%d"
                    + "/actuator/health%n", host, tributary.managementPort(), host, tributary.managementPort());
            out.println("Live settings (storage.persist.*, see docs/configuration.md), as the admin account:");
            out.printf("  curl -u %s:%s -X PUT -H 'Content-Type: text/plain' --data FORCE"
                    + " http://%s:%d/admin/config/storage.persist.mode%n", QuickstartDaemon.ADMIN_USER,
                    QuickstartDaemon.ADMIN_PASSWORD, host, tributary.managementPort());
            out.printf("  mariadb -h%s -P%d -u%s -p%s -e \"SET GLOBAL storage.persist.mode = 'AUTO';"
                    + " SHOW VARIABLES LIKE 'storage%%'\"%n", host, tributary.dumpPort(), QuickstartDaemon.ADMIN_USER,
                    QuickstartDaemon.ADMIN_PASSWORD);
            if (!java.net.InetAddress.getByName(options.bind()).isLoopbackAddress()) {
                out.printf("Note: the ports listen on %s, with the quickstart's fixed passwords.%n", options.bind());
            }
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
                    out.println(loadLine(cluster, load) + " | " + tributary.status());
                    nextStatus += options.statusInterval().toNanos();
                }
                if (next > now && !sleepNanos(Math.min(next, end) - now)) {
                    break;
                }
            }
            waitForOutput(tributary);
            out.println(loadLine(cluster, load) + " | " + tributary.status());
            out.println("Stopping Tributary and the shards...");
        } finally {
            if (!options.keep()) {
                deleteTree(data);
            }
        }
        if (options.keep()) {
            java.nio.file.Path binlog = data.resolve("binlog").toAbsolutePath();
            out.printf("Kept the global binlog in %s%n", binlog);
            out.printf("  read it with: mariadb-binlog --verbose %s/binlog.000001%n", binlog);
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

    /** {@code preferred} when free on {@code bind}, else any free port. */
    private static int freePort(String bind, int preferred) {
        java.net.InetAddress address;
        try {
            address = java.net.InetAddress.getByName(bind);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("Invalid value " + bind + " for --bind: " + e.getMessage(), e);
        }
        try (java.net.ServerSocket s = new java.net.ServerSocket(preferred, 1, address)) {
            return preferred;
        } catch (java.io.IOException e) {
            try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, address)) {
                return s.getLocalPort();
            } catch (java.io.IOException e2) {
                throw new java.io.UncheckedIOException(e2);
            }
        }
    }

    /**
     * One line, {@code load ...}: each shard's binlog file:position and GTID position, what the load committed and
     * where the global binlog is. (The daemon's own {@code status:} line, logged every interval, is the status line.)
     */
    static String loadLine(ShardCluster cluster, SampleLoad load) throws SQLException {
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
        return String.format("load %s | %s | txns single-shard %d, XA committed %d, XA rolled back %d",
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
