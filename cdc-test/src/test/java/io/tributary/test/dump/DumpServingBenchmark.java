package io.tributary.test.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import io.tributary.storage.binlog.BinlogFileReader;
import io.tributary.storage.binlog.BinlogPosition;
import io.tributary.storage.binlog.ChecksumPolicy;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.test.bench.BenchCharts;
import io.tributary.test.bench.ShardBinlogGenerator;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;

/**
 * Serving from the files, against MariaDB's own dump thread, in one run (issue 19). One embedded MariaDB 10.11
 * shard takes {@code --size-mb} of 50-row insert transactions; the same row transactions are written into a global
 * binlog (MariaDB flavor, one file) and served by Tributary's {@link DumpServer}. Then N copies of the same client,
 * {@code mariadb-binlog --read-from-remote-server --raw --to-last-log}, read everything from the start, against:
 * <ul>
 *   <li>{@code mariadb}: the shard's own dump thread serving its binlog;</li>
 *   <li>{@code tributary}: the dump server serving the global binlog (the tail cache holds only its end, so
 *       subscribers read the files);</li>
 *   <li>{@code ceiling}: a {@link PreframedReplayServer} replaying a recorded Tributary session with zero-copy
 *       writes: what the client itself can take. With {@code --replay-write-kb=N} it writes at most N KB at a time
 *       (16 KB is what the client takes fastest on 2 cores: the ceiling; unlimited writes were slower than
 *       MariaDB's own thread);</li>
 *   <li>{@code mariadb-replay} (with {@code --replay-mariadb}): the same replay of a recorded session with the shard,
 *       to tell what the stream's shape does from what the server does.</li>
 *   <li>{@code tributary-every-read} (with {@code --every-read-peer}): a second dump server on the same files with
 *       {@code dump.checksums=every-read}, so every subscriber checks every event's CRC32 again (the default,
 *       first-read, checks each event once: the recording and warm-up reads check them, the rounds do not).</li>
 * </ul>
 * The targets alternate within each round, after one unmeasured read of each (the servers are warm processes). The clients' files are symbolic links to {@code /dev/null}, so nothing is
 * written to disk and the client's cost is its reading and framing alone. Rates are bytes of binlog served (the sum of
 * the served files' sizes, times N) over the wall time from starting the N clients until the last exits, in MB/s
 * (10<sup>6</sup> bytes). Prints a table with ratios and writes a CSV and a PNG plot to {@code --out}.
 *
 * <pre>
 * ./mvnw -q -Pbench -pl cdc-test -am process-test-classes -Dbench.main=io.tributary.test.dump.DumpServingBenchmark \
 *     -Dbench.args="--size-mb=1000 --readers=1,8,32 --rounds=5 --replay-write-kb=16 --replay-mariadb --out=DIR"
 * </pre>
 *
 * <p>Each round also reports the server process's CPU time per GB served ({@code /proc/PID/stat}). With {@code
 * --scan-rounds=N} the global binlog is first read N times in this JVM without sockets, to tell what one
 * subscriber's file reader costs with {@code dump.checksums} every-read and first-read ({@code --readers=none}: only
 * that).
 */
public final class DumpServingBenchmark {
    private static final Path TOOL = Path.of("/usr/bin/mariadb-binlog");
    private static final List<String> TARGETS = List.of("mariadb", "tributary", "ceiling");

    private DumpServingBenchmark() {
    }

    /** One server read in the rounds; {@code serverPid} is the process whose CPU time serving costs. */
    private record Target(String name, int port, String user, String password, String firstFile, List<String> files,
                          long bytes, long serverPid) {
    }

    private static final long SELF = ProcessHandle.current().pid();

