package io.tributary.test.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.framing.Boundary;
import io.tributary.core.framing.TransactionFramer;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.sorter.ShardUnit;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.merge.MergeStage;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Merge throughput: N recorded shard streams through the merge stage (assembler per shard, transaction
 * buffer in memory, global sorter, merger with logical names and global table ids, global binlog writer with
 * {@code binlog.sync=none}), fed on the calling thread as the pipeline's readers feed its merge thread.
 *
 * <p>Input: {@code --shard-mb} MB of OLTP transactions (past the first 128 MB, the bulk load) of the real
 * MariaDB 10.11 binlog of
 * {@link ShardBinlogGenerator}, replayed as every shard's stream (event bytes in memory, no network). Every
 * shard gets a heartbeat unit after every {@code --txns-per-beat} of its transactions, the same value on all
 * shards (as {@code HeartbeatWriter} does), so the sorter interleaves the shards window by window.
 * Measured: shard events in (events/s) and shard bytes in (MB/s) from the first event to the last global
 * transaction written; and events per second of CPU time of the stage's own threads ("events/CPU-s": the
 * merge thread, plus the append thread where there is one), which stays comparable when other processes share
 * the machine's cores (wall-clock rates then drop with the load).
 *
 * <p>Two layouts, measured back to back in one JVM: {@code append thread: on} is the pipeline's (the merge
 * thread assembles, sorts and merges, the append thread reads the events back, renames them and writes, over
 * the pipeline's ring), {@code off} does everything on the merge thread. Their ratio is what the second core gives.
 *
 * <p>Run: {@code ./mvnw -q -Pbench -pl cdc-test -am process-test-classes
 * -Dbench.main=io.tributary.test.bench.MergeBenchmark -Dbench.args="--shards=4 --shard-mb=64"}.
 */
public final class MergeBenchmark {

    /** The CRC32 trailer of every recorded event (the recordings are written with binlog_checksum=CRC32). */
    private static final int CHECKSUM = 4;

    /** One recorded event: where it is, its header facts, and its boundary as a shard reader's framer gives it. */
    record Slice(int offset, int length, int type, long logPos, boolean transactionStart, boolean transactionEnd,
            Boundary boundary) {
    }

    /** The generator's bulk load (sysbench prepare) comes first; the OLTP transactions after it are the input. */
    private static final long SKIP_BYTES = 128L << 20;

    /**
     * Discarded passes at the largest shard count before any measured one. One short pass per shard count was
     * not enough: the JIT was still compiling the merge path, so the first count measured (4 shards) ran at
     * half the events/CPU-s it reaches once warm, whichever count it is.
     */
    static final int WARM_UP_PASSES = 2;

