package io.tributary.test.bench;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import io.tributary.test.bench.load.BlobLoad;
import io.tributary.test.bench.load.Clients;
import io.tributary.test.bench.load.ImportLoad;
import io.tributary.test.bench.load.LargeTransactionLoad;
import io.tributary.test.bench.load.LoadCounters;
import io.tributary.test.bench.load.OltpLoad;
import io.tributary.test.bench.load.TpccLoad;
import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The benchmark runner: the reference report's scenarios against 4 embedded MariaDB shards (the harness)
 * with the Tributary daemon as a child JVM ({@link DaemonProcess}), and a report in {@code --out} (default
 * {@code bench-report/}): {@code index.html}, {@code summary.md}, {@code results.csv} and PNG plots
 * ({@link BenchReport}).
 *
 * <p>Scenarios ({@code --scenarios=import,tpcc,oltp,large,blob,fanout,pipeline,catchup}, all by default, all but
 * catchup with {@code --quick}):
 * <ul>
 * <li>import: {@code --import-tables=8,16,32} sharded tables over the 4 shards, one client per table inserting
 *     100-row batches ({@link ImportLoad});</li>
 * <li>tpcc: the TPC-C tables' initial population for {@code --tpcc-warehouses=8} warehouses sharded by warehouse
 *     over the 4 shards, one loader per warehouse and per shard's copy of item ({@link TpccLoad}), measured from the
 *     loaders' start to their end; {@code --tpcc-scale=1} shrinks the item, customer and order counts;</li>
 * <li>oltp: {@code oltp_write_only}-like ({@link OltpLoad}) at {@code --oltp-clients=1,2,4,...,64} until the shards
 *     saturate ({@link Saturation}: a level under 10% more shard transactions than the one before, confirmed by the
 *     next, ends it; the report says where), {@code --xa-share=0.1} of the transactions XA over two shards;</li>
 * <li>large: {@code --large-mb=256,1024,4096} single transactions (one shard) and XA transactions (4 branches),
 *     persist off, AUTO and FORCE ({@code --large-modes}; {@code --large-kinds=single,XA}), rows of one letter
 *     repeated or incompressible ({@code --large-content=repeat|random}); the heap is
 *     {@code --persist-heap-mb=512} MB where persist is on; with persist off the heap is sized for the transaction up to {@code --off-heap-cap-mb}
 *     (bigger ones are reported not run), or fixed by {@code --off-heap-mb} (what does not fit fails clearly);</li>
 * <li>blob: 512 KB rows, update load at {@code --blob-clients=1,4,16} ({@link BlobLoad});</li>
 * <li>fanout: {@code --fanout=1,8,64} {@code BinaryLogClient}s tailing the daemon's dump port under OLTP load;</li>
 * <li>pipeline: {@code --pipeline-shards=4,16} recorded shard streams (a real MariaDB OLTP binlog) through merge
 *     and write in this JVM, without shards or readers ({@link MergeBenchmark}'s approach);</li>
 * <li>catchup: the daemon catching up ({@link CatchUpScenario}) on {@code --catchup-shards=1,4} shards after an
 *     outage of {@code --catchup-outage=60} s under {@code --catchup-clients=8} OLTP clients, and at a first start
 *     ({@code start: earliest}) over a history of {@code --catchup-history-mb=1024}; {@code --catchup-kinds=outage,history}
 *     picks them, {@code --catchup-jfr=DIR} records the daemon with JFR, {@code --catchup-daemon=KEY=VALUE;...}
 *     sets daemon configuration keys for these runs, {@code --catchup-jvm=OPTION;...} its JVM options,
 *     {@code --catchup-jar=JAR} runs it as {@code java -jar JAR} (the runnable jar, or its extracted layout's
 *     application jar) instead of on the runner's class path; beside each,
 *     the raw read of the same binlogs with {@code mariadb-binlog}, and a plot of the global binlog position over
 *     time. The history loads once and serves {@code --catchup-rounds=N} daemons; {@code --catchup-peer-jvm=OPTION;...},
 *     {@code --catchup-peer-daemon=KEY=VALUE;...}, {@code --catchup-peer-java=JAVA_HOME} (another Java runtime) and
 *     {@code --catchup-peer-classes=DIR:...} (another build's {@code target/classes}, put first on the class path)
 *     add a peer daemon to each round, the two alternating who goes first, and the medians of both and their
 *     ratio are printed.</li>
 * </ul>
 * Every window lasts {@code --duration=30} seconds. {@code --quick} picks small sizes and short windows for a
 * smoke run (~7 minutes on 2 shared cores). Progress (step n/m, elapsed, current EPS) is printed every 5 s.
 *
 * <pre>
 * ./mvnw -q -Pbench -pl cdc-test -am process-test-classes \
 *     -Dbench.main=io.tributary.test.bench.BenchRunner -Dbench.args="--quick"
 * </pre>
 */
public final class BenchRunner {

    static final int SHARDS = 4;
    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("com.github.shyiko.mysql.binlog");
    private static final double MB = 1 << 20;

    private final BenchOptions o;
    private final PrintStream out;
    private final List<BenchRow> rows = new ArrayList<>();
    /** What a scenario found as a whole (the OLTP ladder's saturation), printed below its table. */
    private final Map<String, String> findings = new LinkedHashMap<>();
    /** The catch-up runs' global binlog positions over time, for their plot. */
    private final List<CatchUpScenario.Trace> traces = new ArrayList<>();
    private final long runStart = System.nanoTime();
    private ShardCluster cluster;
    private int step;
    private volatile String current = "starting";
    private volatile DaemonSampler sampler;
    private int daemons;
    private DaemonProcess shared;

    private BenchRunner(BenchOptions o, PrintStream out) {
        this.o = o;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        BenchOptions o;
        try {
            o = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path report = run(o, System.out);
        System.out.println("Report: " + report.toAbsolutePath().resolve("index.html"));
        System.exit(0); // BinaryLogClient and JDBC leave non-daemon threads behind
    }

    /** Runs the scenarios and writes the report; returns the report directory. */
    public static Path run(BenchOptions o, PrintStream out) throws Exception {
        return new BenchRunner(o, out).runAll();
    }

    private Path runAll() throws Exception {
        System.setProperty("java.awt.headless", "true");
        QUIET.setLevel(java.util.logging.Level.WARNING); // BinaryLogClient logs every connect at INFO
        out.println("Tributary benchmark runner, " + o.describe());
        deleteTree(o.work());
        Files.createDirectories(o.work());
        Machine machine = Machine.measure(o.work(), o.diskTestMb());
        out.println("Machine: " + machine.describe());
        Thread progress = new Thread(this::progressLoop, "bench-progress");
        progress.setDaemon(true);
        progress.start();
        try {
            boolean needShards = o.scenarios().stream().anyMatch(s -> !s.equals("pipeline"));
            if (needShards) {
                current = "starting " + SHARDS + " shards";
                cluster = ShardCluster.start(ShardClusterConfig.defaults().withCount(SHARDS)
                        .withBaseDir(o.work().toAbsolutePath().resolve("shards"))
                        .withServerOptions(List.of("--innodb-buffer-pool-size=256M", "--innodb-log-file-size=256M",
                                "--max-binlog-size=1073741824")));
            }
            // the scenarios that use the daemon with its default 1 GB heap share one (a start takes 15-60 s here);
            // large transactions need daemons of their own, pipeline-only none
            List<String> order = Stream.of("import", "tpcc", "oltp", "blob", "fanout", "large", "catchup", "pipeline")
                    .filter(o.scenarios()::contains).toList();
            for (String sc : order) {
                if ((sc.equals("large") || sc.equals("catchup") || sc.equals("pipeline")) && shared != null) {
                    stopDaemon(shared);
                    shared = null;
                }
                try {
                    switch (sc) {
                        case "import" -> importScenario();
                        case "tpcc" -> tpccScenario();
                        case "oltp" -> oltpScenario();
                        case "large" -> largeScenario();
                        case "blob" -> blobScenario();
                        case "fanout" -> fanoutScenario();
                        case "pipeline" -> pipelineScenario();
                        case "catchup" -> catchupScenario();
                        default -> throw new IllegalStateException(sc);
                    }
                } catch (Exception e) {
                    out.println("Scenario " + sc + " failed: " + e);
                    e.printStackTrace(out);
                    if (rows.stream().noneMatch(r -> r.scenario().equals(sc))) {
                        rows.add(BenchRow.failed(sc, "-", Double.NaN, "", "scenario failed: " + e.getMessage()));
                    }
                }
                // after every scenario: a partial report survives
                BenchReport.write(o.out(), machine, o.describe(), rows, findings, traces);
            }
        } finally {
            current = "done";
            progress.interrupt();
            if (shared != null) {
                stopDaemon(shared);
            }
            if (cluster != null) {
                cluster.close();
            }
            deleteTree(o.work());
        }
        BenchReport.write(o.out(), machine, o.describe(), rows, findings, traces);
        out.printf(Locale.ROOT, "Finished %d points in %s%n", rows.size(), elapsed());
        return o.out();
    }

    // ---------------------------------------------------------------- progress

    private String elapsed() {
        long s = (System.nanoTime() - runStart) / 1_000_000_000L;
        return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }

    private void progressLoop() {
        while (true) {
            try {
                Thread.sleep(5000);
            } catch (InterruptedException e) {
                return;
            }
            DaemonSampler s = sampler;
            String eps = s == null || Double.isNaN(s.currentEps()) ? "" : String.format(Locale.ROOT, ", EPS %,.0f",
                    s.currentEps());
            out.printf(Locale.ROOT, "[%d/%d] %s, elapsed %s%s%n", step, o.steps(), current, elapsed(), eps);
        }
    }

    private void begin(String what) {
        step++;
        current = what;
        out.printf(Locale.ROOT, "[%d/%d] %s (elapsed %s)%n", step, o.steps(), what, elapsed());
    }

    private void add(BenchRow r) {
        rows.add(r);
        out.printf(Locale.ROOT, "  -> %s %s %s: EPS %s, BPS %s/s, TPS %s, delay p50/p99/max %s/%s/%s%s%s%n", r.scenario(),
                r.load(), r.variant(), BenchReport.count(r.eps()), BenchReport.bytes(r.bps()), BenchReport.count(r.tps()),
                BenchReport.ms(r.delayP50Ms()), BenchReport.ms(r.delayP99Ms()), BenchReport.ms(r.delayMaxMs()),
                Double.isNaN(r.durableSeconds()) ? "" : String.format(Locale.ROOT, ", commit to durable %.2f s",
                        r.durableSeconds()), r.note().isEmpty() ? "" : " (" + r.note() + ")");
    }

    // ---------------------------------------------------------------- daemon and windows

    private DaemonProcess startDaemon(String name, String heap, Map<String, String> properties) throws Exception {
        daemons++;
        Path dir = o.work().toAbsolutePath().resolve("daemon-" + daemons + "-" + name);
        DaemonProcess.Builder b = DaemonProcess.builder(cluster.infos(), dir).flavor("mariadb").heap(heap)
                .readerIdBlock(daemons % 1000).startTimeout(Duration.ofSeconds(180));
        for (ShardInfo s : cluster.infos()) {
            b.property("cdc.shards[" + s.index() + "].start", "current");
        }
        properties.forEach(b::property);
        current = "starting the daemon for " + name + " (heap " + heap + ")";
        DaemonProcess d = b.start();
        sampler = new DaemonSampler(d);
        return d;
    }

    /** The daemon the import, OLTP, blob and fan-out scenarios share (1 GB heap, default settings). */
    private DaemonProcess sharedDaemon() throws Exception {
        if (shared == null || !shared.isAlive() || shared.logContains(PIPELINE_STOPPED)) {
            if (shared != null) {
                stopDaemon(shared);
            }
            shared = startDaemon("shared", "1g", Map.of());
        }
        return shared;
    }

    /** A live edit through the admin endpoint ({@code PUT /admin/config/{key}}). */
    private static void editConfig(DaemonProcess d, String key, String value) throws IOException, InterruptedException {
        java.net.http.HttpRequest r = java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + d.managementPort() + "/admin/config/" + key))
                .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                        (DaemonProcess.ADMIN_USER + ":" + DaemonProcess.ADMIN_PASSWORD).getBytes(
                                java.nio.charset.StandardCharsets.UTF_8)))
                .header("Content-Type", "text/plain").timeout(Duration.ofSeconds(30))
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(value)).build();
        java.net.http.HttpResponse<String> resp = java.net.http.HttpClient.newHttpClient().send(r,
                java.net.http.HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new IllegalStateException("PUT /admin/config/" + key + "=" + value + " answered " + resp.statusCode()
                    + ": " + resp.body());
        }
        Thread.sleep(1500); // a valid edit applies within a second
    }

    private void stopDaemon(DaemonProcess d) throws Exception {
        DaemonSampler s = sampler;
        sampler = null;
        if (s != null) {
            s.close();
        }
        try {
            d.close();
        } finally {
            try (Stream<Path> logs = Files.list(d.directory())) {
                for (Path log : logs.filter(p -> p.getFileName().toString().endsWith(".log")).toList()) {
                    if (Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1).contains(PIPELINE_STOPPED)) {
                        Path keep = o.out().resolve("logs").resolve(d.directory().getFileName() + "-" + log.getFileName());
                        Files.createDirectories(keep.getParent());
                        Files.copy(log, keep, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                        out.println("  the daemon's pipeline had stopped; its log is kept in " + keep);
                    }
                }
            }
            deleteTree(d.directory());
        }
    }

    /** The counters at one instant. */
    private record Snapshot(long nanos, double events, double dml, double bytes, double txns, double files, double cpu,
            long shardBinlogBytes, long clientTxns) {
    }

    private Snapshot snapshot(DaemonProcess d, LoadCounters load) throws Exception {
        Map<String, Double> m = d.metrics();
        return new Snapshot(System.nanoTime(), DaemonProcess.sum(m, "tributary_binlog_events_total"),
                DaemonProcess.sum(m, "tributary_binlog_dml_events_total"), DaemonProcess.sum(m, "tributary_binlog_bytes_total"),
                DaemonProcess.sum(m, "tributary_binlog_transactions_total"),
                DaemonProcess.sum(m, "tributary_binlog_files_total"), d.cpuSeconds(), shardBinlogBytes(),
                load == null ? -1 : load.transactions.get());
    }

    private long shardBinlogBytes() throws SQLException {
        long total = 0;
        for (ShardInfo s : cluster.infos()) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
                while (rs.next()) {
                    total += rs.getLong(2);
                }
            }
        }
        return total;
    }

    private BenchRow row(String scenario, String load, double loadValue, String variant, DaemonProcess d, Snapshot a,
            Snapshot b, double durableSeconds, String note) throws Exception {
        double secs = (b.nanos() - a.nanos()) / 1e9;
        // the shards' delay gauge (max over shards), sampled every 0.5 s within this window only: the daemon's
        // per-transaction timer keeps a minute of history and would mix in the previous load level
        double p50 = sampler.delayQuantileMs(0.5);
        double p99 = sampler.delayQuantileMs(0.99);
        double max = sampler.delayPeakMs();
        long shardBytes = b.shardBinlogBytes() - a.shardBinlogBytes();
        return new BenchRow(scenario, load, loadValue, variant, secs, (b.events() - a.events()) / secs,
                (b.dml() - a.dml()) / secs, (b.bytes() - a.bytes()) / secs, (b.txns() - a.txns()) / secs,
                (b.files() - a.files()) / secs * 60, p50, p99, max,
                shardBytes > 0 ? (b.cpu() - a.cpu()) / (shardBytes / 1e9) : Double.NaN, sampler.heapPeak(),
                d.rssPeakBytes(), sampler.rocksPeak(), durableSeconds, shardBytes,
                a.clientTxns() < 0 ? Double.NaN : (b.clientTxns() - a.clientTxns()) / secs, note);
    }

    /** Runs {@code clients} of a load for one window and measures it. */
    private BenchRow window(String scenario, String load, double loadValue, DaemonProcess d, LoadCounters counters,
            Clients clients, String note) throws Exception {
        try {
            Thread.sleep(1000); // clients connected and running before the window opens
            sampler.resetPeaks();
            Snapshot a = snapshot(d, counters);
            long end = System.nanoTime() + o.durationSeconds() * 1_000_000_000L;
            watch(() -> System.nanoTime() >= end, d, counters);
            Snapshot b = snapshot(d, counters);
            return row(scenario, load, loadValue, "", d, a, b, Double.NaN, note);
        } finally {
            clients.stop();
        }
    }

    /** Starts a load of a fixed size (an import) and measures it from its start until all its clients finished. */
    private BenchRow wholeLoad(String scenario, String load, double loadValue, DaemonProcess d, LoadCounters counters,
            java.util.concurrent.Callable<Clients> start, String note) throws Exception {
        sampler.resetPeaks();
        Snapshot a = snapshot(d, counters);
        Clients clients = start.call();
        try {
            watch(() -> !clients.running(), d, counters);
            if (counters.error != null) {
                throw new IllegalStateException("the load failed: " + counters.error, counters.error);
            }
        } finally {
            clients.stop();
        }
        Snapshot b = snapshot(d, counters);
        return row(scenario, load, loadValue, "", d, a, b, Double.NaN, note);
    }

    /** Waits until {@code done}, failing as soon as the load or the daemon fails. */
    private void watch(java.util.function.BooleanSupplier done, DaemonProcess d, LoadCounters counters)
            throws InterruptedException {
        int n = 0;
        while (!done.getAsBoolean()) {
            Thread.sleep(200);
            if (counters != null && counters.error != null) {
                throw new IllegalStateException("the load failed: " + counters.error, counters.error);
            }
            if (!d.isAlive()) {
                throw new IllegalStateException("the daemon died: " + lastLogProblem(d));
            }
            if (++n % 5 == 0) {
                checkPipeline(d);
            }
        }
    }

    /** Throws when the daemon's pipeline stopped (the process lives on, but writes nothing more). */
    private static void checkPipeline(DaemonProcess d) {
        if (d.logContains(PIPELINE_STOPPED)) {
            throw new IllegalStateException("the daemon's pipeline stopped: " + firstLogLine(d, PIPELINE_STOPPED));
        }
    }

    private static final String PIPELINE_STOPPED = "global binlog pipeline stopped";

    private static String firstLogLine(DaemonProcess d, String containing) {
        for (String line : d.tail(100_000).split("\n")) {
            if (line.contains(containing)) {
                String l = line.strip();
                return l.length() > 300 ? l.substring(0, 300) : l;
            }
        }
        return "(not in the log)";
    }

    /** Measures one point; a failure becomes a row that says why, and the scenario goes on with its next point. */
    private BenchRow point(String scenario, String load, double loadValue, String variant,
            java.util.concurrent.Callable<BenchRow> measure) {
        try {
            return measure.call();
        } catch (Exception e) {
            out.println("  point failed: " + e.getMessage());
            return BenchRow.failed(scenario, load, loadValue, variant, "failed: " + e.getMessage());
        }
    }

    /** Waits (up to a minute) until the daemon has caught up with the shards: delay under a second. */
    private void settle(DaemonProcess d) throws Exception {
        String was = current;
        current = was + ", letting the daemon catch up";
        long end = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < end) {
            double delay = DaemonSampler.maxOf(d.metrics(), "tributary_delay_milliseconds");
            if (!Double.isNaN(delay) && delay < 1000 || !d.isAlive() || d.logContains(PIPELINE_STOPPED)) {
                break;
            }
            Thread.sleep(250);
        }
        current = was;
    }

    // ---------------------------------------------------------------- scenarios

    private void importScenario() throws Exception {
        for (int tables : o.importTables()) {
            String label = tables + " tables";
            begin("import, " + label);
            add(point("import", label, tables, "", () -> {
                DaemonProcess d = sharedDaemon();
                ImportLoad load = new ImportLoad(cluster.infos(), tables);
                load.prepare();
                settle(d);
                LoadCounters c = new LoadCounters();
                return window("import", label, tables, d, c, load.start(c), "one client per table, " + ImportLoad.BATCH
                        + "-row INSERTs (shard TPS x " + ImportLoad.BATCH + " = rows/s)");
            }));
        }
    }

    /** "1 client", "8 clients": the load of a row with client threads. */
    static String clientsLabel(int clients) {
        return clients + (clients == 1 ? " client" : " clients");
    }

    private void tpccScenario() throws Exception {
        for (int warehouses : o.tpccWarehouses()) {
            String label = warehouses + " warehouses";
            TpccLoad load = new TpccLoad(cluster.infos(), warehouses, o.tpccScale());
            begin("tpcc, " + load.describe());
            add(point("tpcc", label, warehouses, "", () -> {
                DaemonProcess d = sharedDaemon();
                load.prepare();
                settle(d);
                LoadCounters c = new LoadCounters();
                current = "tpcc, " + label + ": loading";
                BenchRow r = wholeLoad("tpcc", label, warehouses, d, c, () -> load.start(c), "");
                long counted = load.countRows();
                if (counted != c.rows.get()) {
                    throw new IllegalStateException("the loaders committed " + c.rows.get() + " rows but the TPC-C tables"
                            + " hold " + counted);
                }
                return r.withNote(String.format(Locale.ROOT, "%s; %d loaders, %d-row INSERTs in transactions of ~%d rows;"
                        + " %,d rows in %.1f s (%,.0f rows/s on the shards)", load.describe(), load.loaders(),
                        TpccLoad.ROWS_PER_INSERT, TpccLoad.ROWS_PER_TRANSACTION, c.rows.get(), r.seconds(),
                        c.rows.get() / r.seconds()));
            }));
        }
    }

    private void oltpScenario() throws Exception {
        current = "oltp: preparing " + SHARDS * OltpLoad.TABLES_PER_SHARD + " tables";
        OltpLoad load = new OltpLoad(cluster.infos(), o.oltpRows(), o.xaShare());
        load.prepare();
        Saturation saturation = new Saturation();
        int done = 0;
        for (int clients : o.oltpClients()) {
            String label = clientsLabel(clients);
            begin("oltp, " + label);
            BenchRow r = point("oltp", label, clients, "", () -> {
                DaemonProcess d = sharedDaemon();
                settle(d);
                LoadCounters c = new LoadCounters();
                BenchRow w = window("oltp", label, clients, d, c, load.start(clients, c), "");
                return w.withNote(String.format(Locale.ROOT, "XA share %.0f%% (%d XA committed), %d rolled back"
                        + " (deadlocks)", o.xaShare() * 100, c.xaTransactions.get(), c.failures.get()));
            });
            add(r);
            done++;
            boolean saturated = saturation.add(label, r.clientTps());
            findings.put("oltp", "Saturation: " + saturation.verdict() + ". Rule: " + Saturation.RULE + ".");
            if (saturated) {
                out.println("  shards " + saturation.verdict());
                step += o.oltpClients().size() - done;
                break;
            }
        }
    }

    private void largeScenario() throws Exception {
        LargeTransactionLoad load = new LargeTransactionLoad(cluster.infos(), o.largeContent());
        load.prepare();
        int maxMb = o.largeMb().stream().max(Integer::compare).orElse(0);
        if (o.largeModes().contains("off")) {
            // persist off: everything stays in memory, so the budget and heap must hold the largest transaction
            long limitMb = (long) Math.ceil(maxMb * 1.5) + 64;
            long heapMb = Math.max(1024, (long) (limitMb * 1.6) + 512);
            List<Integer> sizes = o.largeMb();
            if (o.offHeapMb() > 0) {
                // a fixed heap (e.g. the 512 MB of the persist-on runs): what does not fit must fail clearly
                heapMb = o.offHeapMb();
                limitMb = heapMb / 2;
            } else if (heapMb > o.offHeapCapMb()) {
                // size the heap for the largest size that fits under the cap; larger ones are not run
                int fits = o.largeMb().stream().filter(mb -> (Math.ceil(mb * 1.5) + 64) * 1.6 + 512 <= o.offHeapCapMb())
                        .max(Integer::compare).orElse(0);
                limitMb = (long) Math.ceil(fits * 1.5) + 64;
                heapMb = Math.max(1024, (long) (limitMb * 1.6) + 512);
                sizes = o.largeMb().stream().filter(mb -> mb <= fits).toList();
            }
            String heap = heapMb + "m";
            Map<String, String> props = Map.of("storage.isPersistOn", "false", "storage.memoryLimit", limitMb + "MB");
            DaemonStart start = () -> startDaemon("large-off", heap, props);
            DaemonProcess d = start.start();
            try {
                d = largeRuns(d, start, load, "off", sizes, "persist off, heap " + heapMb + " MB, memoryLimit " + limitMb
                        + " MB");
            } finally {
                stopDaemon(d);
            }
        }
        List<String> on = o.largeModes().stream().filter(m -> !m.equals("off")).toList();
        if (!on.isEmpty()) {
            // AUTO and FORCE share one daemon with the heap capped (--persist-heap-mb, 512 MB): the mode is switched by
            // a live edit; a daemon whose pipeline stopped (e.g. out of memory) is replaced by a fresh one for the next mode
            String heap = o.persistHeapMb() + "m";
            DaemonProcess d = startDaemon("large-persist", heap, Map.of("storage.persist.mode", on.get(0)));
            try {
                for (String mode : on) {
                    if (!d.isAlive() || d.logContains(PIPELINE_STOPPED)) {
                        stopDaemon(d);
                        d = startDaemon("large-" + mode, heap, Map.of("storage.persist.mode", mode));
                    }
                    editConfig(d, "storage.persist.mode", mode);
                    d = largeRuns(d, () -> startDaemon("large-" + mode, heap, Map.of("storage.persist.mode", mode)), load,
                            mode, o.largeMb(), "persist " + mode + ", heap " + o.persistHeapMb() + " MB");
                }
            } finally {
                stopDaemon(d);
            }
        }
    }

    /** Starts a daemon for the large-transaction runs of one mode. */
    @FunctionalInterface
    private interface DaemonStart {
        DaemonProcess start() throws Exception;
    }

    /** Runs every size and kind on {@code first}; a daemon whose pipeline stopped is replaced; returns the last one. */
    private DaemonProcess largeRuns(DaemonProcess first, DaemonStart restart, LargeTransactionLoad load, String mode,
            List<Integer> sizes, String note) throws Exception {
        DaemonProcess d = first;
        for (String kind : o.largeKinds()) {
            for (int mb : o.largeMb()) {
                String variant = kind + "/" + mode;
                String label = mb + " MB " + kind;
                begin("large, " + label + ", " + note);
                if (!sizes.contains(mb)) {
                    add(BenchRow.failed("large", label, mb, variant, "not run: persist off would need a heap over "
                            + o.offHeapCapMb() + " MB (--off-heap-cap-mb)"));
                    continue;
                }
                if (!d.isAlive() || d.logContains(PIPELINE_STOPPED)) {
                    stopDaemon(d); // its log is kept in the report's logs/ folder
                    d = restart.start();
                    load.truncate();
                    purgeShardBinlogs();
                }
                DaemonProcess now = d;
                add(point("large", label, mb, variant, () -> largeOnce(now, load, kind, mb, label, variant, note)));
                load.truncate();
                purgeShardBinlogs();
            }
        }
        return d;
    }

    private BenchRow largeOnce(DaemonProcess d, LargeTransactionLoad load, String kind, int mb, String label,
            String variant, String note) throws Exception {
        settle(d);
        sampler.resetPeaks();
        Snapshot a = snapshot(d, null);
        long bytes;
        try {
            bytes = kind.equals("XA") ? load.xa((long) mb << 20) : load.single((long) mb << 20);
        } catch (SQLException e) {
            return BenchRow.failed("large", label, mb, variant, "the shards refused the transaction: " + e.getMessage());
        }
        long committed = System.nanoTime();
        current = "large, " + label + ": committed on the shards, waiting for durable output";
        long timeout = Math.max(120, (long) (bytes / MB / 2)) * 1_000_000_000L; // at least 2 MB/s
        while (true) {
            Map<String, Double> m;
            try {
                m = d.metrics();
            } catch (IOException e) {
                m = Map.of();
            }
            double written = DaemonProcess.sum(m, "tributary_binlog_bytes_total") - a.bytes();
            double txns = DaemonProcess.sum(m, "tributary_binlog_transactions_total") - a.txns();
            if (txns >= 1 && written >= bytes * 0.99) {
                break;
            }
            boolean stopped = d.logContains(PIPELINE_STOPPED);
            if (!d.isAlive() || stopped || System.nanoTime() - committed > timeout) {
                String why = !d.isAlive() ? "the daemon died" : stopped ? "the daemon's pipeline stopped"
                        : "not durable within " + timeout / 1_000_000_000L + " s";
                return BenchRow.failed("large", label, mb, variant, why + " (" + note + "); daemon log: "
                        + lastLogProblem(d));
            }
            Thread.sleep(20);
        }
        long durable = System.nanoTime();
        Snapshot b = snapshot(d, null);
        return row("large", label, mb, variant, d, a, b, (durable - committed) / 1e9,
                note + String.format(Locale.ROOT, "; whole transaction (shard inserts included) %.1f s",
                        (durable - a.nanos()) / 1e9));
    }

    private static String lastLogProblem(DaemonProcess d) {
        String tail = d.tail(200);
        String found = "";
        for (String line : tail.split("\n")) {
            if (line.contains("ERROR") || line.contains("Exception") || line.contains("WARN")) {
                found = line.strip();
            }
        }
        return found.isEmpty() ? "(nothing logged)" : found.length() > 300 ? found.substring(0, 300) : found;
    }

    private void purgeShardBinlogs() throws SQLException {
        for (ShardInfo s : cluster.infos()) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("FLUSH BINARY LOGS");
                String last = null;
                try (ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
                    while (rs.next()) {
                        last = rs.getString(1);
                    }
                }
                st.execute("PURGE BINARY LOGS TO '" + last + "'");
            }
        }
    }

    private void blobScenario() throws Exception {
        current = "blob: preparing " + o.blobRows() + " rows of 512 KB per shard";
        BlobLoad load = new BlobLoad(cluster.infos(), o.blobRows());
        load.prepare();
        for (int clients : o.blobClients()) {
            String label = clientsLabel(clients);
            begin("blob, " + label);
            add(point("blob", label, clients, "", () -> {
                DaemonProcess d = sharedDaemon();
                settle(d);
                LoadCounters c = new LoadCounters();
                return window("blob", label, clients, d, c, load.start(clients, c), "512 KB rows, FULL row image");
            }));
        }
    }

    private void fanoutScenario() throws Exception {
        current = "fanout: preparing the OLTP tables";
        OltpLoad load = new OltpLoad(cluster.infos(), o.oltpRows(), o.xaShare());
        load.prepare();
        for (int n : o.fanout()) {
            String label = n + " subscribers";
            begin("fanout, " + label + ", " + o.fanoutClients() + " OLTP clients");
            add(point("fanout", label, n, "", () -> fanoutOnce(load, n, label)));
        }
    }

    private BenchRow fanoutOnce(OltpLoad load, int n, String label) throws Exception {
        DaemonProcess d = sharedDaemon();
        settle(d);
        List<BinaryLogClient> subscribers = new ArrayList<>();
        AtomicLong received = new AtomicLong();
        AtomicLong events = new AtomicLong();
        try {
            for (int i = 0; i < n; i++) {
                BinaryLogClient c = new BinaryLogClient("127.0.0.1", d.dumpPort(), DaemonProcess.DUMP_USER,
                        DaemonProcess.DUMP_PASSWORD);
                c.setServerId(70_000 + i);
                c.setKeepAlive(false);
                c.registerEventListener(e -> {
                    events.incrementAndGet();
                    received.addAndGet(((EventHeaderV4) e.getHeader()).getEventLength());
                });
                c.connect(20_000);
                subscribers.add(c);
            }
            LoadCounters c = new LoadCounters();
            Clients clients = load.start(o.fanoutClients(), c);
            long r0 = received.get();
            long e0 = events.get();
            long t0 = System.nanoTime();
            BenchRow r = window("fanout", label, n, d, c, clients, "");
            double secs = (System.nanoTime() - t0) / 1e9;
            return r.withNote(String.format(Locale.ROOT, "subscribers received %.1f MB/s, %,.0f events/s in total"
                    + " (BinaryLogClient)", (received.get() - r0) / 1e6 / secs, (events.get() - e0) / secs));
        } finally {
            for (BinaryLogClient c : subscribers) {
                try {
                    c.disconnect();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }

    private void pipelineScenario() throws Exception {
        long shardBytes = (long) o.pipelineShardMb() << 20;
        // the cached real shard binlog: its first ~30 MB are the bulk load, the OLTP transactions follow
        long skip = o.quick() ? 32L << 20 : 128L << 20;
        long fileBytes = o.quick() ? 48L << 20 : 1L << 30;
        for (int shards : o.pipelineShards()) {
            begin("pipeline only, " + shards + " shards x " + o.pipelineShardMb() + " MB (in this JVM, no shards)");
            MergeBenchmark.Result r = MergeBenchmark.measure(shards, fileBytes, skip, shardBytes, 50, out);
            double cpu = r.cpuNanos() / 1e9; // merge + append threads', in the measured pass (after the warm-up passes)
            double secs = r.nanos() / 1e9;
            double n = Double.NaN;
            add(new BenchRow("pipeline", shards + " shards", shards, "", secs, r.events() / secs, n, r.bytes() / secs,
                    r.written() / secs, n, n, n, n, cpu / (r.bytes() / 1e9), r.heapAfter(), n, n, n, r.bytes(), n,
                    "recorded MariaDB OLTP binlog replayed; readers-free merge + write (binlog.sync=none), merge and"
                            + " append threads as in the pipeline, in the runner's JVM, after " + MergeBenchmark.WARM_UP_PASSES
                            + " discarded passes; CPU is both threads'"));
        }
    }

    private void catchupScenario() throws Exception {
        CatchUpScenario scenario = new CatchUpScenario(o, cluster.infos(), out, s -> current = s);
        List<String> summaries = new ArrayList<>();
        for (String kind : o.catchupKinds()) {
            for (int shards : o.catchupShards()) {
                String label = shards + (shards == 1 ? " shard" : " shards");
                begin("catchup, " + kind + ", " + label);
                List<BenchRow> more = new ArrayList<>();
                BenchRow r = point("catchup", label, shards, kind, () -> {
                    List<CatchUpScenario.Result> results = kind.equals("outage") ? List.of(scenario.outage(shards))
                            : scenario.history(shards);
                    for (CatchUpScenario.Result result : results) {
                        traces.add(result.trace());
                        summaries.add(result.summary());
                        more.add(result.row());
                    }
                    return more.remove(0); // a run's further rounds and its peer's runs follow it
                });
                add(r);
                more.forEach(this::add);
                findings.put("catchup", String.join(". ", summaries) + (summaries.isEmpty() ? "" : "."));
            }
        }
    }

    // ---------------------------------------------------------------- files

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
