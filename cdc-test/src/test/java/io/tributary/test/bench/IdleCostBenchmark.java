package io.tributary.test.bench;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.EventType;
import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What the daemon costs when there is little or nothing to do (issue 19, "Idle cost"): 4 embedded MariaDB shards
 * and the daemon as a child JVM with its default configuration ({@link DaemonProcess}), then
 * <ol>
 * <li><b>idle</b>: after a {@code --warmup=40} s warm-up, over {@code --window=60} s, the daemon's CPU time
 *     ({@code /proc/<pid>/stat} utime + stime, as a share of one core, and per thread from
 *     {@code /proc/<pid>/task/*}/stat, threads grouped by name), the shards' binlog growth ({@code SHOW BINARY
 *     LOGS}) and, of it, the heartbeat transactions (rows and bytes, counted in {@code SHOW BINLOG EVENTS} over the
 *     window);</li>
 * <li><b>single write</b>: {@code --probes=10} single-row INSERTs on an idle cluster, on shards in turn, 1 to 3 s
 *     apart; for each, the time from the INSERT's return to the transaction's XID arriving at a subscriber of the
 *     dump port (what a user waits for one change);</li>
 * <li><b>light load</b>: {@code --tps=200} single-row INSERT transactions a second spread over the shards, the
 *     same figures over the same window.</li>
 * </ol>
 * Daily figures are the window's rates times 86,400 s.
 *
 * <pre>
 * ./mvnw -q -Pbench -pl cdc-test -am process-test-classes \
 *     -Dbench.main=io.tributary.test.bench.IdleCostBenchmark -Dbench.args="--warmup=40 --window=60"
 * </pre>
 */
public final class IdleCostBenchmark {

    private static final int SHARDS = 4;
    private static final String HEARTBEAT_TABLE = "__cdc__.__cdc_heartbeat__";

    private IdleCostBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int warmup = 40;
        int window = 60;
        int probes = 10;
        int tps = 200;
        Path work = Path.of("target", "bench-work", "idle");
        for (String a : args) {
            String k = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
            switch (k) {
                case "--warmup" -> warmup = Integer.parseInt(v);
                case "--window" -> window = Integer.parseInt(v);
                case "--probes" -> probes = Integer.parseInt(v);
                case "--tps" -> tps = Integer.parseInt(v);
                case "--work" -> work = Path.of(v);
                case "" -> { }
                default -> throw new IllegalArgumentException("Unknown option " + a + ": allowed are --warmup=SECONDS,"
                        + " --window=SECONDS, --probes=N, --tps=N, --work=DIR");
            }
        }
        java.util.logging.Logger.getLogger("com.github.shyiko.mysql.binlog").setLevel(java.util.logging.Level.WARNING);
        BenchRunner.deleteTree(work);
        Files.createDirectories(work);
        System.out.printf(Locale.ROOT, "Idle cost: %d shards, warm-up %d s, windows of %d s, %d probes, load %d tps%n",
                SHARDS, warmup, window, probes, tps);
        try (ShardCluster cluster = ShardCluster.start(ShardClusterConfig.defaults().withCount(SHARDS)
                .withBaseDir(work.toAbsolutePath().resolve("shards")))) {
            for (ShardInfo s : cluster.infos()) {
                try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                    st.execute("CREATE DATABASE IF NOT EXISTS bench");
                    st.execute("CREATE TABLE IF NOT EXISTS bench.t (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)");
                }
            }
            DaemonProcess.Builder b = DaemonProcess.builder(cluster.infos(), work.toAbsolutePath().resolve("daemon"))
                    .flavor("mariadb");
            try (DaemonProcess d = b.start()) {
                System.out.printf(Locale.ROOT, "daemon pid %d started; warming up %d s%n", d.pid(), warmup);
                Thread.sleep(warmup * 1000L);
                Window idle = measure(d, cluster, window, 0);
                idle.print("idle", window);
                probe(d, cluster, probes);
                Window load = measure(d, cluster, window, tps);
                load.print("load " + tps + " tps", window);
            }
        }
        BenchRunner.deleteTree(work);
        System.exit(0); // BinaryLogClient and JDBC leave non-daemon threads behind
    }

    /** One window's figures. */
    private record Window(double cpuSeconds, Map<String, Double> threadSeconds, long binlogBytes, long heartbeatRows,
            long heartbeatBytes, long transactions) {

        void print(String name, int seconds) {
            double day = 86_400.0 / seconds;
            System.out.printf(Locale.ROOT, "%s: daemon CPU %.2f s in %d s = %.2f %% of a core; shard binlogs +%,d bytes"
                    + " (%.1f KB/s, %.2f GB/day); heartbeats %,d rows (%.1f/s per shard, %,.0f rows/day per shard),"
                    + " %,d bytes (%.2f GB/day all shards); other transactions %,d%n", name, cpuSeconds, seconds,
                    100 * cpuSeconds / seconds, binlogBytes, binlogBytes / 1024.0 / seconds, binlogBytes * day / 1e9,
                    heartbeatRows, heartbeatRows / (double) seconds / SHARDS, heartbeatRows * day / SHARDS,
                    heartbeatBytes, heartbeatBytes * day / 1e9, transactions);
            threadSeconds.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(12)
                    .forEach(e -> System.out.printf(Locale.ROOT, "    %-32s %6.2f s (%.2f %% of a core)%n", e.getKey(),
                            e.getValue(), 100 * e.getValue() / seconds));
        }
    }

    private static Window measure(DaemonProcess d, ShardCluster cluster, int seconds, int tps) throws Exception {
        List<String[]> start = new ArrayList<>();
        for (ShardInfo s : cluster.infos()) {
            start.add(binlogEnd(s));
        }
        long bytes0 = binlogBytes(cluster);
        Map<String, Long> threads0 = threadTicks(d.pid());
        double cpu0 = d.cpuSeconds();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        if (tps > 0) {
            load(cluster, tps, deadline);
        } else {
            Thread.sleep(seconds * 1000L);
        }
        double cpu = d.cpuSeconds() - cpu0;
        Map<String, Long> threads1 = threadTicks(d.pid());
        List<String[]> end = new ArrayList<>();
        for (ShardInfo s : cluster.infos()) {
            end.add(binlogEnd(s));
        }
        long bytes = binlogBytes(cluster) - bytes0;
        Map<String, Double> byName = new TreeMap<>();
        threads1.forEach((k, v) -> {
            String name = k.substring(k.indexOf(' ') + 1).replaceAll("[-#]?\\d+$", "");
            byName.merge(name, (v - threads0.getOrDefault(k, 0L)) / 100.0, Double::sum);
        });
        long[] hb = new long[3];
        for (int i = 0; i < cluster.size(); i++) {
            countHeartbeats(cluster.info(i), start.get(i), end.get(i), hb);
        }
        return new Window(cpu, byName, bytes, hb[0], hb[1], hb[2]);
    }

    /** Single-row INSERTs spread over the shards at {@code tps} until {@code deadline}, one connection a shard. */
    private static void load(ShardCluster cluster, int tps, long deadline) throws Exception {
        List<Connection> cs = new ArrayList<>();
        try {
            for (ShardInfo s : cluster.infos()) {
                cs.add(s.openAdminConnection());
            }
            long periodNanos = 1_000_000_000L / tps;
            long next = System.nanoTime();
            long n = 0;
            while (System.nanoTime() < deadline) {
                try (Statement st = cs.get((int) (n++ % cs.size())).createStatement()) {
                    st.executeUpdate("INSERT INTO bench.t (v) VALUES (" + n + ")");
                }
                next += periodNanos;
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                }
            }
        } finally {
            for (Connection c : cs) {
                c.close();
            }
        }
    }

    /**
     * Single writes on an idle cluster: the time from an INSERT's return to its XID at a dump subscriber. The
     * subscriber connects first; probes are 1 to 3 s apart so they fall anywhere in the heartbeat cycle.
     */
    private static void probe(DaemonProcess d, ShardCluster cluster, int probes) throws Exception {
        LinkedBlockingQueue<Long> xids = new LinkedBlockingQueue<>();
        BinaryLogClient client = new BinaryLogClient("127.0.0.1", d.dumpPort(), DaemonProcess.DUMP_USER,
                DaemonProcess.DUMP_PASSWORD);
        client.setServerId(71_000);
        client.setKeepAlive(false);
        client.registerEventListener(e -> {
            if (e.getHeader().getEventType() == EventType.XID) {
                xids.add(System.nanoTime());
            }
        });
        client.connect(20_000);
        Random random = new Random(19);
        List<Double> ms = new ArrayList<>();
        try {
            Thread.sleep(2000);
            xids.clear();
            for (int p = 0; p < probes; p++) {
                Thread.sleep(1000 + random.nextInt(2000));
                ShardInfo s = cluster.info(p % cluster.size());
                long t0;
                try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                    st.executeUpdate("INSERT INTO bench.t (v) VALUES (-1)");
                    t0 = System.nanoTime();
                }
                Long at = xids.poll(30, TimeUnit.SECONDS);
                ms.add(at == null ? Double.NaN : (at - t0) / 1e6);
            }
        } finally {
            client.disconnect();
        }
        List<Double> sorted = ms.stream().sorted(Comparator.naturalOrder()).toList();
        System.out.printf(Locale.ROOT, "single write on an idle cluster, INSERT to XID at a subscriber: median %.0f ms,"
                + " max %.0f ms (all: %s)%n", sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1),
                ms.stream().map(x -> String.format(Locale.ROOT, "%.0f", x)).toList());
    }

    /** Thread id and name to CPU ticks (utime + stime), from {@code /proc/<pid>/task}. */
    private static Map<String, Long> threadTicks(long pid) throws IOException {
        Map<String, Long> m = new TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    m.put(t.getFileName() + " " + name, Long.parseLong(f[11]) + Long.parseLong(f[12]));
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return m;
    }

    private static long binlogBytes(ShardCluster cluster) throws SQLException {
        long sum = 0;
        for (ShardInfo s : cluster.infos()) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
                while (rs.next()) {
                    sum += rs.getLong(2);
                }
            }
        }
        return sum;
    }

    private static String[] binlogEnd(ShardInfo s) throws SQLException {
        try (Connection c = s.openAdminConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
            rs.next();
            return new String[] {rs.getString(1), Long.toString(rs.getLong(2))};
        }
    }

    /**
     * Counts, from {@code from} to {@code to} in shard {@code s}'s binlog, the heartbeat transactions (GTID event to
     * XID, holding a TABLE_MAP of the heartbeat table) and their bytes, and the other transactions: adds them to
     * {@code counts} (rows, bytes, other transactions).
     */
    private static void countHeartbeats(ShardInfo s, String[] from, String[] to, long[] counts) throws SQLException {
        try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
            List<String> files = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
                while (rs.next()) {
                    if (rs.getString(1).compareTo(from[0]) >= 0 && rs.getString(1).compareTo(to[0]) <= 0) {
                        files.add(rs.getString(1));
                    }
                }
            }
            for (String f : files) {
                long pos = f.equals(from[0]) ? Long.parseLong(from[1]) : 4;
                long txStart = -1;
                boolean heartbeat = false;
                try (ResultSet rs = st.executeQuery("SHOW BINLOG EVENTS IN '" + f + "' FROM " + pos)) {
                    while (rs.next()) {
                        if (f.equals(to[0]) && rs.getLong("Pos") >= Long.parseLong(to[1])) {
                            break;
                        }
                        String type = rs.getString("Event_type");
                        String info = rs.getString("Info");
                        if (type.equals("Gtid")) {
                            txStart = rs.getLong("Pos");
                            heartbeat = false;
                        } else if (type.equals("Table_map") && info.contains(HEARTBEAT_TABLE)) {
                            heartbeat = true;
                        } else if (type.equals("Xid") && txStart >= 0) {
                            if (heartbeat) {
                                counts[0]++;
                                counts[1] += rs.getLong("End_log_pos") - txStart;
                            } else {
                                counts[2]++;
                            }
                            txStart = -1;
                        }
                    }
                }
            }
        }
    }
}
