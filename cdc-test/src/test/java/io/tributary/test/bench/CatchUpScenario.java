package io.tributary.test.bench;

import io.tributary.test.bench.load.Clients;
import io.tributary.test.bench.load.LoadCounters;
import io.tributary.test.bench.load.OltpLoad;
import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.shard.ShardInfo;
import java.io.PrintStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The bench runner's {@code catchup} scenario (issue 18): the shards take an OLTP load (with XA over two shards where
 * there are several) while no daemon reads them, then the daemon starts and catches up. Two kinds, for 1 and for 4
 * shards:
 * <ul>
 * <li><b>outage</b>: a daemon runs and is caught up, stops (gracefully), the shards are loaded for
 *     {@code --catchup-outage=N} seconds, the same daemon starts again and resumes from its checkpoint;</li>
 * <li><b>history</b>: the shards' binlogs are purged, the load runs until they hold {@code --catchup-history-mb}
 *     (1024 by default) of new binlog, and a new daemon starts with {@code start: earliest}.</li>
 * </ul>
 * Measured from the daemon's "Tributary started" (its pipeline has just started its readers): the time to the first
 * global transaction, the time until the backlog is written (the global transaction count reaches its final value,
 * confirmed by the delay gauge falling under a second), the catch-up rate in shard binlog MB/s (the backlog's bytes in
 * the shards' binlogs over that time) and global events/s, the buffer's peak and the bytes spilled (the daemon's
 * {@code tributary_buffer_bytes} gauges, sampled every 250 ms), and the global binlog position over time. Beside it,
 * in the same run, the raw-read ceiling: {@code mariadb-binlog --read-from-remote-server --raw --to-last-log} of the
 * same shard binlog files, one per shard at once, its files linked to {@code /dev/null}.
 */
final class CatchUpScenario {

    private static final Path TOOL = Path.of("/usr/bin/mariadb-binlog");
    private static final double MB = 1e6;

    /** The global binlog position over time of one run: seconds since started, MB written, MB of the buffer. */
    record Trace(String label, List<double[]> points) {
    }

    /**
     * What a run measured.
     *
     * @param rate    catch-up MB/s of shard binlog
     * @param warm    the same over the second half of the catch-up
     * @param rawRate the raw read's MB/s, same run
     * @param cpu     the daemon's CPU seconds while catching up
     */
    record Result(BenchRow row, Trace trace, String summary, double rate, double warm, double rawRate, double cpu) {
    }

    private final BenchOptions o;
    private final List<ShardInfo> all;
    private final PrintStream out;
    private final Consumer<String> status;
    private int daemons;

    CatchUpScenario(BenchOptions o, List<ShardInfo> all, PrintStream out, Consumer<String> status) {
        this.o = o;
        this.all = List.copyOf(all);
        this.out = out;
        this.status = status;
    }

    /** The outage: a caught-up daemon stops, the shards are loaded for the outage, the daemon starts again. */
    Result outage(int shards) throws Exception {
        List<ShardInfo> infos = all.subList(0, shards);
        String label = shards + (shards == 1 ? " shard" : " shards") + ", outage " + o.catchupOutageSeconds() + " s";
        OltpLoad load = new OltpLoad(infos, o.oltpRows(), o.xaShare());
        DaemonProcess d = daemon("outage-" + shards, infos, "current", false);
        try {
            // the tables are made while the daemon runs: it has a checkpoint to resume from after the outage
            status.accept("catchup, " + label + ": preparing the tables");
            load.prepare();
            status.accept("catchup, " + label + ": the daemon catches up before the outage");
            awaitCaughtUp(d, Duration.ofMinutes(3));
            d.stop(Duration.ofSeconds(60));
            List<String> startFiles = flush(infos); // the outage's history starts in a file of its own
            long before = binlogBytes(infos, startFiles);
            LoadCounters c = new LoadCounters();
            status.accept("catchup, " + label + ": the daemon is down, " + o.catchupClients() + " OLTP clients load the"
                    + " shards");
            try (Clients clients = load.start(o.catchupClients(), c)) {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.catchupOutageSeconds());
                while (System.nanoTime() < end && c.error == null) {
                    Thread.sleep(200);
                }
                clients.stop();
            }
            if (c.error != null) {
                throw new IllegalStateException("the load failed: " + c.error, c.error);
            }
            long backlog = binlogBytes(infos, startFiles) - before;
            status.accept("catchup, " + label + ": the daemon starts again");
            long launched = System.nanoTime();
            d.restart();
            String note = String.format(Locale.ROOT, "%d OLTP clients for %d s while the daemon was down, XA share %.0f%%"
                    + " (%,d XA), %,d transactions; the same daemon restarted", o.catchupClients(),
                    o.catchupOutageSeconds(), shards > 1 ? o.xaShare() * 100 : 0, c.xaTransactions.get(),
                    c.transactions.get());
            return measure("outage", label, shards, d, infos, startFiles, backlog, c.transactions.get(), launched, note,
                    false);
        } finally {
            d.close();
            BenchRunner.deleteTree(d.directory());
        }
    }

    /** The first start over a history: the shards' binlogs purged, loaded to the history size, a new daemon. */
    List<Result> history(int shards) throws Exception {
        List<ShardInfo> infos = all.subList(0, shards);
        long target = (long) o.catchupHistoryMb() << 20;
        String label = shards + (shards == 1 ? " shard" : " shards") + ", history " + o.catchupHistoryMb() + " MB";
        status.accept("catchup, " + label + ": purging the shards' binlogs");
        List<String> startFiles = flush(infos);
        purgeTo(infos, startFiles);
        OltpLoad load = new OltpLoad(infos, o.oltpRows(), o.xaShare());
        status.accept("catchup, " + label + ": preparing the tables");
        load.prepare(); // its DDL and bulk inserts are part of the history
        LoadCounters c = new LoadCounters();
        long loadStart = System.nanoTime();
        try (Clients clients = load.start(o.catchupClients(), c)) {
            long bytes = 0;
            int n = 0;
            while ((bytes = binlogBytes(infos, startFiles)) < target && c.error == null) {
                Thread.sleep(500);
                if (++n % 10 == 0) {
                    status.accept(String.format(Locale.ROOT, "catchup, %s: loading the history, %.0f of %d MB", label,
                            bytes / (double) (1 << 20), o.catchupHistoryMb()));
                }
            }
            clients.stop();
        }
        if (c.error != null) {
            throw new IllegalStateException("the load failed: " + c.error, c.error);
        }
        long backlog = binlogBytes(infos, startFiles);
        out.printf(Locale.ROOT, "  history of %.1f MB loaded in %.0f s (%,d OLTP transactions)%n", backlog / MB,
                (System.nanoTime() - loadStart) / 1e9, c.transactions.get());
        String note = String.format(Locale.ROOT, "first start, start: earliest; history: the tables' DDL and %,d-row"
                + " fill, then %d OLTP clients, XA share %.0f%% (%,d XA), %,d transactions", o.oltpRows(),
                o.catchupClients(), shards > 1 ? o.xaShare() * 100 : 0, c.xaTransactions.get(), c.transactions.get());
        List<Result> results = new ArrayList<>();
        List<Result> base = new ArrayList<>();
        List<Result> peer = new ArrayList<>();
        for (int round = 1; round <= o.catchupRounds(); round++) {
            // with a peer, who goes first alternates, so that neither always meets the page cache the other left
            List<Boolean> order = !o.catchupPeer() ? List.of(false)
                    : round % 2 == 1 ? List.of(false, true) : List.of(true, false);
            for (boolean isPeer : order) {
                String name = "history-" + shards + (isPeer ? "-peer" : "") + (o.catchupRounds() > 1 ? "-r" + round : "");
                String runLabel = label + (isPeer ? ", peer" : "") + (o.catchupRounds() > 1 ? ", round " + round : "");
                long launched = System.nanoTime();
                DaemonProcess d = daemon(name, infos, "earliest", isPeer);
                try {
                    Result r = measure("history", runLabel, shards, d, infos, startFiles, backlog, -1, launched,
                            note + (isPeer ? "; " + o.peerDescription() : ""), isPeer);
                    results.add(r);
                    (isPeer ? peer : base).add(r);
                } finally {
                    d.close();
                    BenchRunner.deleteTree(d.directory());
                }
            }
        }
        if (results.size() > 1) {
            out.println("  " + compare(label, base, peer));
        }
        return results;
    }

    /** Medians of the rounds, and the peer's against the base's where there is a peer. */
    static String compare(String label, List<Result> base, List<Result> peer) {
        StringBuilder b = new StringBuilder(label).append(": medians of ").append(base.size()).append(" round(s): ")
                .append(medians(base));
        if (!peer.isEmpty()) {
            b.append("; peer ").append(medians(peer)).append(String.format(Locale.ROOT, "; peer / base: rate %.2f,"
                    + " second half %.2f, daemon CPU %.2f", median(peer, Result::rate) / median(base, Result::rate),
                    median(peer, Result::warm) / median(base, Result::warm),
                    median(peer, Result::cpu) / median(base, Result::cpu)));
        }
        return b.toString();
    }

    private static String medians(List<Result> rs) {
        return String.format(Locale.ROOT, "rate %.1f MB/s (%.0f%% of the raw read), second half %.1f MB/s, daemon CPU"
                + " %.1f s", median(rs, Result::rate), 100 * median(rs, r -> r.rate() / r.rawRate()),
                median(rs, Result::warm), median(rs, Result::cpu));
    }

    static double median(List<Result> rs, java.util.function.ToDoubleFunction<Result> f) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** @param peer whether this is the peer daemon (the {@code --catchup-peer-*} options) */
    private DaemonProcess daemon(String name, List<ShardInfo> infos, String start, boolean peer) throws Exception {
        daemons++;
        Path dir = o.work().toAbsolutePath().resolve("catchup-" + daemons + "-" + name);
        DaemonProcess.Builder b = DaemonProcess.builder(infos, dir).flavor("mariadb").heap("1g")
                .readerIdBlock(500 + daemons).startTimeout(Duration.ofSeconds(180));
        for (ShardInfo s : infos) {
            b.property("cdc.shards[" + s.index() + "].start", start);
        }
        o.catchupDaemon().forEach(b::property);
        if (peer) {
            o.catchupPeerDaemon().forEach(b::property);
        }
        jvmOptions(peer).forEach(b::jvmOption);
        if (o.catchupJar() != null) {
            b.execJar(o.catchupJar()); // java -jar, as the container image and the systemd unit run it
        }
        if (peer && o.catchupPeerClasses() != null) {
            b.classesFirst(o.catchupPeerClasses());
        }
        if (peer && o.catchupPeerJava() != null) {
            b.javaHome(o.catchupPeerJava());
        }
        if (o.catchupJfr() != null) {
            Files.createDirectories(o.catchupJfr().toAbsolutePath());
            b.jvmOption("-XX:StartFlightRecording=filename=" + o.catchupJfr().toAbsolutePath().resolve(name + ".jfr")
                    + ",settings=profile");
        }
        status.accept("catchup: starting the daemon for " + name);
        return b.start();
    }

    private List<String> jvmOptions(boolean peer) {
        return peer && o.catchupPeerJvm() != null ? o.catchupPeerJvm() : o.catchupJvm();
    }

    /**
     * From the daemon's start until the backlog is written: samples every 250 ms, then the raw read of the same
     * files.
     *
     * @param expected global transactions the backlog holds, or -1 when not known (then: the delay under a second)
     */
    private Result measure(String kind, String label, int shards, DaemonProcess d, List<ShardInfo> infos,
            List<String> startFiles, long backlog, long expected, long launched, String note, boolean peer)
            throws Exception {
        long started = System.nanoTime();
        List<double[]> points = new ArrayList<>();
        double first = Double.NaN;
        double peak = 0;
        double spilled = 0;
        double lastTxns = -1;
        double doneAt = Double.NaN;
        double events = 0;
        double bytes = 0;
        double cpu0 = d.cpuSeconds();
        Map<String, Double> threads0 = threadCpu(d.pid());
        long timeoutNanos = TimeUnit.SECONDS.toNanos(Math.max(300, (long) (backlog / MB / 0.2)));
        int n = 0;
        while (true) {
            Map<String, Double> m = d.metrics();
            double t = (System.nanoTime() - started) / 1e9;
            double txns = DaemonProcess.sum(m, "tributary_binlog_transactions_total");
            bytes = DaemonProcess.sum(m, "tributary_binlog_bytes_total");
            events = DaemonProcess.sum(m, "tributary_binlog_events_total");
            double memory = DaemonSampler.maxOf(m, "tributary_buffer_bytes{where=\"memory\"}");
            peak = Math.max(peak, Double.isNaN(memory) ? 0 : memory);
            spilled = Math.max(spilled, sumWhere(m, "tributary_buffer_bytes", "spilled")
                    + DaemonProcess.sum(m, "tributary_spill_store_bytes"));
            points.add(new double[] {t, bytes / MB, Double.isNaN(memory) ? 0 : memory / MB});
            if (txns > 0 && Double.isNaN(first)) {
                first = t;
            }
            if (txns != lastTxns) {
                doneAt = t; // the last sample that saw the count move
                lastTxns = txns;
            }
            double delay = DaemonSampler.maxOf(m, "tributary_delay_milliseconds");
            boolean all = expected < 0 || txns >= expected;
            if (all && txns > 0 && !Double.isNaN(delay) && delay < 1000) {
                break;
            }
            if (!d.isAlive() || d.logContains("global binlog pipeline stopped")) {
                throw new IllegalStateException("the daemon stopped catching up (" + label + "); its log ends with:\n"
                        + d.tail(30));
            }
            if (System.nanoTime() - started > timeoutNanos) {
                throw new IllegalStateException(String.format(Locale.ROOT, "not caught up within %d s: %,.0f global"
                        + " transactions written%s", TimeUnit.NANOSECONDS.toSeconds(timeoutNanos), txns,
                        expected < 0 ? "" : " of " + expected));
            }
            if (++n % 20 == 0) {
                status.accept(String.format(Locale.ROOT, "catchup, %s: %.1f s, %,.0f global transactions%s, %.1f MB"
                        + " written, buffer %.1f MB", label, t, txns, expected < 0 ? "" : " of " + expected, bytes / MB,
                        (Double.isNaN(memory) ? 0 : memory) / MB));
            }
            Thread.sleep(250);
        }
        double cpu = d.cpuSeconds() - cpu0;
        String threads = topThreads(threads0, threadCpu(d.pid()));
        double seconds = doneAt; // the backlog was all written by this sample
        status.accept("catchup, " + label + ": the raw read of the same binlogs");
        double[] raw = rawRead(infos, startFiles);
        double rate = backlog / MB / seconds;
        double rawRate = raw[1] / MB / raw[0];
        // The second half of the catch-up, once the fresh JVM has compiled its hot code: what a longer backlog
        // would run at. The trace counts global bytes; the backlog's shard bytes per global byte convert it.
        double warm = secondHalfRate(points, first, seconds, bytes > 0 ? backlog / bytes : Double.NaN);
        double firstFromLaunch = (started - launched) / 1e9 + first;
        String summary = String.format(Locale.ROOT, "%s: backlog %.1f MB, first global transaction %.2f s after the"
                + " daemon started (%.1f s after its JVM was launched), caught up in %.1f s: %.1f MB/s, %,.0f events/s;"
                + " raw read %.1f MB in %.2f s = %.1f MB/s; catch-up at %.0f%% of the raw read; buffer peak %.1f MB,"
                + " spilled %.1f MB; daemon CPU %.1f s; second half of the catch-up %.1f MB/s (%.0f%% of the raw read)",
                label, backlog / MB, first, firstFromLaunch, seconds, rate, events / seconds, raw[1] / MB, raw[0],
                rawRate, 100 * rate / rawRate, peak / MB, spilled / MB, cpu, warm, 100 * warm / rawRate);
        out.println("  " + summary);
        out.println("  daemon CPU by thread while catching up: " + threads);
        double nan = Double.NaN;
        BenchRow row = new BenchRow("catchup", label, shards, kind, seconds, events / seconds, nan, bytes / seconds,
                lastTxns / seconds, nan, nan, nan, nan, backlog > 0 ? cpu / (backlog / 1e9) : nan, nan, d.rssPeakBytes(),
                spilled, nan, backlog, nan, String.format(Locale.ROOT, "first output %.2f s after start; catch-up %.1f"
                        + " MB/s of shard binlog (%.1f MB in %.1f s) vs raw read %.1f MB/s = %.0f%%; second half %.1f"
                        + " MB/s = %.0f%%; buffer peak %.1f MB, spilled %.1f MB; %s", first, rate, backlog / MB, seconds,
                        rawRate, 100 * rate / rawRate, warm, 100 * warm / rawRate,
                        peak / MB, spilled / MB, (jvmOptions(peer).isEmpty() ? note
                                : note + "; daemon JVM options " + String.join(" ", jvmOptions(peer)))
                                + (o.catchupJar() == null ? "" : "; daemon run as java -jar " + o.catchupJar())));
        return new Result(row, new Trace(label, points), summary, rate, warm, rawRate, cpu);
    }

    /**
     * The catch-up rate over the second half of the time from the first global transaction to the end, in shard MB/s.
     *
     * @param points        samples of {seconds since the daemon started, global binlog MB written, ...}
     * @param first         when the first global transaction appeared
     * @param end           when the backlog was all written
     * @param shardPerGlobal shard binlog bytes per global binlog byte over the whole backlog
     * @return NaN when the samples do not span the second half
     */
    static double secondHalfRate(List<double[]> points, double first, double end, double shardPerGlobal) {
        double from = first + (end - first) / 2;
        double[] a = null;
        double[] b = null;
        for (double[] p : points) {
            if (a == null && p[0] >= from) {
                a = p;
            }
            if (p[0] <= end) {
                b = p;
            }
        }
        if (a == null || b == null || b[0] <= a[0]) {
            return Double.NaN;
        }
        return (b[1] - a[1]) / (b[0] - a[0]) * shardPerGlobal;
    }

    /** CPU seconds (user + system) of each thread of process {@code pid}, summed by name ({@code /proc}). */
    private static Map<String, Double> threadCpu(long pid) {
        Map<String, Double> cpu = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("\\d+$", "N");
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    cpu.merge(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0, Double::sum);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return cpu;
        }
        return cpu;
    }

    /** The threads that used the most CPU between two {@link #threadCpu} samples: "name 1.2 s, ...". */
    private static String topThreads(Map<String, Double> before, Map<String, Double> after) {
        return after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0.0)))
                .filter(e -> e.getValue() >= 0.05).sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .limit(12).map(e -> String.format(Locale.ROOT, "%s %.2f s", e.getKey(), e.getValue()))
                .collect(java.util.stream.Collectors.joining(", "));
    }

    private static double sumWhere(Map<String, Double> m, String name, String where) {
        double s = 0;
        for (Map.Entry<String, Double> e : m.entrySet()) {
            if (e.getKey().startsWith(name + "{") && e.getKey().contains("where=\"" + where + "\"")
                    && !e.getValue().isNaN()) {
                s += e.getValue();
            }
        }
        return s;
    }

    /**
     * {@code mariadb-binlog --read-from-remote-server --raw --to-last-log} of every shard from its start file, all at
     * once, writing to links to {@code /dev/null}: {wall seconds, bytes of the files read}.
     */
    private double[] rawRead(List<ShardInfo> infos, List<String> startFiles) throws Exception {
        if (!Files.isExecutable(TOOL)) {
            throw new IllegalStateException(TOOL + " is missing: the raw-read ceiling needs it (apt-get install"
                    + " mariadb-client)");
        }
        Path dir = o.work().toAbsolutePath().resolve("catchup-raw");
        BenchRunner.deleteTree(dir);
        Files.createDirectories(dir);
        long bytes = 0;
        for (int i = 0; i < infos.size(); i++) {
            for (String[] f : binaryLogs(infos.get(i))) {
                if (f[0].compareTo(startFiles.get(i)) >= 0) {
                    bytes += Long.parseLong(f[1]);
                    Files.createSymbolicLink(dir.resolve("s" + i + "-" + f[0]), Path.of("/dev/null"));
                }
            }
        }
        List<Process> ps = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < infos.size(); i++) {
            ShardInfo s = infos.get(i);
            ps.add(new ProcessBuilder(TOOL.toString(), "--read-from-remote-server", "--raw", "--to-last-log",
                    "--host=" + s.host(), "--port=" + s.port(), "--user=" + s.replUser(), "--password=" + s.replPassword(),
                    "--result-file=" + dir.resolve("s" + i + "-"), startFiles.get(i))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("s" + i + ".log").toFile()).start());
        }
        for (int i = 0; i < ps.size(); i++) {
            Process p = ps.get(i);
            if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("mariadb-binlog of " + infos.get(i).name() + " failed: "
                        + Files.readString(dir.resolve("s" + i + ".log")));
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        BenchRunner.deleteTree(dir);
        return new double[] {secs, bytes};
    }

    private static List<String[]> binaryLogs(ShardInfo s) throws SQLException {
        List<String[]> files = new ArrayList<>();
        try (Connection c = s.openAdminConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
            while (rs.next()) {
                files.add(new String[] {rs.getString(1), Long.toString(rs.getLong(2))});
            }
        }
        return files;
    }

    /** Bytes of every shard's binlog files from its start file on. */
    private static long binlogBytes(List<ShardInfo> infos, List<String> startFiles) throws SQLException {
        long total = 0;
        for (int i = 0; i < infos.size(); i++) {
            for (String[] f : binaryLogs(infos.get(i))) {
                if (f[0].compareTo(startFiles.get(i)) >= 0) {
                    total += Long.parseLong(f[1]);
                }
            }
        }
        return total;
    }

    /** Starts a new binlog file on every shard; returns their names. */
    private static List<String> flush(List<ShardInfo> infos) throws SQLException {
        List<String> files = new ArrayList<>();
        for (ShardInfo s : infos) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("FLUSH BINARY LOGS");
                try (ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
                    rs.next();
                    files.add(rs.getString(1));
                }
            }
        }
        return files;
    }

    private static void purgeTo(List<ShardInfo> infos, List<String> files) throws SQLException {
        for (int i = 0; i < infos.size(); i++) {
            try (Connection c = infos.get(i).openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("PURGE BINARY LOGS TO '" + files.get(i) + "'");
            }
        }
    }

    /** Waits until the daemon has written something and its delay gauge stays under a second for 2 s. */
    private static void awaitCaughtUp(DaemonProcess d, Duration timeout) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        int under = 0;
        while (System.nanoTime() < end) {
            Map<String, Double> m = d.metrics();
            double delay = DaemonSampler.maxOf(m, "tributary_delay_milliseconds");
            boolean wrote = DaemonProcess.sum(m, "tributary_binlog_transactions_total") > 0;
            under = wrote && !Double.isNaN(delay) && delay < 1000 ? under + 1 : 0;
            if (under >= 8) {
                return;
            }
            if (!d.isAlive()) {
                throw new IllegalStateException("the daemon died: " + d.tail(30));
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the daemon did not catch up within " + timeout);
    }
}
