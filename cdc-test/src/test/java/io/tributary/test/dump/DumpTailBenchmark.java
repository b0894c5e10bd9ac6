package io.tributary.test.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.test.bench.BenchCharts;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.LockSupport;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;

/**
 * Live tailing against MariaDB's own dump thread, in one run (issue 19, "Tail"). Subscribers are
 * {@link RawTailSubscribers}: raw sockets read by one selector thread that only scans packet and event headers, so
 * their cost hardly grows with N. One embedded MariaDB 10.11 shard; the transactions are {@code --rows}-row INSERTs.
 * For each N in {@code --subscribers} and each of {@code --rounds} rounds, alternating who goes first:
 * <ul>
 *   <li>{@code floor}: a {@link FanOutFloorServer}, one thread writing each transaction (framed once) to every
 *       subscriber's socket in turn, at the same rate; delay = arrival minus the start of its writes: the least any
 *       server can do on this machine;</li>
 *   <li>{@code mariadb}: N subscribers tail the shard's binlog while one connection commits the INSERTs at
 *       {@code --rate} a second; delay = arrival of the XID at a subscriber minus the return of the INSERT
 *       (autocommit) to the loading connection;</li>
 *   <li>{@code tributary}: the same transactions (decoded from the shard's binlog) appended to a
 *       {@link GlobalBinlogWriter} (MariaDB flavor, {@code binlog.sync=none}: the dump path's figures, not the disk's)
 *       at the same rate while N subscribers tail the {@link DumpServer}; delay = arrival minus the moment the
 *       transaction was published durable; then the writer flat out ({@code --burst} transactions) while all tail:
 *       its transactions per second (every other subscriber starts at the file's start, so that they reach the
 *       cache's end having sent different numbers of packets);</li>
 *   <li>{@code tributary+stalled}: the same with one more subscriber that asks for the dump and never reads.</li>
 * </ul>
 * Each run has one second of warm-up at the rate, then {@code --seconds} measured. Delay p50 and p99 are over every
 * transaction of the measured window and every (non-stalled) subscriber. Prints a table of medians over the rounds
 * with ratios to the 1-subscriber figures, and writes a CSV and a PNG plot to {@code --out}.
 *
 * <pre>
 * ./mvnw -q -Pbench -pl cdc-test -am process-test-classes -Dbench.main=io.tributary.test.dump.DumpTailBenchmark \
 *     -Dbench.args="--subscribers=1,8,64,256 --rate=1000 --seconds=3 --rounds=3 --out=docs/benchmarks/dump-tail"
 * </pre>
 */
public final class DumpTailBenchmark {
    private static final List<String> TARGETS = List.of("floor", "mariadb", "tributary", "tributary+stalled");

    private DumpTailBenchmark() {
    }

    private record Options(int[] subscribers, int rate, int seconds, int burst, int rounds, int rows, Path out) {
        int measured() {
            return rate * seconds;
        }
    }

    /** One run's figures; {@code writerTps} is NaN for MariaDB (its loader is paced only). */
    private record Run(String target, int subscribers, int round, double p50Ms, double p99Ms, double writerTps,
                       long readFromFiles) {
    }

