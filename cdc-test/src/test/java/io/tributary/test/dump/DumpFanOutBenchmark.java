package io.tributary.test.dump;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import io.tributary.storage.binlog.GlobalBinlogWriter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fan-out benchmark (run by hand, not by CI) with 1, 8, 64 and 256 {@code BinaryLogClient}s, over real corpus
 * transactions ({@code binlog.sync=none}, so the figures are the dump path's, not the disk's). Phase 1: the
 * binlog's tail is in the shared cache and every subscriber reads it from the start: bytes/s delivered to all
 * subscribers together. Phase 2: 1000 transactions appended one per millisecond while all tail: delay from
 * durable to received (p50/p99 over every transaction and subscriber). Phase 3: the writer appends as fast as it can
 * while all tail: its transactions per second. Also: events subscribers read from files (expected: the file header
 * they start with, then none). With {@code --stalled}, every run has one more subscriber that stops reading after its
 * first event (its socket fills and it falls out of the cache): the figures of the others must not change. Writes
 * a CSV and a PNG plot to {@code --out} when given.
 *
 * <pre>
 * ./mvnw -q -Pbench -pl cdc-test -am process-test-classes \
 *     -Dbench.main=io.tributary.test.dump.DumpFanOutBenchmark \
 *     -Dbench.args="--transactions=20000 --subscribers=1,8,64,256 --stalled --out=docs/benchmarks/dump-tail"
 * </pre>
 */
public final class DumpFanOutBenchmark {

