package io.tributary.test.bench;

import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.order.ShardCheckpoint;
import io.tributary.core.reader.ShardPosition;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.ByteSize;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.merge.GlobalBinlogPipeline;
import io.tributary.storage.merge.MergeStage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;

/**
 * Large-transaction throughput through the merge stage, in memory (persisting off) against spilled to RocksDB
 * (AUTO: memory until {@code storage.txnPersistThreshold}, 100 MB, then disk; FORCE: disk from the first event),
 * in one JVM with the same budget ({@code storage.memoryLimit}, default 3 GB, large enough for the in-memory
 * case), the modes alternating in an order that turns each round, so that each sees the same machine.
 *
 * <p>A transaction is {@code --mb} MB of a real 512 KB MariaDB 10.11 WRITE_ROWS event ({@link SyntheticShardEvents}):
 * "single" on one shard (GTID, TABLE_MAP, rows events, XID), or "XA" with a branch on each of 4 shards (prepared,
 * then committed). Measured from its first event offered to the stage until the global binlog holds it (the
 * pipeline's layout: appends on their own thread), so the rate is that of the whole path:
 * assembling, buffering (and spilling, and reading back from RocksDB), merging and writing; the time is given in two
 * parts, until the last event is buffered and from there until the global binlog holds the transaction durably
 * (nothing of it can be written before its commit is read). {@code --sync} is the global binlog's
 * {@code binlog.sync}: {@code commit} (the daemon's default: durable once fsynced) or {@code none} (durable once
 * written to the file), which leaves the disk out and shows the CPU path alone. Sampled every 10 ms
 * during the pass: heap used, the buffer's own memory count and RocksDB's bytes; after it, the spill store must be
 * empty again.
 *
 * <p>Run: {@code ./mvnw -q -Pbench -pl cdc-test -am process-test-classes
 * -Dbench.main=io.tributary.test.bench.LargeTransactionBenchmark -Dbench.args="--mb=1024 --rounds=3"}; options
 * {@code --kinds=single,XA --modes=off,AUTO,FORCE --budget-mb=3072 --out=FILE.png}.
 */
public final class LargeTransactionBenchmark {

    private static final int SHARDS = 4;

    /** One pass. */
    record Result(String kind, String mode, long bytesIn, long nanos, long bufferedNanos, long peakHeap,
            long peakBufferMemory, long peakRocksDb, long spilledTotal) {
        double megabytesPerSecond() {
            return bytesIn / 1e6 / (nanos / 1e9);
        }
    }