    public static void main(String[] args) throws Exception {
        long sizeMb = 330;
        int[] readers = {1, 8, 32};
        int rounds = 3;
        Path out = null;
        int subscriberBuffer = 0;
        int replayWrite = 0;
        boolean replayMariadb = false;
        boolean everyReadPeer = false;
        int scanRounds = 0;
        for (String a : args) {
            if (a.startsWith("--size-mb=")) {
                sizeMb = Long.parseLong(a.substring(10));
            } else if (a.startsWith("--readers=")) {
                readers = a.equals("--readers=none") ? new int[0]
                        : Arrays.stream(a.substring(10).split(",")).mapToInt(Integer::parseInt).toArray();
            } else if (a.startsWith("--rounds=")) {
                rounds = Integer.parseInt(a.substring(9));
            } else if (a.startsWith("--out=")) {
                out = Path.of(a.substring(6));
            } else if (a.startsWith("--subscriber-buffer-kb=")) {
                subscriberBuffer = Integer.parseInt(a.substring(23)) * 1024;
            } else if (a.startsWith("--replay-write-kb=")) {
                replayWrite = Integer.parseInt(a.substring(18)) * 1024;
            } else if (a.equals("--replay-mariadb")) {
                replayMariadb = true;
            } else if (a.equals("--every-read-peer")) {
                everyReadPeer = true;
            } else if (a.startsWith("--scan-rounds=")) {
                scanRounds = Integer.parseInt(a.substring(14));
            } else {
                throw new IllegalArgumentException("Unknown argument " + a
                        + ": expected --size-mb=N, --readers=1,8,32, --rounds=N, --out=DIR, --subscriber-buffer-kb=N, "
                        + "--replay-write-kb=N, --replay-mariadb, --every-read-peer, --scan-rounds=N");
            }
        }
        if (!Files.isExecutable(TOOL)) {
            throw new IllegalStateException(TOOL + " is not installed (apt-get install mariadb-client)");
        }
        Path work = Files.createTempDirectory("tributary-serving");
        ShardClusterConfig config = ShardClusterConfig.defaults().withCount(1).withBaseDir(work.resolve("shards"))
                .withServerOptions(List.of("--max-binlog-size=1073741824", "--innodb-buffer-pool-size=512M",
                        "--innodb-log-file-size=512M", "--innodb-flush-log-at-trx-commit=0", "--sync-binlog=0",
                        "--binlog-annotate-row-events=OFF"));
        try (ShardCluster cluster = ShardCluster.start(config)) {
            ShardInfo shard = cluster.info(0);
            load(shard, sizeMb << 20);
            Path shardBinlogs = cluster.directory().resolve("shard-0/binlog");
            List<Path> shardFiles;
            try (var files = Files.list(shardBinlogs)) {
                shardFiles = files.filter(p -> p.getFileName().toString().matches("mariadb-bin\\.\\d+")).sorted().toList();
            }
            long shardBytes = 0;
            for (Path p : shardFiles) {
                shardBytes += Files.size(p);
            }
            Target mariadb = new Target("mariadb", shard.port(), shard.replUser(), shard.replPassword(),
                    shardFiles.get(0).getFileName().toString(),
                    shardFiles.stream().map(p -> p.getFileName().toString()).toList(), shardBytes,
                    Long.parseLong(Files.readString(cluster.directory().resolve("shard-0/run/mariadbd.pid")).strip()));
            Path globalDir = work.resolve("global");
            try (GlobalBinlogWriter writer = CorpusBinlog.openWriter(globalDir, BinlogFlavor.MARIADB, 4000L << 20, "0", "none")) {
                for (Path p : shardFiles) {
                    CorpusBinlog c = CorpusBinlog.fromBytes(p.getFileName().toString(), Files.readAllBytes(p), db -> true);
                    c.append(writer, c.size());
                }
                List<String> globalFiles = writer.index().entries().stream().map(e -> e.file()).toList();
                long globalBytes = 0;
                for (String f : globalFiles) {
                    globalBytes += Files.size(globalDir.resolve(f));
                }
                System.out.printf("shard binlog %,d bytes in %d files; global binlog %,d bytes in %d files%n", shardBytes,
                        shardFiles.size(), globalBytes, globalFiles.size());
                if (scanRounds > 0) {
                    scanCost(writer, globalFiles.get(0), globalBytes, scanRounds, out);
                }
                if (readers.length == 0) {
                    return;
                }
                DumpServerConfig serverConfig = DumpServerConfig.defaults(BinlogFlavor.MARIADB, 7,
                        List.of(DumpUser.withPassword("repl", "repl-pass"))).withPort(0);
                if (subscriberBuffer > 0) {
                    serverConfig = serverConfig.withSubscriberBuffer(subscriberBuffer);
                }
                try (DumpServer server = new DumpServer(serverConfig, () -> writer).start();
                     DumpServer everyRead = everyReadPeer ? new DumpServer(
                             serverConfig.withChecksums(ChecksumPolicy.EVERY_READ), () -> writer).start() : null) {
                    Target tributary = new Target("tributary", server.port(), "repl", "repl-pass", globalFiles.get(0),
                            globalFiles, globalBytes, SELF);
                    Path recordDir = Files.createDirectories(work.resolve("record"));
                    linkToNull(recordDir, globalFiles);
                    linkToNull(recordDir, mariadb.files());
                    int write = replayWrite;
                    try (PreframedReplayServer replay = PreframedReplayServer.record(server.port(),
                            port -> command(new Target("record", port, "repl", "repl-pass", globalFiles.get(0), globalFiles,
                                    0, SELF), recordDir), work.resolve("stream.bin"), write);
                         PreframedReplayServer mariadbReplay = replayMariadb ? PreframedReplayServer.record(shard.port(),
                                 port -> command(new Target("record", port, mariadb.user(), mariadb.password(),
                                         mariadb.firstFile(), mariadb.files(), 0, SELF), recordDir),
                                 work.resolve("mariadb-stream.bin"), write) : null) {
                        Target ceiling = new Target("ceiling", replay.port(), "repl", "repl-pass", globalFiles.get(0),
                                globalFiles, globalBytes, SELF);
                        List<Target> targets = new ArrayList<>(List.of(mariadb, tributary, ceiling));
                        if (mariadbReplay != null) {
                            targets.add(new Target("mariadb-replay", mariadbReplay.port(), mariadb.user(),
                                    mariadb.password(), mariadb.firstFile(), mariadb.files(), shardBytes, SELF));
                        }
                        if (everyRead != null) {
                            targets.add(new Target("tributary-every-read", everyRead.port(), "repl", "repl-pass",
                                    globalFiles.get(0), globalFiles, globalBytes, SELF));
                        }
                        run(targets, readers, rounds, work, out);
                    }
                }
            }
        } finally {
            try (var files = Files.walk(work)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void run(List<Target> targets, int[] readers, int rounds, Path work, Path out) throws Exception {
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        Map<String, List<Double>> cpuPerGb = new LinkedHashMap<>();
        List<String> csv = new ArrayList<>(List.of("readers,round,target,seconds,bytes,mb_per_s,server_cpu_s"));
        for (Target t : targets) {
            // one unmeasured read each first: the servers under test are warm long-running processes, and the first
            // read of a fresh JVM runs its serving path in the interpreter (Tributary's first round was ~0.6x its rest)
            double seconds = readAll(t, 1, work);
            System.out.printf("  warm-up %-14s %7.2f s%n", t.name(), seconds);
        }
        for (int n : readers) {
            for (int round = 1; round <= rounds; round++) {
                List<Target> order = new ArrayList<>(targets);
                java.util.Collections.rotate(order, round - 1); // alternate who goes first
                for (Target t : order) {
                    double cpuBefore = cpuSeconds(t.serverPid());
                    double seconds = readAll(t, n, work);
                    double cpu = cpuSeconds(t.serverPid()) - cpuBefore;
                    double mbs = t.bytes() * (double) n / seconds / 1e6;
                    rates.computeIfAbsent(t.name() + "@" + n, k -> new ArrayList<>()).add(mbs);
                    cpuPerGb.computeIfAbsent(t.name() + "@" + n, k -> new ArrayList<>()).add(cpu / (t.bytes() * (double) n / 1e9));
                    csv.add(n + "," + round + "," + t.name() + "," + String.format("%.3f", seconds) + ","
                            + t.bytes() * n + "," + String.format("%.1f", mbs) + "," + String.format("%.2f", cpu));
                    System.out.printf("  readers %3d round %d %-9s %7.2f s %8.1f MB/s  server CPU %6.2f s%n", n, round,
                            t.name(), seconds, mbs, cpu);
                }
            }
        }
        System.out.println();
        System.out.println("| readers | MariaDB 10.11 dump thread | Tributary | client ceiling (replay) | Tributary / MariaDB"
                + " | Tributary / ceiling |");
        System.out.println("|---:|---:|---:|---:|---:|---:|");
        for (int n : readers) {
            List<Double> m = rates.get("mariadb@" + n);
            List<Double> t = rates.get("tributary@" + n);
            List<Double> c = rates.get("ceiling@" + n);
            System.out.printf("| %d | %s | %s | %s | %.2f | %.2f |%n", n, range(m), range(t), range(c),
                    median(t) / median(m), median(t) / median(c));
            List<Double> r = rates.get("mariadb-replay@" + n);
            if (r != null) {
                System.out.printf("|   | replay of MariaDB's session: %s | MariaDB / its replay %.2f | Tributary's replay / "
                        + "MariaDB's replay %.2f |  |  |%n", range(r), median(m) / median(r), median(c) / median(r));
            }
            List<Double> e = rates.get("tributary-every-read@" + n);
            if (e != null) {
                System.out.printf("|   |  | dump.checksums=every-read: %s | %.2f | %.2f |%n", range(e),
                        median(e) / median(m), median(e) / median(c));
            }
        }
        System.out.println();
        System.out.println("Server CPU seconds per GB served (medians; the replays and Tributary share this JVM, idle"
                + " while another target is read):");
        System.out.println("| readers | " + String.join(" | ", targets.stream().map(Target::name).toList()) + " |");
        System.out.println("|---:|" + "---:|".repeat(targets.size()));
        for (int n : readers) {
            StringBuilder row = new StringBuilder("| " + n + " |");
            for (Target t : targets) {
                row.append(String.format(" %.2f |", median(cpuPerGb.get(t.name() + "@" + n))));
            }
            System.out.println(row);
        }
        if (out != null) {
            Files.createDirectories(out);
            Files.write(out.resolve("results.csv"), csv);
            CategoryChart chart = BenchCharts.bars("Serving from the files: mariadb-binlog --raw, all readers together",
                    "concurrent readers", "MB/s (median of " + rounds + ")", 900, "#,##0");
            List<String> xs = Arrays.stream(readers).mapToObj(Integer::toString).toList();
            for (String target : TARGETS) {
                List<Double> ys = Arrays.stream(readers).mapToObj(n -> median(rates.get(target + "@" + n))).toList();
                chart.addSeries(switch (target) {
                    case "mariadb" -> "MariaDB 10.11 dump thread";
                    case "tributary" -> "Tributary dump server";
                    default -> "client ceiling (pre-framed replay)";
                }, xs, ys);
            }
            BitmapEncoder.saveBitmap(chart, out.resolve("serving-files").toString(), BitmapEncoder.BitmapFormat.PNG);
            System.out.println("wrote " + out.resolve("results.csv") + " and " + out.resolve("serving-files.png"));
        }
    }

    /** Runs {@code n} clients reading all of {@code t} at once; the wall time until the last one exits. */
    private static double readAll(Target t, int n, Path work) throws Exception {
        List<Process> processes = new ArrayList<>();
        List<Path> dirs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path dir = Files.createDirectories(work.resolve("out-" + t.name() + "-" + i));
            linkToNull(dir, t.files());
            dirs.add(dir);
        }
        long started = System.nanoTime();
        for (Path dir : dirs) {
            processes.add(new ProcessBuilder(command(t, dir)).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("client.log").toFile()).start());
        }
        for (int i = 0; i < n; i++) {
            Process p = processes.get(i);
            if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(t.name() + ": client " + i + " failed: "
                        + Files.readString(dirs.get(i).resolve("client.log")));
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        for (Path dir : dirs) {
            for (String f : t.files()) {
                if (!Files.isSymbolicLink(dir.resolve(f))) {
                    throw new IllegalStateException("the client replaced the link " + dir.resolve(f) + " by a file");
                }
            }
        }
        return seconds;
    }

    /**
     * What one subscriber's reader costs the server per GB of the files, without sockets or clients: the whole global
     * binlog read through {@link BinlogFileReader#nextEvents} on this thread, {@code dump.checksums=every-read} and
     * {@code first-read} alternating (the first-read reader finds the file checked by an earlier read, as every
     * subscriber after the first does), after one unmeasured pass of each. CPU time of this thread, ms per GB.
     */
    private static void scanCost(GlobalBinlogWriter writer, String firstFile, long bytes, int rounds, Path out)
            throws Exception {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        Map<ChecksumPolicy, List<Double>> msPerGb = new java.util.EnumMap<>(ChecksumPolicy.class);
        List<String> csv = new ArrayList<>(List.of("round,checksums,bytes,cpu_ms,cpu_ms_per_gb"));
        for (int round = 0; round <= rounds; round++) {
            List<ChecksumPolicy> order = round % 2 == 0 ? List.of(ChecksumPolicy.EVERY_READ, ChecksumPolicy.FIRST_READ)
                    : List.of(ChecksumPolicy.FIRST_READ, ChecksumPolicy.EVERY_READ);
            for (ChecksumPolicy policy : order) {
                long read = 0;
                long cpu = mx.getCurrentThreadCpuTime();
                try (BinlogFileReader r = BinlogFileReader.at(writer, new BinlogPosition(firstFile, 4), policy)) {
                    for (long n; (n = r.nextEvents((type, b, at, length) -> { }, 1 << 20, java.time.Duration.ZERO)) > 0; ) {
                        read += n;
                    }
                }
                double ms = (mx.getCurrentThreadCpuTime() - cpu) / 1e6;
                if (read < bytes - 1024) {
                    throw new IllegalStateException(policy + " read " + read + " of " + bytes + " bytes");
                }
                if (round > 0) {
                    msPerGb.computeIfAbsent(policy, k -> new ArrayList<>()).add(ms / (read / 1e9));
                    csv.add(round + "," + policy + "," + read + "," + String.format("%.1f", ms) + ","
                            + String.format("%.1f", ms / (read / 1e9)));
                }
                System.out.printf("  scan round %d %-10s %,d bytes  %7.1f ms CPU%n", round, policy, read, ms);
            }
        }
        double every = median(msPerGb.get(ChecksumPolicy.EVERY_READ));
        double first = median(msPerGb.get(ChecksumPolicy.FIRST_READ));
        System.out.printf("one subscriber's file reader, CPU ms per GB, median (min-max) of %d: every-read %s,"
                        + " first-read after a first reader %s: %.2fx%n", rounds, range(msPerGb.get(ChecksumPolicy.EVERY_READ)),
                range(msPerGb.get(ChecksumPolicy.FIRST_READ)), every / first);
        if (out != null) {
            Files.createDirectories(out);
            Files.write(out.resolve("scan-cost.csv"), csv);
        }
    }

    /** User and system CPU time of process {@code pid} so far, from {@code /proc/PID/stat} (in 1/100 s). */
    private static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // fields from the third (state) on
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime: fields 14 and 15
    }

    private static List<String> command(Target t, Path dir) {
        return List.of(TOOL.toString(), "--no-defaults", "--read-from-remote-server", "--raw", "--to-last-log",
                "--host=127.0.0.1", "--port=" + t.port(), "--user=" + t.user(), "--password=" + t.password(),
                "--result-file=" + dir + "/", t.firstFile());
    }

    private static void linkToNull(Path dir, List<String> files) throws IOException {
        for (String f : files) {
            Path link = dir.resolve(f);
            if (!Files.isSymbolicLink(link)) {
                Files.deleteIfExists(link);
                Files.createSymbolicLink(link, Path.of("/dev/null"));
            }
        }
    }

    /** 50-row insert transactions from two connections until the shard's binlog holds {@code target} bytes. */
    private static void load(ShardInfo shard, long target) throws Exception {
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE bench");
            s.execute("CREATE TABLE bench.t (id BIGINT NOT NULL PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL,"
                    + " pad CHAR(60) NOT NULL) ENGINE=InnoDB");
        }
        System.out.printf("loading %d MB of 50-row transactions into the shard%n", target >> 20);
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> clients = new ArrayList<>();
        long started = System.nanoTime();
        for (int client = 0; client < 2; client++) {
            int me = client;
            clients.add(pool.submit(() -> {
                Random random = new Random(me);
                try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                    for (long id = me; !done.get(); ) {
                        StringBuilder sql = new StringBuilder("INSERT INTO bench.t VALUES ");
                        for (int r = 0; r < 50; r++, id += 2) {
                            sql.append(r == 0 ? "" : ",").append('(').append(id).append(',').append(random.nextInt())
                                    .append(",'").append(filler(random, 110)).append("','").append(filler(random, 55))
                                    .append("')");
                        }
                        s.execute(sql.toString());
                    }
                }
                return null;
            }));
        }
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            long lastReport = System.nanoTime();
            for (long bytes; (bytes = ShardBinlogGenerator.binlogBytes(s)) < target; Thread.sleep(200)) {
                if (System.nanoTime() - lastReport > 5_000_000_000L) {
                    double secs = (System.nanoTime() - started) / 1e9;
                    System.out.printf("  %4.0f s  %5d of %d MB%n", secs, bytes >> 20, target >> 20);
                    lastReport = System.nanoTime();
                }
                for (Future<?> f : clients) {
                    if (f.isDone()) {
                        f.get();
                    }
                }
            }
        } finally {
            done.set(true);
            for (Future<?> f : clients) {
                f.get();
            }
            pool.shutdown();
        }
    }

    /** Letters and digits, {@code length} of them. */
    private static String filler(Random random, int length) {
        char[] c = new char[length];
        for (int i = 0; i < length; i++) {
            c[i] = Character.forDigit(random.nextInt(36), 36);
        }
        return new String(c);
    }

    private static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static String range(List<Double> xs) {
        double min = xs.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double max = xs.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return String.format("%.0f (%.0f-%.0f)", median(xs), min, max);
    }
}