    private DumpFanOutBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int transactions = 20_000;
        int[] counts = {1, 8, 64, 256};
        boolean stalled = false;
        Path out = null;
        for (String a : args) {
            if (a.startsWith("--transactions=")) {
                transactions = Integer.parseInt(a.substring("--transactions=".length()));
            } else if (a.startsWith("--subscribers=")) {
                counts = Arrays.stream(a.substring("--subscribers=".length()).split(",")).mapToInt(Integer::parseInt)
                        .toArray();
            } else if (a.equals("--stalled")) {
                stalled = true;
            } else if (a.startsWith("--out=")) {
                out = Path.of(a.substring("--out=".length()));
            } else {
                throw new IllegalArgumentException("Unknown argument " + a
                        + ": expected --transactions=N, --subscribers=1,8,64,256, --stalled, --out=DIR");
            }
        }
        if (System.getProperty("tributary.shared.dir") == null) {
            for (String candidate : List.of("../shared", "../../shared")) { // run from the repository or from cdc-test
                if (Files.isDirectory(Path.of(candidate, "testdata", "binlog"))) {
                    System.setProperty("tributary.shared.dir", Path.of(candidate).toAbsolutePath().normalize().toString());
                    break;
                }
            }
        }
        System.out.println("subscribers | stalled | delivered MB/s (all) | per subscriber MB/s | delay p50 / p99 (ms)"
                + " | writer txn/s while all tail | events read from files");
        List<Result> results = new ArrayList<>();
        for (int n : counts) {
            results.add(run(n, transactions, false));
            if (stalled) {
                results.add(run(n, transactions, true));
            }
        }
        Result base = results.get(0);
        System.out.println();
        System.out.println("| subscribers | stalled one | delay p50 / p99 (ms) | writer txn/s | p99 / 1-subscriber p99"
                + " | writer / 1-subscriber writer |");
        System.out.println("|---:|:---:|---:|---:|---:|---:|");
        List<String> csv = new ArrayList<>(List.of("subscribers,stalled,mb_per_s,p50_ms,p99_ms,writer_txn_per_s"));
        for (Result r : results) {
            System.out.printf("| %d | %s | %.2f / %.2f | %.0f | %.2f | %.2f |%n", r.subscribers, r.stalled ? "yes" : "no",
                    r.p50Ms, r.p99Ms, r.writerTps, r.p99Ms / base.p99Ms, r.writerTps / base.writerTps);
            csv.add(r.subscribers + "," + r.stalled + "," + String.format("%.1f,%.3f,%.3f,%.0f", r.mbs, r.p50Ms, r.p99Ms,
                    r.writerTps));
        }
        if (out != null) {
            Files.createDirectories(out);
            Files.write(out.resolve("results.csv"), csv);
            org.knowm.xchart.CategoryChart chart = io.tributary.test.bench.BenchCharts.bars(
                    "Tailing subscribers: delay from durable to received", "subscribers (+1 stalled where marked)",
                    "milliseconds", 900, "#,##0.00");
            for (boolean st : stalled ? new boolean[] {false, true} : new boolean[] {false}) {
                List<String> xs = new ArrayList<>();
                List<Double> p50 = new ArrayList<>();
                List<Double> p99 = new ArrayList<>();
                for (Result r : results) {
                    if (r.stalled == st) {
                        xs.add(Integer.toString(r.subscribers));
                        p50.add(r.p50Ms);
                        p99.add(r.p99Ms);
                    }
                }
                String suffix = st ? " (+1 stalled)" : "";
                chart.addSeries("p50" + suffix, xs, p50);
                chart.addSeries("p99" + suffix, xs, p99);
            }
            org.knowm.xchart.BitmapEncoder.saveBitmap(chart, out.resolve("tail-delay").toString(),
                    org.knowm.xchart.BitmapEncoder.BitmapFormat.PNG);
            System.out.println("wrote " + out.resolve("results.csv") + " and " + out.resolve("tail-delay.png"));
        }
    }

    private record Result(int subscribers, boolean stalled, double mbs, double p50Ms, double p99Ms, double writerTps) {
    }

    private static Result run(int subscribers, int transactions, boolean stalled) throws Exception {
        Path dir = Files.createTempDirectory("tributary-fanout");
        CorpusBinlog corpus = CorpusBinlog.forFlavor(BinlogFlavor.MYSQL);
        java.util.concurrent.ConcurrentSkipListMap<Long, Long> durableAt = new java.util.concurrent.ConcurrentSkipListMap<>();
        try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MYSQL, 256L << 20, "0", "none");
             DumpServer server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MYSQL, 7,
                     List.of(DumpUser.withPassword("repl", "repl-pass"))).withPort(0), () -> writer).start()) {
            writer.durability().addListener(m -> durableAt.putIfAbsent(m.lastSequence(), System.nanoTime()));
            // phase 1 (throughput): the tail is in the cache; every subscriber reads it all from the start
            corpus.append(writer, transactions);
            Thread.sleep(200);
            List<BinaryLogClient> clients = new ArrayList<>();
            AtomicLong bytes = new AtomicLong();
            AtomicLong xids = new AtomicLong();
            int paced = 1000;
            long[][] delays = new long[subscribers][paced];
            long filesBefore = server.eventsReadFromFiles();
            long t0 = System.nanoTime();
            for (int i = 0; i < subscribers; i++) {
                int me = i;
                long[] gno = {0};
                int[] k = {0};
                BinaryLogClient c = new BinaryLogClient("127.0.0.1", server.port(), "repl", "repl-pass");
                c.setServerId(2000 + i);
                c.setKeepAlive(false);
                c.setBinlogFilename("binlog.000001");
                c.setBinlogPosition(4);
                c.registerEventListener(e -> {
                    bytes.addAndGet(((com.github.shyiko.mysql.binlog.event.EventHeaderV4) e.getHeader()).getEventLength());
                    if (e.getHeader().getEventType() == EventType.GTID) {
                        gno[0] = ((GtidEventData) e.getData()).getMySqlGtid().getTransactionId();
                    } else if (e.getHeader().getEventType() == EventType.XID) {
                        if (gno[0] > transactions && k[0] < paced) {
                            var at = durableAt.ceilingEntry(gno[0]); // the publish that made it durable
                            delays[me][k[0]++] = at == null ? 0 : System.nanoTime() - at.getValue();
                        }
                        xids.incrementAndGet();
                    }
                });
                c.connect(10_000);
                clients.add(c);
            }
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            BinaryLogClient staller = null;
            if (stalled) { // reads its first event, then stops reading until the run is over
                staller = new BinaryLogClient("127.0.0.1", server.port(), "repl", "repl-pass");
                staller.setServerId(1999);
                staller.setKeepAlive(false);
                staller.setBinlogFilename("binlog.000001");
                staller.setBinlogPosition(4);
                staller.registerEventListener(e -> {
                    try {
                        release.await();
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                    }
                });
                staller.connect(10_000);
            }
            long target = (long) transactions * subscribers;
            while (xids.get() < target) {
                Thread.sleep(1);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long phase1Bytes = bytes.get();
            // phase 2 (delay): transactions one per millisecond while everyone tails
            for (int i = 0; i < paced; i++) {
                corpus.append(writer, 1);
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            while (xids.get() < (long) (transactions + paced) * subscribers) {
                Thread.sleep(1);
            }
            // phase 3 (writer): as fast as it can while everyone tails
            int burst = transactions / 2;
            long w0 = System.nanoTime();
            corpus.append(writer, burst);
            double writerTps = burst / ((System.nanoTime() - w0) / 1e9);
            while (xids.get() < (long) (transactions + paced + burst) * subscribers) {
                Thread.sleep(1);
            }
            long files = server.eventsReadFromFiles() - filesBefore;
            for (BinaryLogClient c : clients) {
                c.disconnect();
            }
            long[] all = Arrays.stream(delays).flatMapToLong(Arrays::stream).sorted().toArray();
            double mbs = phase1Bytes / seconds / 1e6;
            System.out.printf("%d | %s | %.0f | %.1f | %.2f / %.2f | %.0f | %d (served from the cache: %d)%n", subscribers,
                    stalled ? "yes" : "no", mbs, mbs / subscribers, all[all.length / 2] / 1e6,
                    all[(int) (all.length * 0.99)] / 1e6, writerTps, files, server.eventsServedFromCache());
            if (staller != null) {
                release.countDown();
                staller.disconnect();
            }
            return new Result(subscribers, stalled, mbs, all[all.length / 2] / 1e6, all[(int) (all.length * 0.99)] / 1e6,
                    writerTps);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
