package io.tributary.test.bench;

import io.tributary.core.order.HeldTransaction;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.order.GlobalEvent;
import io.tributary.core.order.GlobalTransaction;
import io.tributary.core.order.ShardCheckpoint;
import io.tributary.core.reader.ShardPosition;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.binlog.SyncPolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.TimeUnit;

/**
 * Write throughput of the global binlog per {@code binlog.sync} policy, against the disk's own
 * sequential write rate measured in the same run with {@code dd if=/dev/zero bs=1M conv=fdatasync}.
 *
 * <p>Topology: one appending thread (the merger's output stage) plus the writer's syncer thread; input
 * already in memory as {@link GlobalTransaction}s relayed from real MariaDB 10.11 shard binlogs (no
 * network, no merger), output to files in {@code --dir} on the disk under test. Workloads: small
 * sysbench {@code oltp_write_only}-like transactions (4 row events each) and large ones (one 512 KB row
 * each). A run ends when the last transaction is durable (its checkpoint stored); MB/s counts bytes in
 * the output files. Every run and every dd starts after {@code sync}; each workload runs every policy
 * twice, then dd writes as many bytes as the largest output twice, and the table compares with their mean.
 *
 * <p>Run: {@code ./mvnw -q -Pbench -pl cdc-test -am process-test-classes
 * -Dbench.main=io.tributary.test.bench.BinlogWriteBenchmark -Dbench.args="--small-mb=256 --large-count=512"}.
 * Options: {@code --dir=PATH} (default a new directory under java.io.tmpdir), {@code --small-mb=N} input
 * of small transactions (default 256), {@code --large-count=N} large transactions (default 512).
 */
public final class BinlogWriteBenchmark {

    record Result(String workload, String policy, long transactions, long events, long bytes, long nanos) {
        double mbPerSecond() {
            return bytes / 1e6 / (nanos / 1e9);
        }
    }

    private static final int ROUNDS = 2;

