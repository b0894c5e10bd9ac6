package io.tributary.test.bench;

import io.tributary.core.config.ByteSize;
import io.tributary.core.event.BinlogEventRecord;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.merge.MergeStage;
import io.tributary.storage.pipeline.GlobalBinlogPipeline;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * empty again. Each pass also gives the bytes the machine's disks wrote during it ({@link DiskWrites}): spilled, the
 * transaction goes to disk twice, as RocksDB syncs every table file it flushes, and then as the global binlog.
 *
 * <p>The peer of the spilled modes, {@value #FLOOR}, runs in the same alternation: the same bytes put into a
 * {@link SpillStore}, read back and written out durably, with no merge stage; the spilled modes are given against it
 * too, so that what the merge path adds to RocksDB's own cost shows apart from what RocksDB costs on this machine.
 *
 * <p>Run: {@code ./mvnw -q -Pbench -pl cdc-test -am process-test-classes
 * -Dbench.main=io.tributary.test.bench.LargeTransactionBenchmark -Dbench.args="--mb=1024 --rounds=3"}; options
 * {@code --kinds=single,XA --modes=off,AUTO,FORCE,rocksdb-floor --budget-mb=3072 --sync=commit|none --out=FILE.png}.
 * The in-memory pass fills a gigabyte of heap: give the JVM a fixed, pre-touched heap
 * ({@code -Dbench.jvm="-Xms4g -XX:+AlwaysPreTouch"}), as a daemon would run, or the in-memory figure depends on
 * whether the pass before it left the heap's pages mapped.
 */
public final class LargeTransactionBenchmark {

    private static final int SHARDS = 4;
    /**
     * The peer of the spilled modes: the same bytes, in the buffer's chunks, put into a fresh {@link SpillStore}, read
     * back with its iterator and written to a file made durable as the global binlog is: the least that spilling
     * these bytes to RocksDB and writing them out costs on this machine, with no merge stage at all.
     */
    static final String FLOOR = "rocksdb-floor";

    /** One pass. */
    record Result(String kind, String mode, long bytesIn, long nanos, long bufferedNanos, long peakHeap,
            long peakBufferMemory, long peakRocksDb, long spilledTotal, long diskWritten) {
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
        List<String> modes = List.of("off", "AUTO", "FORCE", FLOOR);
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
                        + " --kinds=single,XA --modes=off,AUTO,FORCE," + FLOOR + " --sync=commit|none --out=FILE.png");
            }
        }
        for (String k : kinds) {
            if (!k.equals("single") && !k.equals("XA")) {
                throw new IllegalArgumentException("Invalid kind " + k + " in --kinds: allowed are single, XA");
            }
        }
        for (String m : modes) {
            if (!m.equals("off") && !m.equals("AUTO") && !m.equals("FORCE") && !m.equals(FLOOR)) {
                throw new IllegalArgumentException("Invalid mode " + m + " in --modes: allowed are off, AUTO, FORCE, " + FLOOR);
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
                + " | buffer memory, peak | RocksDB, peak | spilled | disk written |");
        out.println("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        List<Result> results = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (String kind : kinds) {
                for (int m = 0; m < modes.size(); m++) {
                    // the order turns each round: no mode always runs right after the same other one (the page cache
                    // and the heap a pass leaves behind weigh on the next)
                    String mode = modes.get((m + round - 1) % modes.size());
                    Result r = once(kind, mode, bytes, budget, sync, sample);
                    results.add(r);
                    out.printf(Locale.ROOT, "| %d | %s | %s | %.0f | %.2f + %.2f = %.2f | %.0f | %d MB | %d MB | %d MB | %d MB | %s |%n",
                            round, kind, mode, r.bytesIn() / 1e6, r.bufferedNanos() / 1e9, (r.nanos() - r.bufferedNanos()) / 1e9,
                            r.nanos() / 1e9, r.megabytesPerSecond(), r.peakHeap() >> 20,
                            r.peakBufferMemory() >> 20, r.peakRocksDb() >> 20, r.spilledTotal() >> 20,
                            r.diskWritten() < 0 ? "-" : (r.diskWritten() >> 20) + " MB");
                }
            }
        }
        out.println();
        out.println("| kind | persist | MB/s, every round (sorted) | median | median vs in memory | median vs " + FLOOR + " |");
        out.println("|---|---|---|---:|---:|---:|");
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
            for (String mode : modes) {
                out.printf(Locale.ROOT, "| %s | %s | %s | %.0f | %s | %s |%n", kind, mode,
                        String.join(", ", rates.get(mode).stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList()),
                        byMode.get(mode), ratio(byMode, mode, "off"), ratio(byMode, mode, FLOOR));
            }
        }
        if (modes.contains("off")) {
            out.println();
            out.println("Goal: a spilled transaction at no less than half the in-memory rate (AUTO and FORCE medians /"
                    + " in-memory median >= 0.50). " + FLOOR + ": RocksDB alone, put + read back + written durably, the"
                    + " same bytes, no merge stage.");
        }
        if (plot != null) {
            plot(medians, bytes, sync, plot);
            out.println("Plot: " + plot);
        }
    }

    /** {@code mode}'s median over {@code peer}'s, or "-" when the peer did not run. */
    private static String ratio(Map<String, Double> byMode, String mode, String peer) {
        Double of = byMode.get(peer);
        return of == null ? "-" : String.format(Locale.ROOT, "%.2f", byMode.get(mode) / of);
    }

    private static Result once(String kind, String mode, long bytes, long budget, String sync,
            SyntheticShardEvents.Sample sample) throws IOException {
        Path dir = Files.createTempDirectory("tributary-large-bench");
        try {
            return mode.equals(FLOOR) ? floor(dir, kind, bytes, budget, sync, sample)
                    : pass(dir, kind, mode, bytes, budget, sync, sample);
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
            long disk0 = DiskWrites.sectorsWritten();
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
            long disk = DiskWrites.bytesSince(disk0);
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
                    peaks[2], spilledTotal, disk);
        }
    }

    /**
     * The {@link #FLOOR} pass: the transaction's rows events as the buffer spills them in FORCE (one record per chunk:
     * a 512 KB event is larger than a chunk), put into a fresh spill store under the branch's transaction id, then per
     * branch read back in order and written to a file, made durable as {@code binlog.sync} says. Timed like a pass:
     * from the first put until the file is durable, "buffered" when the last put returned.
     */
    private static Result floor(Path dir, String kind, long bytes, long budget, String sync,
            SyntheticShardEvents.Sample sample) throws IOException {
        byte[] rows = sample.rows();
        int branches = kind.equals("XA") ? SHARDS : 1;
        int rowsPerBranch = (int) Math.max(1, bytes / branches / rows.length);
        byte[] record = new byte[BinlogEventRecord.OVERHEAD + rows.length];
        System.arraycopy(rows, 0, record, BinlogEventRecord.OVERHEAD, rows.length);
        byte[] into = new byte[record.length + 1024];
        System.gc();
        Runtime rt = Runtime.getRuntime();
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                FileChannel out = FileChannel.open(dir.resolve("floor.bin"), StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
            long disk0 = DiskWrites.sectorsWritten();
            long t0 = System.nanoTime();
            for (int b = 0; b < branches; b++) {
                for (int r = 0; r < rowsPerBranch; r++) {
                    store.put(b, r, record, record.length);
                }
            }
            long buffered = System.nanoTime() - t0;
            long peakHeap = rt.totalMemory() - rt.freeMemory();
            long peakRocksDb = store.sizeBytes();
            long read = 0;
            for (int b = 0; b < branches; b++) {
                try (SpillStore.ChunkIterator chunks = store.chunks(b)) {
                    while (chunks.hasNext()) {
                        int length = chunks.next(into);
                        ByteBuffer src = ByteBuffer.wrap(into, 0, length);
                        while (src.hasRemaining()) {
                            out.write(src);
                        }
                        read += length;
                    }
                }
            }
            if (sync.equals("commit")) {
                out.force(false);
            }
            long nanos = System.nanoTime() - t0;
            long disk = DiskWrites.bytesSince(disk0);
            long expected = (long) branches * rowsPerBranch * record.length;
            if (read != expected) {
                throw new IllegalStateException(kind + " " + FLOOR + ": read back " + read + " bytes of " + expected);
            }
            for (int b = 0; b < branches; b++) {
                store.delete(b);
            }
            store.compact();
            if (!store.isEmpty()) {
                throw new IllegalStateException(kind + " " + FLOOR + ": RocksDB spill store not empty afterwards");
            }
            return new Result(kind, FLOOR, (long) rowsPerBranch * branches * rows.length, nanos, buffered, peakHeap, 0,
                    peakRocksDb, expected, disk);
        }
    }

    /**
     * Bytes the machine's disks wrote, from {@code /proc/diskstats} (whole disks, those under {@code /sys/block}): the
     * whole machine's, so a quiet machine is assumed. What a pass made durable is on disk when it ends; what it only
     * wrote to the page cache may be written later, or never when its file is deleted first. -1 where not Linux.
     */
    static final class DiskWrites {
        private DiskWrites() {
        }

        static long sectorsWritten() {
            Path stats = Path.of("/proc/diskstats");
            if (!Files.isReadable(stats)) {
                return -1;
            }
            try {
                long sectors = 0;
                for (String line : Files.readAllLines(stats)) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && Files.isDirectory(Path.of("/sys/block", f[2]))) {
                        sectors += Long.parseLong(f[9]);
                    }
                }
                return sectors;
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        /** Bytes written since {@code sectorsBefore} (512-byte sectors, as the kernel counts them), or -1. */
        static long bytesSince(long sectorsBefore) {
            long now = sectorsWritten();
            return sectorsBefore < 0 || now < 0 ? -1 : (now - sectorsBefore) * 512;
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
            chart.addSeries(mode.equals("off") ? "in memory (persist off)"
                    : mode.equals(FLOOR) ? "RocksDB alone (put, read, write out)" : mode, x, y);
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