    public static void main(String[] args) throws Exception {
        int[] subscribers = {1, 8, 64, 256};
        int rate = 1000;
        int seconds = 3;
        int burst = 20_000;
        int rounds = 3;
        int rows = 10;
        Path out = null;
        Path replot = null;
        for (String a : args) {
            String v = a.substring(a.indexOf('=') + 1);
            if (a.startsWith("--subscribers=")) {
                subscribers = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
            } else if (a.startsWith("--rate=")) {
                rate = Integer.parseInt(v);
            } else if (a.startsWith("--seconds=")) {
                seconds = Integer.parseInt(v);
            } else if (a.startsWith("--burst=")) {
                burst = Integer.parseInt(v);
            } else if (a.startsWith("--rounds=")) {
                rounds = Integer.parseInt(v);
            } else if (a.startsWith("--rows=")) {
                rows = Integer.parseInt(v);
            } else if (a.startsWith("--out=")) {
                out = Path.of(v);
            } else if (a.startsWith("--replot=")) {
                replot = Path.of(v);
            } else {
                throw new IllegalArgumentException("Unknown argument " + a + ": expected --subscribers=1,8,64,256,"
                        + " --rate=TXN_PER_S, --seconds=N, --burst=N, --rounds=N, --rows=N, --out=DIR,"
                        + " --replot=RESULTS_CSV");
            }
        }
        Options o = new Options(subscribers, rate, seconds, burst, rounds, rows, out);
        if (replot != null) { // the table and plot again from a run's CSV, without running
            List<Run> runs = new ArrayList<>();
            for (String line : Files.readAllLines(replot).subList(1, Files.readAllLines(replot).size())) {
                String[] f = line.split(",");
                runs.add(new Run(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), Double.parseDouble(f[3]),
                        Double.parseDouble(f[4]), Double.parseDouble(f[5]), Long.parseLong(f[6])));
            }
            report(runs, o);
            return;
        }
        Path work = Files.createTempDirectory("tributary-tail");
        ShardClusterConfig config = ShardClusterConfig.defaults().withCount(1).withBaseDir(work.resolve("shards"))
                .withServerOptions(List.of("--max-binlog-size=1073741824", "--innodb-buffer-pool-size=256M",
                        "--innodb-flush-log-at-trx-commit=0", "--sync-binlog=0", "--binlog-annotate-row-events=OFF"));
        try (ShardCluster cluster = ShardCluster.start(config)) {
            ShardInfo shard = cluster.info(0);
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE bench");
                s.execute("CREATE TABLE bench.t (id BIGINT NOT NULL PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL,"
                        + " pad CHAR(60) NOT NULL) ENGINE=InnoDB");
            }
            Loader loader = new Loader(shard, rows);
            loader.paced(rate, rate, null, 0); // the transactions the global binlog will carry: the shard's own
            Path binlog;
            try (var files = Files.list(cluster.directory().resolve("shard-0/binlog"))) {
                binlog = files.filter(p -> p.getFileName().toString().matches("mariadb-bin\\.\\d+")).sorted()
                        .reduce((a, b) -> b).orElseThrow();
            }
            CorpusBinlog corpus = CorpusBinlog.fromBytes(binlog.getFileName().toString(), Files.readAllBytes(binlog),
                    db -> db.equals("bench"));
            int rowsBytes = corpus.source(1).stream().mapToInt(e -> e.rawBytes().length).sum() - 19 - 4;
            System.out.printf("%d-row transactions (%d bytes of row events); corpus of %d from the shard; %d/s for 1 + %d s"
                    + " per run%n", rows, rowsBytes, corpus.size(), rate, seconds);
            List<Run> runs = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                for (int n : subscribers) {
                    List<String> order = new ArrayList<>(TARGETS);
                    java.util.Collections.rotate(order, round - 1); // alternate who goes first
                    for (String t : order) {
                        Run r = switch (t) {
                            case "floor" -> floor(rowsBytes, n, round, o);
                            case "mariadb" -> mariadb(shard, loader, n, round, o);
                            default -> tributary(corpus, work, n, t.endsWith("stalled"), round, o);
                        };
                        runs.add(r);
                        System.out.printf("  round %d %-17s %3d subscribers: delay p50 %7.3f ms p99 %8.3f ms"
                                + "  writer %,9.0f txn/s  read from files %d%n", round, t, n, r.p50Ms, r.p99Ms,
                                r.writerTps, r.readFromFiles);
                    }
                }
            }
            report(runs, o);
        } finally {
            try (var files = Files.walk(work)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Commits the INSERTs on one connection, paced; records when each returned. */
    private static final class Loader {
        private final ShardInfo shard;
        private final int rows;
        private final Random random = new Random(7);
        private long nextId;

        Loader(ShardInfo shard, int rows) {
            this.shard = shard;
            this.rows = rows;
        }

        /** Commits {@code count} transactions at {@code rate} a second; the i-th return into {@code at[i - skip]}. */
        void paced(int count, int rate, long[] at, int skip) throws Exception {
            List<String> sql = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                sql.add(insert());
            }
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                long period = 1_000_000_000L / rate;
                long t0 = System.nanoTime();
                for (int i = 0; i < count; i++) {
                    long due = t0 + i * period;
                    for (long w; (w = due - System.nanoTime()) > 0; ) {
                        LockSupport.parkNanos(w);
                    }
                    s.executeUpdate(sql.get(i));
                    if (at != null && i >= skip) {
                        at[i - skip] = System.nanoTime();
                    }
                }
            }
        }

        private String insert() {
            StringBuilder sql = new StringBuilder("INSERT INTO bench.t VALUES ");
            for (int r = 0; r < rows; r++) {
                sql.append(r == 0 ? "" : ",").append('(').append(nextId++).append(',').append(random.nextInt())
                        .append(",'").append(filler(110)).append("','").append(filler(55)).append("')");
            }
            return sql.toString();
        }

        private String filler(int length) {
            char[] c = new char[length];
            for (int i = 0; i < length; i++) {
                c[i] = Character.forDigit(random.nextInt(36), 36);
            }
            return new String(c);
        }
    }

    /** The floor: one thread writing each transaction, framed once, to every subscriber's socket in turn. */
    private static Run floor(int rowsBytes, int n, int round, Options o) throws Exception {
        try (FanOutFloorServer server = new FanOutFloorServer(rowsBytes);
             RawTailSubscribers subs = new RawTailSubscribers()) {
            for (int i = 0; i < n; i++) {
                subs.connect(server.port(), "repl", "repl-pass", "floor-bin.000001", 4);
            }
            server.awaitSubscribers(n);
            subs.start();
            int warm = o.rate();
            RawTailSubscribers.Window w = subs.window(server.nextGtid() + warm, o.measured());
            long[] published = new long[o.measured()];
            long period = 1_000_000_000L / o.rate();
            long t0 = System.nanoTime();
            for (int i = 0; i < warm + o.measured(); i++) {
                long due = t0 + i * period;
                for (long left; (left = due - System.nanoTime()) > 0; ) {
                    LockSupport.parkNanos(left);
                }
                if (i >= warm) {
                    published[i - warm] = System.nanoTime();
                }
                server.publish();
            }
            awaitAll(subs, warm + o.measured());
            long[] d = delays(w, i -> published[i]);
            return new Run("floor", n, round, percentile(d, 0.5), percentile(d, 0.99), Double.NaN, 0);
        }
    }

    private static Run mariadb(ShardInfo shard, Loader loader, int n, int round, Options o) throws Exception {
        String file;
        long position;
        long lastSequence;
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
                rs.next();
                file = rs.getString(1);
                position = rs.getLong(2);
            }
            try (ResultSet rs = s.executeQuery("SELECT @@global.gtid_binlog_pos")) {
                rs.next();
                String pos = rs.getString(1);
                lastSequence = Long.parseLong(pos.substring(pos.lastIndexOf('-') + 1));
            }
        }
        try (RawTailSubscribers subs = new RawTailSubscribers()) {
            for (int i = 0; i < n; i++) {
                subs.connect(shard.port(), shard.replUser(), shard.replPassword(), file, position);
            }
            subs.start();
            int warm = o.rate();
            RawTailSubscribers.Window w = subs.window(lastSequence + warm + 1, o.measured());
            long[] committed = new long[o.measured()];
            loader.paced(warm + o.measured(), o.rate(), committed, warm);
            awaitAll(subs, warm + o.measured());
            return new Run("mariadb", n, round, percentile(delays(w, i -> committed[i]), 0.5),
                    percentile(delays(w, i -> committed[i]), 0.99), Double.NaN, 0);
        }
    }

    private static Run tributary(CorpusBinlog corpus, Path work, int n, boolean stalled, int round, Options o)
            throws Exception {
        Path dir = Files.createTempDirectory(work, "global");
        ConcurrentSkipListMap<Long, Long> durableAt = new ConcurrentSkipListMap<>();
        try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MARIADB, 1L << 30, "0", "none");
             DumpServer server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MARIADB, 7,
                     List.of(DumpUser.withPassword("repl", "repl-pass"))).withPort(0), () -> writer).start();
             RawTailSubscribers subs = new RawTailSubscribers()) {
            writer.durability().addListener(m -> durableAt.putIfAbsent(m.lastSequence(), System.nanoTime()));
            corpus.append(writer, 10); // a file with transactions in it: subscribers start inside it, at its end
            var end = writer.durability().current();
            if (stalled) {
                subs.connectStalled(server.port(), "repl", "repl-pass", end.position().file(), end.position().position());
            }
            for (int i = 0; i < n; i++) { // every other one from the file's start: it joins the cache at another packet id
                subs.connect(server.port(), "repl", "repl-pass", end.position().file(), i % 2 == 0 ? end.position().position() : 4);
            }
            subs.start();
            long filesBefore = server.eventsReadFromFiles();
            int warm = o.rate();
            RawTailSubscribers.Window w = subs.window(end.lastSequence() + warm + 1, o.measured());
            long period = 1_000_000_000L / o.rate();
            long t0 = System.nanoTime();
            for (int i = 0; i < warm + o.measured(); i++) {
                long due = t0 + i * period;
                for (long left; (left = due - System.nanoTime()) > 0; ) {
                    LockSupport.parkNanos(left);
                }
                corpus.append(writer, 1);
            }
            awaitAll(subs, warm + o.measured());
            long[] published = new long[o.measured()];
            for (int i = 0; i < published.length; i++) {
                var at = durableAt.ceilingEntry(w.first() + i); // the publish that made it durable
                published[i] = at == null ? Long.MAX_VALUE : at.getValue();
            }
            long w0 = System.nanoTime();
            corpus.append(writer, o.burst());
            double writerTps = o.burst() / ((System.nanoTime() - w0) / 1e9);
            awaitAll(subs, warm + o.measured() + o.burst());
            long[] d = delays(w, i -> published[i]);
            return new Run(stalled ? "tributary+stalled" : "tributary", n, round, percentile(d, 0.5),
                    percentile(d, 0.99), writerTps, server.eventsReadFromFiles() - filesBefore);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void awaitAll(RawTailSubscribers subs, long transactions) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (subs.slowest() < transactions) {
            if (subs.firstError() != null) {
                throw new IllegalStateException(subs.firstError());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the slowest subscriber has " + subs.slowest() + " of " + transactions
                        + " transactions after 120 s");
            }
            Thread.sleep(1);
        }
    }

    /** Every (subscriber, transaction) delay of the window in nanoseconds, sorted. */
    private static long[] delays(RawTailSubscribers.Window w, java.util.function.IntToLongFunction origin) {
        long[][] r = w.receivedAt();
        long[] d = new long[r.length * (r.length == 0 ? 0 : r[0].length)];
        int k = 0;
        for (long[] sub : r) {
            for (int i = 0; i < sub.length; i++) {
                if (sub[i] == 0) {
                    throw new IllegalStateException("transaction " + (w.first() + i) + " was not received");
                }
                d[k++] = sub[i] - origin.applyAsLong(i);
            }
        }
        Arrays.sort(d);
        return d;
    }

    private static double percentile(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))] / 1e6;
    }

    private static void report(List<Run> runs, Options o) throws Exception {
        Map<String, List<Run>> by = new LinkedHashMap<>();
        for (String t : TARGETS) {
            for (int n : o.subscribers()) {
                by.put(t + "@" + n, runs.stream().filter(r -> r.target.equals(t) && r.subscribers == n).toList());
            }
        }
        System.out.println();
        System.out.println("Medians of " + o.rounds() + " rounds; ratios to the same target's 1-subscriber figure:");
        System.out.println("| target | subscribers | delay p50 (ms) | delay p99 (ms) | p50 / 1-sub | p99 / 1-sub"
                + " | writer txn/s | writer / 1-sub | events read from files |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        int first = o.subscribers()[0];
        for (String t : TARGETS) {
            List<Run> base = by.get(t + "@" + first);
            for (int n : o.subscribers()) {
                List<Run> rs = by.get(t + "@" + n);
                System.out.printf("| %s | %d | %.3f | %.3f | %.2f | %.2f | %s | %s | %d |%n", t, n,
                        median(rs, Run::p50Ms), median(rs, Run::p99Ms),
                        median(rs, Run::p50Ms) / median(base, Run::p50Ms), median(rs, Run::p99Ms) / median(base, Run::p99Ms),
                        !t.startsWith("tributary") ? "-" : String.format("%,.0f", median(rs, Run::writerTps)),
                        !t.startsWith("tributary") ? "-" : String.format("%.2f", median(rs, Run::writerTps)
                                / median(by.get("tributary@" + first), Run::writerTps)),
                        rs.stream().mapToLong(Run::readFromFiles).max().orElse(0));
            }
        }
        System.out.println();
        System.out.println("| subscribers | Tributary p50 / MariaDB p50 | Tributary p99 / MariaDB p99"
                + " | Tributary p50 / floor p50 | Tributary p99 / floor p99 |");
        System.out.println("|---:|---:|---:|---:|---:|");
        for (int n : o.subscribers()) {
            List<Run> t = by.get("tributary@" + n);
            List<Run> m = by.get("mariadb@" + n);
            List<Run> f = by.get("floor@" + n);
            System.out.printf("| %d | %.2f | %.2f | %.2f | %.2f |%n", n, median(t, Run::p50Ms) / median(m, Run::p50Ms),
                    median(t, Run::p99Ms) / median(m, Run::p99Ms), median(t, Run::p50Ms) / median(f, Run::p50Ms),
                    median(t, Run::p99Ms) / median(f, Run::p99Ms));
        }
        if (o.out() == null) {
            return;
        }
        Files.createDirectories(o.out());
        List<String> csv = new ArrayList<>(List.of("target,subscribers,round,p50_ms,p99_ms,writer_txn_per_s,read_from_files"));
        for (Run r : runs) {
            csv.add(String.format("%s,%d,%d,%.4f,%.4f,%.0f,%d", r.target, r.subscribers, r.round, r.p50Ms, r.p99Ms,
                    r.writerTps, r.readFromFiles));
        }
        Files.write(o.out().resolve("results.csv"), csv);
        CategoryChart chart = BenchCharts.bars("Tailing subscribers: delay to arrival (durable / commit return),"
                + " raw-socket subscribers", "subscribers", "milliseconds (median of " + o.rounds() + " rounds)", 1400,
                "#,##0.00");
        List<String> xs = Arrays.stream(o.subscribers()).mapToObj(Integer::toString).toList();
        for (String t : TARGETS) {
            String name = switch (t) {
                case "floor" -> "floor";
                case "mariadb" -> "MariaDB";
                case "tributary" -> "Tributary";
                default -> "Tributary +stalled";
            };
            chart.addSeries(name + " p50", xs, Arrays.stream(o.subscribers())
                    .mapToObj(n -> median(by.get(t + "@" + n), Run::p50Ms)).toList());
            chart.addSeries(name + " p99", xs, Arrays.stream(o.subscribers())
                    .mapToObj(n -> median(by.get(t + "@" + n), Run::p99Ms)).toList());
        }
        BitmapEncoder.saveBitmap(chart, o.out().resolve("tail-delay").toString(), BitmapEncoder.BitmapFormat.PNG);
        System.out.println("wrote " + o.out().resolve("results.csv") + " and " + o.out().resolve("tail-delay.png"));
    }

    private static double median(List<Run> rs, java.util.function.ToDoubleFunction<Run> f) {
        double[] a = rs.stream().mapToDouble(f).sorted().toArray();
        return a.length == 0 ? Double.NaN : a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }
}
