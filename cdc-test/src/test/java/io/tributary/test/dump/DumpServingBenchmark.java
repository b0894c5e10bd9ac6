package io.tributary.test.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
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
 */
public final class DumpServingBenchmark {
    private static final Path TOOL = Path.of("/usr/bin/mariadb-binlog");
    private static final List<String> TARGETS = List.of("mariadb", "tributary", "ceiling");

    private DumpServingBenchmark() {
    }

    private record Target(String name, int port, String user, String password, String firstFile, List<String> files,
                          long bytes) {
    }

    public static void main(String[] args) throws Exception {
        long sizeMb = 330;
        int[] readers = {1, 8, 32};
        int rounds = 3;
        Path out = null;
        int subscriberBuffer = 0;
        int replayWrite = 0;
        boolean replayMariadb = false;
        for (String a : args) {
            if (a.startsWith("--size-mb=")) {
                sizeMb = Long.parseLong(a.substring(10));
            } else if (a.startsWith("--readers=")) {
                readers = Arrays.stream(a.substring(10).split(",")).mapToInt(Integer::parseInt).toArray();
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
            } else {
                throw new IllegalArgumentException("Unknown argument " + a
                        + ": expected --size-mb=N, --readers=1,8,32, --rounds=N, --out=DIR, --subscriber-buffer-kb=N, "
                        + "--replay-write-kb=N, --replay-mariadb");
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
                    shardFiles.stream().map(p -> p.getFileName().toString()).toList(), shardBytes);
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
                DumpServerConfig serverConfig = DumpServerConfig.defaults(BinlogFlavor.MARIADB, 7,
                        List.of(DumpUser.withPassword("repl", "repl-pass"))).withPort(0);
                if (subscriberBuffer > 0) {
                    serverConfig = serverConfig.withSubscriberBuffer(subscriberBuffer);
                }
                try (DumpServer server = new DumpServer(serverConfig, () -> writer).start()) {
                    Target tributary = new Target("tributary", server.port(), "repl", "repl-pass", globalFiles.get(0),
                            globalFiles, globalBytes);
                    Path recordDir = Files.createDirectories(work.resolve("record"));
                    linkToNull(recordDir, globalFiles);
                    linkToNull(recordDir, mariadb.files());
                    int write = replayWrite;
                    try (PreframedReplayServer replay = PreframedReplayServer.record(server.port(),
                            port -> command(new Target("record", port, "repl", "repl-pass", globalFiles.get(0), globalFiles,
                                    0), recordDir), work.resolve("stream.bin"), write);
                         PreframedReplayServer mariadbReplay = replayMariadb ? PreframedReplayServer.record(shard.port(),
                                 port -> command(new Target("record", port, mariadb.user(), mariadb.password(),
                                         mariadb.firstFile(), mariadb.files(), 0), recordDir),
                                 work.resolve("mariadb-stream.bin"), write) : null) {
                        Target ceiling = new Target("ceiling", replay.port(), "repl", "repl-pass", globalFiles.get(0),
                                globalFiles, globalBytes);
                        List<Target> targets = new ArrayList<>(List.of(mariadb, tributary, ceiling));
                        if (mariadbReplay != null) {
                            targets.add(new Target("mariadb-replay", mariadbReplay.port(), mariadb.user(),
                                    mariadb.password(), mariadb.firstFile(), mariadb.files(), shardBytes));
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
        List<String> csv = new ArrayList<>(List.of("readers,round,target,seconds,bytes,mb_per_s"));
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
                    double seconds = readAll(t, n, work);
                    double mbs = t.bytes() * (double) n / seconds / 1e6;
                    rates.computeIfAbsent(t.name() + "@" + n, k -> new ArrayList<>()).add(mbs);
                    csv.add(n + "," + round + "," + t.name() + "," + String.format("%.3f", seconds) + ","
                            + t.bytes() * n + "," + String.format("%.1f", mbs));
                    System.out.printf("  readers %3d round %d %-9s %7.2f s %8.1f MB/s%n", n, round, t.name(), seconds, mbs);
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