    private MergeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> shardCounts = List.of(4, 16);
        long shardMb = 32;
        int txnsPerBeat = 50;
        int rounds = 2;
        List<Boolean> appendThread = List.of(false, true);
        for (String arg : args) {
            if (arg.startsWith("--shards=")) {
                shardCounts = Stream.of(arg.substring(9).split(",")).map(Integer::parseInt).toList();
            } else if (arg.startsWith("--shard-mb=")) {
                shardMb = Long.parseLong(arg.substring(11));
            } else if (arg.startsWith("--txns-per-beat=")) {
                txnsPerBeat = Integer.parseInt(arg.substring(16));
            } else if (arg.startsWith("--rounds=")) {
                rounds = Integer.parseInt(arg.substring(9));
            } else if (arg.startsWith("--append-thread=")) {
                String v = arg.substring(16);
                appendThread = switch (v) {
                    case "on" -> List.of(true);
                    case "off" -> List.of(false);
                    case "both" -> List.of(false, true);
                    default -> throw new IllegalArgumentException("Invalid value " + v
                            + " for --append-thread: allowed are on, off, both");
                };
            } else if (!arg.isBlank()) {
                throw new IllegalArgumentException("Unknown option " + arg
                        + ": allowed are --shards=4,16 --shard-mb=N --txns-per-beat=N --rounds=N --append-thread=on|off|both");
            }
        }
        run(shardCounts, shardMb << 20, txnsPerBeat, rounds, appendThread, System.out);
    }

    static void run(List<Integer> shardCounts, long shardBytes, int txnsPerBeat, int rounds, List<Boolean> appendThread,
            PrintStream out) throws Exception {
        Path file = ShardBinlogGenerator.binlogOfAtLeast(1L << 30, out).get(0);
        byte[] bytes = Files.readAllBytes(file);
        List<Slice> slices = slices(file.getFileName().toString(), bytes, SKIP_BYTES, shardBytes);
        long inputBytes = slices.stream().mapToLong(Slice::length).sum();
        out.printf(Locale.ROOT, "Input per shard: %s, %d events, %.1f MB (real MariaDB 10.11 OLTP binlog)%n",
                file.getFileName(), slices.size(), inputBytes / 1e6);
        int warmUpShards = shardCounts.stream().mapToInt(Integer::intValue).max().orElseThrow();
        for (boolean thread : appendThread) {
            for (int pass = 0; pass < WARM_UP_PASSES; pass++) {
                once(warmUpShards, file.getFileName().toString(), bytes, slices, txnsPerBeat, thread);
            }
        }
        out.printf(Locale.ROOT, "Warm-up: %d discarded passes of %d shards per layout, then per shard count and layout"
                + " one more discarded pass%n", WARM_UP_PASSES, warmUpShards);
        out.println();
        out.println("| shards | append thread | events in | MB in | global transactions | events/s | MB/s | events/CPU-s"
                + " | busy: merge / append thread | GC pauses | heap used after |");
        out.println("|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|");
        for (int shards : shardCounts) {
            for (int round = 0; round <= rounds; round++) {
                for (boolean thread : appendThread) { // the layouts alternate, so both see the same machine
                    Result r = once(shards, file.getFileName().toString(), bytes, slices, txnsPerBeat, thread);
                    if (round > 0) {
                        out.println(row(shards, thread, r));
                    }
                }
            }
        }
    }

    /** The table row of one measured pass ({@link MergeComparison} reads these rows back). */
    static String row(int shards, boolean appendThread, Result r) {
        return String.format(Locale.ROOT, "| %d | %s | %,d | %.0f | %,d | %,.0f | %.1f | %,.0f | %.0f %% / %s | %d ms of %d"
                + " | %d MB |",
                shards, appendThread ? "on" : "off", r.events, r.bytes / 1e6, r.written, r.events / (r.nanos / 1e9),
                r.bytes / 1e6 / (r.nanos / 1e9), r.events / (r.cpuNanos / 1e9),
                100.0 * (r.cpuNanos - r.appendCpuNanos) / r.nanos,
                appendThread ? String.format(Locale.ROOT, "%.0f %%", 100.0 * r.appendCpuNanos / r.nanos) : "-",
                r.gcMillis, r.nanos / 1_000_000, r.heapAfter >> 20);
    }

    /** One pass: shard events and bytes in, global transactions out, wall and the stage threads' CPU time, heap after. */
    record Result(long events, long bytes, long written, long nanos, long cpuNanos, long appendCpuNanos, long heapAfter,
            long gcMillis) {
    }

    /**
     * For the benchmark runner's pipeline-only scenario: {@code shards} streams of {@code shardBytes} each, cut
     * from the OLTP part (past {@code skip} bytes) of a cached real shard binlog of at least {@code fileBytes};
     * {@value #WARM_UP_PASSES} discarded passes (one pass of a few shards is too short for the JIT to finish the
     * merge path), then the measured pass; appends on their own thread, as in the pipeline.
     */
    static Result measure(int shards, long fileBytes, long skip, long shardBytes, int txnsPerBeat, PrintStream out)
            throws Exception {
        Path file = ShardBinlogGenerator.binlogOfAtLeast(fileBytes, out).get(0);
        byte[] bytes = Files.readAllBytes(file);
        List<Slice> slices = slices(file.getFileName().toString(), bytes, skip, shardBytes);
        for (int pass = 0; pass < WARM_UP_PASSES; pass++) {
            once(shards, file.getFileName().toString(), bytes, slices, txnsPerBeat, true);
        }
        return once(shards, file.getFileName().toString(), bytes, slices, txnsPerBeat, true);
    }

    /** Slots of the append ring, as the pipeline has it. */
    private static final int APPEND_RING = io.tributary.storage.pipeline.GlobalBinlogPipeline.APPEND_RING;

    private static Result once(int shards, String fileName, byte[] bytes, List<Slice> slices, int txnsPerBeat,
            boolean appendThread) throws IOException {
        Path dir = Files.createTempDirectory("tributary-merge-bench");
        try {
            return replay(dir, Clock.systemUTC(), shards, fileName, bytes, slices, txnsPerBeat, appendThread);
        } finally {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * One pass into {@code dir} ({@code binlog/} for the global binlog, {@code spill/}): the slices replayed as
     * {@code shards} shard streams with a heartbeat every {@code txnsPerBeat} transactions of each, through a
     * merge stage with or without its append thread.
     */
    static Result replay(Path dir, Clock clock, int shards, String fileName, byte[] bytes, List<Slice> slices,
            int txnsPerBeat, boolean appendThread) throws IOException {
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.sync", "none", "binlog.flavor", "mariadb"));
        Map<String, String> persist = new HashMap<>(Map.of(PersistConfig.PATH, dir.resolve("spill").toString()));
        LivePersistSettings settings = new LivePersistSettings(PersistConfig.forThisJvm(), persist);
        List<ShardCheckpoint> start = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            start.add(ShardCheckpoint.at("shard-" + s, ShardPosition.at(fileName, 4)));
        }
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(settings, store);
                GlobalBinlogWriter writer = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), clock)) {
            MergeStage stage = new MergeStage(start, writer, buffer, LogicalNames.defaults(), Duration.ofSeconds(60),
                    appendThread ? APPEND_RING : 0);
            String[] names = new String[shards];
            for (int s = 0; s < shards; s++) {
                names[s] = "shard-" + s; // a reader's name is fixed; no string building per event
            }
            int[] next = new int[shards];
            long[] lastEnd = new long[shards];
            long[] hbSeq = new long[shards];
            long fileBase = Long.parseLong(fileName.replaceAll("^.*?(\\d+)$", "$1")) << 40;
            long beat = 1;
            long events = 0;
            long in = 0;
            java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
            long cpu0 = cpu.getCurrentThreadCpuTime();
            long gc0 = gcMillis();
            long t0 = System.nanoTime();
            boolean more = true;
            while (more) {
                more = false;
                for (int s = 0; s < shards; s++) {
                    int txns = 0;
                    while (next[s] < slices.size() && txns < txnsPerBeat) {
                        Slice e = slices.get(next[s]++);
                        ShardPosition after = ShardPosition.at(fileName, e.logPos());
                        stage.accept(s, new ShardEvent(names[s], e.type(), 0, 1, e.length(), e.logPos(), 0, true,
                                after, after, e.transactionStart(), e.transactionEnd(), Unpooled.wrappedBuffer(bytes, e.offset(), e.length()),
                                e.boundary()));
                        events++;
                        in += e.length();
                        lastEnd[s] = e.logPos();
                        if (e.transactionEnd()) {
                            txns++;
                        }
                    }
                    if (next[s] < slices.size()) {
                        more = true;
                    }
                    offerBeat(stage, s, fileName, lastEnd[s], hbSeq, fileBase, beat);
                }
                beat++;
                stage.drain();
            }
            for (int k = 0; k < 2; k++) {
                for (int s = 0; s < shards; s++) {
                    offerBeat(stage, s, fileName, lastEnd[s], hbSeq, fileBase, beat);
                }
                beat++;
                stage.drain();
            }
            stage.awaitAppended();
            long nanos = System.nanoTime() - t0;
            long appendCpu = appendThreadCpu(cpu);
            long cpuNanos = cpu.getCurrentThreadCpuTime() - cpu0 + appendCpu;
            long written = stage.transactionsWritten();
            stage.close();
            Runtime rt = Runtime.getRuntime();
            return new Result(events, in, written, nanos, cpuNanos, appendCpu, rt.totalMemory() - rt.freeMemory(),
                    gcMillis() - gc0);
        }
    }

    /** Time the JVM's collectors report so far (stop-the-world pauses of ParallelGC, on every core). */
    private static long gcMillis() {
        long sum = 0;
        for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    /** CPU time of the append thread of this pass (0 without one): it starts with the stage, so all of it counts. */
    private static long appendThreadCpu(java.lang.management.ThreadMXBean cpu) {
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("global-binlog-append") && t.isAlive()) {
                sum += Math.max(0, cpu.getThreadCpuTime(t.getId()));
            }
        }
        return sum;
    }

    /** A heartbeat unit after the shard's last event: between its last unit and the next (sequence = its start). */
    private static void offerBeat(MergeStage stage, int shard, String fileName, long lastEnd, long[] hbSeq, long fileBase,
            long beat) {
        long seq = Math.max(hbSeq[shard] + 1, fileBase | Math.max(0, lastEnd - 1));
        hbSeq[shard] = seq;
        ShardPosition at = ShardPosition.at(fileName, lastEnd);
        stage.offer(new ShardUnit<>(shard, seq, ShardUnit.Kind.HEARTBEAT, 0, null, beat, "hb-" + beat, at, at, null));
    }

    /**
     * The events of the file's first {@code limit} bytes (whole transactions), FDE first, with their facts and the
     * boundary a shard reader's framer gives each (framed here, once, as the reader thread does in production).
     */
    static List<Slice> slices(String name, byte[] bytes, long skip, long limit) {
        List<Slice> out = new ArrayList<>();
        BinlogEventDecoder d = new BinlogEventDecoder(name, bytes, DecoderOptions.HEADERS_ONLY);
        TransactionFramer framer = new TransactionFramer();
        ByteBuf all = Unpooled.wrappedBuffer(bytes);
        int lastEnd = 0;
        boolean started = false;
        while (d.hasNext()) {
            BinlogEvent e = d.next();
            if (e.type() == EventType.FORMAT_DESCRIPTION) {
                Boundary kind = framer.frame(all, e.bufferOffset(), e.header().typeCode(), e.length() - CHECKSUM);
                out.add(new Slice(e.bufferOffset(), e.length(), e.header().typeCode(), e.header().logPos(), false, false,
                        kind));
                continue;
            }
            // skip the bulk load: start at the first transaction past skip
            if (!started && (e.offset() < skip || e.type() != EventType.MARIA_GTID)) {
                continue;
            }
            started = true;
            Boundary kind = framer.frame(all, e.bufferOffset(), e.header().typeCode(), e.length() - CHECKSUM);
            boolean end = framer.ended();
            out.add(new Slice(e.bufferOffset(), e.length(), e.header().typeCode(), e.header().logPos(),
                    framer.opened(), end, kind));
            if (end) {
                lastEnd = out.size();
                if (e.offset() >= skip + limit) {
                    break;
                }
            }
        }
        if (lastEnd == 0) {
            throw new UncheckedIOException(new IOException(name + ": no transaction end in the input"));
        }
        return out.subList(0, lastEnd);
    }
}