    private BinlogWriteBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = null;
        long smallMb = 256;
        int largeCount = 512;
        for (String arg : args) {
            if (arg.startsWith("--dir=")) {
                dir = Path.of(arg.substring(6));
            } else if (arg.startsWith("--small-mb=")) {
                smallMb = Long.parseLong(arg.substring(11));
            } else if (arg.startsWith("--large-count=")) {
                largeCount = Integer.parseInt(arg.substring(14));
            } else if (!arg.isBlank()) {
                throw new IllegalArgumentException("Unknown option " + arg + ": allowed are --dir=PATH, --small-mb=N, --large-count=N");
            }
        }
        if (dir == null) {
            dir = Files.createTempDirectory("tributary-write-bench");
        }
        run(dir, smallMb << 20, largeCount, System.out);
    }

    static void run(Path dir, long smallBytes, int largeCount, PrintStream out) throws Exception {
        Path small = ShardBinlogGenerator.binlogOfAtLeast(1L << 30, out).get(0);
        List<HeldTransaction> smallTxns = transactions(small, smallBytes);
        List<HeldTransaction> largeTxns = new ArrayList<>();
        for (Path p : LargeRowBinlogGenerator.binlogWithRows(largeCount, out)) {
            largeTxns.addAll(transactions(p, Long.MAX_VALUE));
        }
        out.printf(Locale.ROOT, "Input: %d small transactions (%s), %d large transactions (%s), in memory%n",
                smallTxns.size(), small.getFileName(), largeTxns.size(), "512 KB rows");
        out.printf(Locale.ROOT, "Output directory: %s (%s)%n", dir, Files.getFileStore(dir));
        List<Result> results = new ArrayList<>();
        Map<String, Double> baseline = new HashMap<>();
        for (String workload : List.of("small", "large")) {
            List<HeldTransaction> input = workload.equals("small") ? smallTxns : largeTxns;
            write(dir, workload + "-warmup", SyncPolicy.NONE, input.subList(0, Math.min(input.size(), 2000)));
            List<Result> mine = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                for (SyncPolicy policy : SyncPolicy.values()) {
                    Result r = write(dir, workload, policy, input);
                    mine.add(r);
                    out.printf(Locale.ROOT, "  round %d %-5s %-8s %8.1f MB/s %10.0f events/s %9.0f txn/s (%d txns, %.1f MB, %.2f s)%n",
                            round, r.workload(), r.policy(), r.mbPerSecond(), r.events() / (r.nanos() / 1e9),
                            r.transactions() / (r.nanos() / 1e9), r.transactions(), r.bytes() / 1e6, r.nanos() / 1e9);
                }
            }
            long ddBytes = mine.stream().mapToLong(Result::bytes).max().orElse(256L << 20);
            // the disk's rate measured right after this workload's runs, twice, under the same page-cache state
            double dd = (dd(dir, ddBytes, out) + dd(dir, ddBytes, out)) / 2;
            baseline.put(workload, dd);
            results.addAll(mine);
        }
        out.println();
        out.printf(Locale.ROOT, "Disk baseline (dd if=/dev/zero bs=1M conv=fdatasync, same size as the output): small %.1f MB/s,"
                + " large %.1f MB/s%n", baseline.get("small"), baseline.get("large"));
        out.printf("%-6s %-9s %10s %12s %10s %9s   (mean of %d rounds)%n", "load", "sync", "MB/s", "events/s", "txn/s",
                "vs dd", ROUNDS);
        for (String workload : List.of("small", "large")) {
            for (SyncPolicy policy : SyncPolicy.values()) {
                String name = policy.name().toLowerCase(Locale.ROOT);
                List<Result> rs = results.stream().filter(r -> r.workload().equals(workload) && r.policy().equals(name)).toList();
                double seconds = rs.stream().mapToDouble(r -> r.nanos() / 1e9).sum();
                double mb = rs.stream().mapToDouble(r -> r.bytes() / 1e6).sum();
                double events = rs.stream().mapToDouble(Result::events).sum();
                double txns = rs.stream().mapToDouble(Result::transactions).sum();
                out.printf(Locale.ROOT, "%-6s %-9s %10.1f %12.0f %10.0f %8.0f%%%n", workload, name, mb / seconds,
                        events / seconds, txns / seconds, 100 * (mb / seconds) / baseline.get(workload));
            }
        }
    }

    private static Result write(Path root, String workload, SyncPolicy policy, List<HeldTransaction> input) throws Exception {
        Path dir = root.resolve(workload + "-" + policy.name().toLowerCase(Locale.ROOT));
        deleteRecursively(dir);
        syncDisk();
        BinlogConfig config = BinlogConfig.parse(Map.of("binlog.dir", dir.toString(),
                "binlog.sync", policy.name().toLowerCase(Locale.ROOT)));
        long events = 0;
        long started;
        long ended;
        try (GlobalBinlogWriter w = GlobalBinlogWriter.open(config, BinlogRecovery.recover(config), Clock.systemUTC())) {
            started = System.nanoTime();
            long last = 0;
            for (HeldTransaction t : input) {
                last = w.append(t);
                events += t.eventList().size() + 3;
            }
            if (!w.durability().awaitSequence(last, Duration.ofMinutes(5))) {
                throw new IllegalStateException("transaction " + last + " not durable after 5 minutes: " + w.health());
            }
            ended = System.nanoTime();
        }
        long bytes = 0;
        try (var files = Files.list(dir)) {
            for (Path p : files.filter(p -> p.getFileName().toString().matches("binlog\\.\\d+")).toList()) {
                bytes += Files.size(p);
            }
        }
        deleteRecursively(dir);
        return new Result(workload, policy.name().toLowerCase(Locale.ROOT), input.size(), events, bytes, ended - started);
    }

    /** Flushes dirty pages left by the previous run, so each run starts from the same page-cache state. */
    private static void syncDisk() throws IOException, InterruptedException {
        new ProcessBuilder("sync").inheritIO().start().waitFor(5, TimeUnit.MINUTES);
    }

    /** Runs dd and returns MB/s from our own clock (dd's own figure is printed too). */
    private static double dd(Path dir, long bytes, PrintStream out) throws IOException, InterruptedException {
        Path target = dir.resolve("dd.bin");
        syncDisk();
        long started = System.nanoTime();
        Process p = new ProcessBuilder("dd", "if=/dev/zero", "of=" + target, "bs=1M", "count=" + (bytes >> 20),
                "conv=fdatasync").redirectErrorStream(true).start();
        String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException("dd failed: " + printed);
        }
        long nanos = System.nanoTime() - started;
        Files.deleteIfExists(target);
        out.println("dd: " + printed.replace('\n', ' '));
        return (bytes >> 20 << 20) / 1e6 / (nanos / 1e9);
    }

    /** The row transactions of a real shard binlog (up to {@code maxBytes} of it), relayed under logical names. */
    static List<HeldTransaction> transactions(Path file, long maxBytes) {
        byte[] bytes = readPrefix(file, maxBytes);
        List<HeldTransaction> out = new ArrayList<>();
        Map<Long, Long> ids = new HashMap<>();
        List<GlobalEvent> txn = null;
        BinlogEventDecoder d = new BinlogEventDecoder(file.getFileName().toString(), bytes, DecoderOptions.HEADERS_ONLY);
        while (d.hasNext()) {
            BinlogEvent e = d.next();
            EventType t = e.type();
            if (t == EventType.MARIA_GTID || t == EventType.GTID) {
                txn = new ArrayList<>();
            } else if (txn != null && t == EventType.TABLE_MAP) {
                TableMapEvent m = BinlogEventDecoder.continuing(file.toString(), d.formatDescription(), e.offset(),
                        e.buffer(), e.bufferOffset(), e.length(), DecoderOptions.FULL).next().body(TableMapEvent.class);
                long id = ids.computeIfAbsent(m.tableId(), k -> 100L + ids.size());
                txn.add(new GlobalEvent.TableMap(e, id, "logical_" + m.database(), m.table()));
            } else if (txn != null && isRows(t)) {
                txn.add(new GlobalEvent.Rows(e, ids.get(tableId(e))));
            } else if (txn != null && t == EventType.XID) {
                if (!txn.isEmpty()) {
                    ShardPosition pos = ShardPosition.at(file.getFileName().toString(), e.offset() + e.length());
                    out.add(new HeldTransaction(GlobalTransaction.Kind.ROWS, e.header().timestamp() * 1_000_000L, txn,
                            List.of(ShardCheckpoint.at("shard-0", pos)), "shard-0 " + pos));
                }
                txn = null;
            }
        }
        return out;
    }

    /** The file cut after its last complete event within {@code maxBytes}. */
    private static byte[] readPrefix(Path file, long maxBytes) {
        try (var ch = java.nio.channels.FileChannel.open(file)) {
            long limit = Math.min(ch.size(), maxBytes);
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) Math.min(limit, Integer.MAX_VALUE - 16));
            while (b.hasRemaining() && ch.read(b) >= 0) {
                // fill
            }
            byte[] bytes = b.array();
            long pos = 4;
            while (pos + 19 <= bytes.length) {
                long size = java.nio.ByteBuffer.wrap(bytes, (int) pos + 9, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt()
                        & 0xFFFF_FFFFL;
                if (pos + size > bytes.length) {
                    break;
                }
                pos += size;
            }
            return pos == bytes.length ? bytes : java.util.Arrays.copyOf(bytes, (int) pos);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long tableId(BinlogEvent e) {
        int at = e.bufferOffset() + 19;
        long id = 0;
        for (int i = 5; i >= 0; i--) {
            id = (id << 8) | (e.buffer()[at + i] & 0xFF);
        }
        return id;
    }

    private static boolean isRows(EventType t) {
        return t != null && switch (t) {
            case WRITE_ROWS_V1, UPDATE_ROWS_V1, DELETE_ROWS_V1, WRITE_ROWS_V2, UPDATE_ROWS_V2, DELETE_ROWS_V2 -> true;
            default -> false;
        };
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