    private LargeTransactionBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long mb = 1024;
        int rounds = 3;
        long budgetMb = 3072;
        String sync = "commit";
        List<String> kinds = List.of("single", "XA");
        List<String> modes = List.of("off", "AUTO", "FORCE");
        Path plot = null;
        for (String arg : args) {
            if (arg.startsWith("--mb=")) {
                mb = Long.parseLong(arg.substring(5));
            } else if (arg.startsWith("--rounds=")) {
                rounds = Integer.parseInt(arg.substring(9));
            } else if (arg.startsWith("--budget-mb=")) {
                budgetMb = Long.parseLong(arg.substring(12));
            } else if (arg.startsWith("--kinds=")) {
                kinds = List.of(arg.substring(8).split(","));
            } else if (arg.startsWith("--modes=")) {
                modes = List.of(arg.substring(8).split(","));
            } else if (arg.startsWith("--sync=")) {
                sync = arg.substring(7);
                if (!sync.equals("commit") && !sync.equals("none")) {
                    throw new IllegalArgumentException("Invalid value " + sync + " for --sync: allowed are commit, none");
                }
            } else if (arg.startsWith("--out=")) {
                plot = Path.of(arg.substring(6));
            } else if (!arg.isBlank()) {
                throw new IllegalArgumentException("Unknown option " + arg + ": allowed are --mb=N --rounds=N --budget-mb=N"
                        + " --kinds=single,XA --modes=off,AUTO,FORCE --sync=commit|none --out=FILE.png");
            }
        }
        for (String k : kinds) {
            if (!k.equals("single") && !k.equals("XA")) {
                throw new IllegalArgumentException("Invalid kind " + k + " in --kinds: allowed are single, XA");
            }
        }
        for (String m : modes) {
            if (!m.equals("off") && !m.equals("AUTO") && !m.equals("FORCE")) {
                throw new IllegalArgumentException("Invalid mode " + m + " in --modes: allowed are off, AUTO, FORCE");
            }
        }
        long heap = Runtime.getRuntime().maxMemory();
        if (modes.contains("off") && (mb + 256) << 20 > Math.min(budgetMb << 20, heap - (512L << 20))) {
            throw new IllegalArgumentException("A " + mb + " MB transaction in memory needs a budget (--budget-mb=" + budgetMb
                    + ") and a heap (" + (heap >> 20) + " MB, -Dbench.heap) of at least " + (mb + 256) + " MB, the heap 512 MB"
                    + " more; leave out 'off' or raise them");
        }
        run(mb << 20, budgetMb << 20, sync, rounds, kinds, modes, plot, System.out);
    }

    static void run(long bytes, long budget, String sync, int rounds, List<String> kinds, List<String> modes, Path plot,
            PrintStream out) throws Exception {
        SyntheticShardEvents.Sample sample = SyntheticShardEvents.sample(out);
        out.printf(Locale.ROOT, "Transaction: %d MB of %d KB WRITE_ROWS events; budget %d MB, heap %d MB, %d cores,"
                + " binlog.sync=%s%n", bytes >> 20, sample.rows().length >> 10, budget >> 20,
                Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors(), sync);
        for (String kind : kinds) {
            for (String mode : modes) {
                once(kind, mode, Math.min(bytes, 128L << 20), budget, sync, sample); // warm-up: JIT, RocksDB's first files
            }
        }
        out.println("Warm-up: one discarded 128 MB pass per kind and mode");
        out.println();
        out.println("| round | kind | persist | MB in | seconds: buffered + read back and written | MB/s | heap used, peak"
                + " | buffer memory, peak | RocksDB, peak | spilled |");
        out.println("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|");
        List<Result> results = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String kind : kinds) {
                for (int m = 0; m < modes.size(); m++) {
                    // the order turns each round: no mode always runs right after the same other one (the page cache
                    // and the heap a pass leaves behind weigh on the next)
                    String mode = modes.get((m + round - 1) % modes.size());
                    Result r = once(kind, mode, bytes, budget, sync, sample);
                    results.add(r);
                    out.printf(Locale.ROOT, "| %d | %s | %s | %.0f | %.2f + %.2f = %.2f | %.0f | %d MB | %d MB | %d MB | %d MB |%n",
                            round, kind, mode, r.bytesIn() / 1e6, r.bufferedNanos() / 1e9, (r.nanos() - r.bufferedNanos()) / 1e9,
                            r.nanos() / 1e9, r.megabytesPerSecond(), r.peakHeap() >> 20,
                            r.peakBufferMemory() >> 20, r.peakRocksDb() >> 20, r.spilledTotal() >> 20);
                }
            }
        }
        out.println();
        out.println("| kind | persist | MB/s, every round (sorted) | median | median vs in memory |");
        out.println("|---|---|---|---:|---:|");
        Map<String, Map<String, Double>> medians = new LinkedHashMap<>();
        for (String kind : kinds) {
            Map<String, List<Double>> rates = new LinkedHashMap<>();
            for (String mode : modes) {
                rates.put(mode, results.stream().filter(r -> r.kind().equals(kind) && r.mode().equals(mode))
                        .map(Result::megabytesPerSecond).sorted().toList());
            }
            Map<String, Double> byMode = new LinkedHashMap<>();
            rates.forEach((mode, r) -> byMode.put(mode, MergeComparison.median(r)));
            medians.put(kind, byMode);
            Double inMemory = byMode.get("off");
            for (String mode : modes) {
                out.printf(Locale.ROOT, "| %s | %s | %s | %.0f | %s |%n", kind, mode,
                        String.join(", ", rates.get(mode).stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList()),
                        byMode.get(mode), inMemory == null ? "-" : String.format(Locale.ROOT, "%.2f", byMode.get(mode) / inMemory));
            }
        }
        if (modes.contains("off")) {
            out.println();
            out.println("Goal: a spilled transaction at no less than half the in-memory rate (AUTO and FORCE medians /"
                    + " in-memory median >= 0.50).");
        }
        if (plot != null) {
            plot(medians, bytes, sync, plot);
            out.println("Plot: " + plot);
        }
    }

    private static Result once(String kind, String mode, long bytes, long budget, String sync,
            SyntheticShardEvents.Sample sample) throws IOException {
        Path dir = Files.createTempDirectory("tributary-large-bench");
        try {
            return pass(dir, kind, mode, bytes, budget, sync, sample);
        } finally {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static Result pass(Path dir, String kind, String mode, long bytes, long budget, String sync,
            SyntheticShardEvents.Sample sample) throws IOException {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.sync", sync, "binlog.flavor", "mariadb"));
        Map<String, String> persist = new HashMap<>(Map.of(PersistConfig.PATH, dir.resolve("spill").toString(),
                PersistConfig.MEMORY_LIMIT, ByteSize.format(budget)));
        if (mode.equals("off")) {
            persist.put(PersistConfig.IS_PERSIST_ON, "false");
        } else {
            persist.put(PersistConfig.MODE, mode);
        }
        LivePersistSettings settings = new LivePersistSettings(PersistConfig.forThisJvm(), persist);
        List<ShardCheckpoint> start = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            start.add(ShardCheckpoint.at("shard-" + s, ShardPosition.at(SyntheticShardEvents.FILE, 4)));
        }
        byte[] rows = sample.rows();
        int branches = kind.equals("XA") ? SHARDS : 1;
        int rowsPerBranch = (int) Math.max(1, bytes / branches / rows.length);
        System.gc(); // the previous pass's garbage is not this one's heap peak
        Runtime rt = Runtime.getRuntime();
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(settings, store);
                GlobalBinlogWriter writer = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC())) {
            long[] peaks = new long[3];
            AtomicBoolean done = new AtomicBoolean();
            Thread sampler = new Thread(() -> {
                while (!done.get()) {
                    peaks[0] = Math.max(peaks[0], rt.totalMemory() - rt.freeMemory());
                    peaks[1] = Math.max(peaks[1], buffer.memoryUsed());
                    peaks[2] = Math.max(peaks[2], buffer.spillStoreBytes());
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "large-bench-sampler");
            sampler.setDaemon(true);
            MergeStage stage = new MergeStage(start, writer, buffer, LogicalNames.defaults(), Duration.ofSeconds(60),
                    GlobalBinlogPipeline.APPEND_RING);
            SyntheticShardEvents.Feed[] feeds = new SyntheticShardEvents.Feed[SHARDS];
            for (int s = 0; s < SHARDS; s++) {
                feeds[s] = new SyntheticShardEvents.Feed(stage, s);
                feeds[s].send(sample.fde());
            }
            SyntheticShardEvents.beat(feeds, 1);
            stage.drain();
            sampler.start();
            long t0 = System.nanoTime();
            for (int s = 0; s < branches; s++) {
                SyntheticShardEvents.Feed f = feeds[s];
                f.send(kind.equals("XA")
                        ? SyntheticShardEvents.xaGtid(s, 10, MariaGtidEvent.FL_PREPARED_XA | MariaGtidEvent.FL_TRANSACTIONAL)
                        : SyntheticShardEvents.gtid(s, 10, MariaGtidEvent.FL_STANDALONE | MariaGtidEvent.FL_TRANSACTIONAL));
                f.send(sample.tableMap());
                for (int r = 0; r < rowsPerBranch; r++) {
                    f.send(rows);
                }
                f.send(kind.equals("XA") ? SyntheticShardEvents.xaPrepare(s) : SyntheticShardEvents.xid(s, 10));
            }
            long buffered = System.nanoTime() - t0; // every event in the buffer (in memory or spilled)
            if (kind.equals("XA")) {
                SyntheticShardEvents.commitXa(feeds);
            }
            for (long b = 3; b <= 4; b++) {
                SyntheticShardEvents.beat(feeds, b);
                stage.drain();
            }
            stage.awaitAppended();
            // durable: written and, with binlog.sync=commit, fsynced (a fresh global binlog: its sequence is 1)
            while (writer.durability().current().lastSequence() < stage.transactionsWritten()) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
            long nanos = System.nanoTime() - t0;
            done.set(true);
            long written = stage.transactionsWritten();
            long spilledTotal = buffer.spilledBytesTotal();
            stage.close();
            if (written != 1) {
                throw new IllegalStateException(kind + " " + mode + ": expected ONE global transaction, found " + written);
            }
            store.compact();
            if (!store.isEmpty()) {
                throw new IllegalStateException(kind + " " + mode + ": RocksDB spill store not empty after the transaction");
            }
            // AUTO spills a branch once it passes storage.txnPersistThreshold (100 MB), all of it; FORCE everything
            long rowsBytes = (long) rowsPerBranch * branches * rows.length;
            boolean explained = switch (mode) {
                case "off" -> spilledTotal == 0;
                case "FORCE" -> spilledTotal >= rowsBytes;
                default -> (long) rowsPerBranch * rows.length <= (100L << 20) || spilledTotal >= rowsBytes;
            };
            if (!explained) {
                throw new IllegalStateException(kind + " " + mode + ": " + spilledTotal + " bytes spilled of " + rowsBytes
                        + ", which the mode does not explain");
            }
            return new Result(kind, mode, (long) rowsPerBranch * branches * rows.length, nanos, buffered, peaks[0], peaks[1],
                    peaks[2], spilledTotal);
        }
    }

    private static void plot(Map<String, Map<String, Double>> medians, long bytes, String sync, Path file)
            throws IOException {
        CategoryChart chart = BenchCharts.bars("A " + (bytes >> 20) + " MB transaction through the merge stage, binlog.sync="
                + sync + ": in memory vs spilled (medians)", "transaction", "MB/s (first event to durable)", 900, "#,##0");
        List<String> kinds = new ArrayList<>(medians.keySet());
        List<String> modes = new ArrayList<>(medians.values().iterator().next().keySet());
        for (String mode : modes) {
            List<String> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (String kind : kinds) {
                x.add(kind.equals("XA") ? "XA over 4 shards" : "single (one shard)");
                y.add(medians.get(kind).get(mode));
            }
            chart.addSeries(mode.equals("off") ? "in memory (persist off)" : mode, x, y);
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
