package io.tributary.storage.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogFiles;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.binlog.RecoveredBinlog;
import io.tributary.storage.merge.ShardBinlogUnits.Unit;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.EmbeddedMariaDbShard;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardFlavor;
import io.tributary.test.shard.ShardInfo;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 5's crash test on live shards through the real pipeline: 3 MariaDB shards under a load of
 * single-shard transactions, XA transactions over 2-3 shards (some rolled back) and large transactions
 * (1 MB, spilled: the child runs with {@code storage.txnPersistThreshold=256KB}); a child JVM
 * ({@link PipelineCrashChild}: heartbeats, readers, sorter/merger, writer with 1 MB files) is killed with
 * {@code kill -9} at 20 seeded moments while it writes (after its first transaction of the run): at a random
 * delay; paused inside a rotation (each of its three steps in turn; the test commits a 1 MB transaction
 * so that a rotation follows); right when a spilled transaction is in the buffer (again after a 1 MB
 * transaction). Each restart recovers the directory; the test prints what each recovery did.
 * At the end (load stopped, the last child drained and stopped cleanly) the global binlog must hold
 * every committed shard transaction exactly once (rows identified by a unique id column), each XA as one
 * transaction, rolled-back branches never, in each shard's commit order (except XA commits that cross,
 * as in {@link GlobalBinlogPipelineIT}), under gap-free GTIDs; every file must parse with
 * {@code mariadb-binlog --verbose} and none may read as in use after the clean stop.
 */
@WithShards(count = 3, flavor = ShardFlavor.MARIADB_10_11)
class GlobalBinlogPipelineCrashIT {

    private static final int KILLS = 20;
    private static final long SEED = Long.getLong("crash.seed", 20261122L);
    private static final String FILE_SIZE = "1MB";
    private static final String TXN_THRESHOLD = "256KB";
    private static final int LARGE_ROW = 256 * 1024;
    private static final Path TOOL = Path.of("/usr/bin/mariadb-binlog");

    /** One global transaction read back. */
    private record OutTxn(long sequence, List<Long> ids) {
    }

    @Test
    void everyShardTransactionExactlyOnceAfterTwentyKill9OfTheLivePipeline(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        long t0 = System.nanoTime();
        List<ShardInfo> infos = shards.infos();
        List<ShardPosition> starts = new ArrayList<>();
        for (ShardInfo s : infos) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS crash_" + s.index());
                st.execute("CREATE TABLE IF NOT EXISTS crash_" + s.index() + ".items (id BIGINT NOT NULL PRIMARY KEY,"
                        + " shard INT NOT NULL, payload LONGBLOB) ENGINE=InnoDB");
                try (ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
                    assertThat(rs.next()).as("binlog on %s", s.name()).isTrue();
                    starts.add(ShardPosition.at(rs.getString(1), rs.getLong(2)));
                }
            }
        }
        Path binlogDir = dir.resolve("binlog");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                PipelineCrashChild.class.getName(), binlogDir.toString(), dir.resolve("spill").toString(), FILE_SIZE,
                "interval", TXN_THRESHOLD));
        for (int i = 0; i < infos.size(); i++) {
            ShardInfo s = infos.get(i);
            command.add(String.join(",", s.name(), s.host(), Integer.toString(s.port()), s.replUser(), s.replPassword(),
                    Long.toString(7300 + i), starts.get(i).file(), Long.toString(starts.get(i).position())));
        }
        Random random = new Random(SEED);
        System.out.printf("crash IT: seed %d (-Dcrash.seed=N to repeat another), %d shards, %d kills%n", SEED, infos.size(),
                KILLS);
        Load load = new Load(infos);
        int rotationKills = 0;
        int spillKills = 0;
        int truncatingRestarts = 0;
        int spillMarkers = 0;
        GlobalBinlogWriter.RotationStep[] steps = GlobalBinlogWriter.RotationStep.values();
        try {
            load.start(2, SEED);
            for (int k = 1; k <= KILLS; k++) {
                Child child = Child.start(command, dir.resolve("child-" + k + ".log"));
                String moment;
                long readyAt = System.nanoTime();
                // aim at the pipeline at work, not at its start-up: wait until this child has written something
                String writing = child.awaitWriting(30);
                assertThat(writing).as("child %d writes within 30 s; tail:%n%s", k, child.tail()).isNotNull();
                long writingAt = System.nanoTime();
                if (k > 1) {
                    truncatingRestarts += child.recovery.stream().anyMatch(a -> a.startsWith("truncated ")) ? 1 : 0;
                }
                if (k % 4 == 2) {
                    GlobalBinlogWriter.RotationStep step = steps[(k / 4) % steps.length];
                    child.send("PAUSE " + step);
                    // a 1 MB transaction takes the file past binlog.file.size: a rotation follows it
                    load.largeNow(random.nextInt(infos.size()));
                    String paused = child.await("PAUSED ", 20);
                    moment = paused != null ? "inside a rotation, " + step : "no rotation within 20 s (missed)";
                    rotationKills += paused != null ? 1 : 0;
                } else if (k % 4 == 0) {
                    load.largeNow(random.nextInt(infos.size()));
                    String spilling = child.await("SPILLING ", 20);
                    if (spilling != null) {
                        Thread.sleep(random.nextInt(30));
                        spillKills++;
                    }
                    moment = spilling != null ? "with a spilled transaction in the buffer (" + spilling + ")"
                            : "no spilled transaction within 20 s (missed)";
                } else {
                    int ms = 100 + random.nextInt(1500);
                    Thread.sleep(ms);
                    moment = "at random, " + ms + " ms into writing";
                }
                spillMarkers += child.count("SPILLING ");
                assertThat(child.failure()).as("child %d failed", k).isNull();
                String written = child.last("WRITTEN ");
                long killedAfter = (System.nanoTime() - writingAt) / 1_000_000;
                long startedWriting = (writingAt - readyAt) / 1_000_000;
                child.kill9();
                System.out.printf(Locale.ROOT, "kill %d/%d %s (%s; writing %d ms after READY, killed %d ms later; last report:"
                        + " %s); recovery before it: %s%n", k, KILLS, moment, writing == null ? "NOT WRITING" : "writing",
                        startedWriting, killedAfter, written, summary(child.recovery));
            }
            // the end: no more load; the last child catches up, then stops cleanly
            load.close();
            Child last = Child.start(command, dir.resolve("child-last.log"));
            truncatingRestarts += last.recovery.stream().anyMatch(a -> a.startsWith("truncated ")) ? 1 : 0;
            System.out.printf("final start, recovery: %s%n", summary(last.recovery));
            last.awaitSequence(load.committed.get(), 120);
            last.send("STOP");
            assertThat(last.process.waitFor(60, TimeUnit.SECONDS)).as("last child stops").isTrue();
            last.drain.join(10_000);
            assertThat(last.process.exitValue()).as("last child exit; output tail:%n%s", last.tail()).isZero();
            assertThat(last.lines).as("last child output").anyMatch(l -> l.equals("STOPPED"));
            assertThat(last.failure()).isNull();
        } finally {
            load.close();
            Child.killAll();
        }
        assertThat(load.failure.get()).as("load failure").isNull();

        // what the shards committed, from their own binlogs
        List<List<Unit<Long>>> perShard = new ArrayList<>();
        Map<String, Unit<Long>> units = new LinkedHashMap<>();
        Set<Long> rolledBack = new TreeSet<>();
        for (int i = 0; i < infos.size(); i++) {
            ShardBinlogUnits.read(i, ((EmbeddedMariaDbShard) shards.shard(i)).binlogDirectory(), starts.get(i),
                    db -> db.startsWith("crash_"), GlobalBinlogPipelineCrashIT::rowId, units, rolledBack);
        }
        for (int i = 0; i < infos.size(); i++) {
            int s = i;
            perShard.add(units.values().stream().filter(u -> u.commitOrder().containsKey(s))
                    .sorted(Comparator.comparingLong(u -> u.commitOrder().get(s))).toList());
        }
        List<OutTxn> out = readGlobal(binlogDir);
        Map<Long, Integer> outIndexOfId = new HashMap<>();
        for (int k = 0; k < out.size(); k++) {
            OutTxn t = out.get(k);
            assertThat(t.sequence()).as("GTID sequence of global transaction %d", k).isEqualTo(k + 1);
            for (long id : t.ids()) {
                Integer before = outIndexOfId.put(id, k);
                assertThat(before).as("row id %d written once, found in GTID 0-1-%d and 0-1-%d", id,
                        before == null ? -1 : out.get(before).sequence(), t.sequence()).isNull();
            }
        }
        assertThat(rolledBack).as("rolled-back XA rows").isNotEmpty();
        for (long id : rolledBack) {
            assertThat(outIndexOfId).as("rolled-back row %d", id).doesNotContainKey(id);
        }
        Map<Unit<Long>, Integer> at = new IdentityHashMap<>();
        for (Unit<Long> u : units.values()) {
            Integer k = outIndexOfId.get(u.rows().get(0));
            assertThat(k).as("shard transaction %s (rows %s) in the global binlog", u.key(), u.rows()).isNotNull();
            assertThat(out.get(k).ids()).as("global transaction %d holds exactly %s", out.get(k).sequence(), u.key())
                    .containsExactlyInAnyOrderElementsOf(u.rows());
            at.put(u, k);
        }
        assertThat(out).as("global transactions = committed shard transactions (each XA once)").hasSize(units.size());
        assertThat(units).as("committed transactions in the shard binlogs = commits the load saw").hasSize(
                (int) load.committed.get());
        Map<Unit<Long>, List<Unit<Long>>> next = new IdentityHashMap<>();
        for (List<Unit<Long>> mine : perShard) {
            for (int k = 0; k + 1 < mine.size(); k++) {
                next.computeIfAbsent(mine.get(k), x -> new ArrayList<>()).add(mine.get(k + 1));
            }
        }
        int crossing = 0;
        for (int s = 0; s < perShard.size(); s++) {
            int highest = -1;
            for (Unit<Long> u : perShard.get(s)) {
                int k = at.get(u);
                if (k < highest) {
                    assertThat(ShardBinlogUnits.onCycle(u, next)).as("shard %d: %s written at %d before an earlier commit of the shard (at %d)"
                            + " without crossing XA commits", s, u.key(), k, highest).isTrue();
                    crossing++;
                }
                highest = Math.max(highest, k);
            }
        }
        long xa = units.values().stream().filter(u -> u.commitOrder().size() > 1).count();
        long large = units.values().stream().filter(u -> u.rows().stream().anyMatch(load.largeIds::contains)).count();
        int files;
        try (Stream<Path> list = Files.list(binlogDir)) {
            files = (int) list.filter(p -> BinlogFiles.fileNumber(p.getFileName().toString()).isPresent()).count();
        }
        System.out.printf(Locale.ROOT, "crash IT: %d global transactions = %d committed shard transactions (%d XA over 2-3"
                + " shards, %d large, %d rolled-back rows left out, %d written ahead of a crossing XA) in %d files; %d kills"
                + " inside a rotation, %d with a spilled transaction in the buffer, %d restarts truncated a tail, %d spill"
                + " markers; %.0f s%n", out.size(), units.size(), xa, large, rolledBack.size(), crossing, files, rotationKills,
                spillKills, truncatingRestarts, spillMarkers, (System.nanoTime() - t0) / 1e9);
        assertThat(xa).as("committed XA transactions over several shards").isGreaterThan(10);
        assertThat(large).as("large transactions").isGreaterThan(3);
        assertThat(rotationKills).as("kills inside a rotation").isGreaterThanOrEqualTo(3);
        assertThat(spillKills).as("kills with a spilled transaction in the buffer").isGreaterThanOrEqualTo(3);
        assertThat(truncatingRestarts).as("restarts that cut a torn or unpublished tail").isPositive();
        assertThat(files).as("rotations at binlog.file.size=" + FILE_SIZE).isGreaterThan(KILLS / 2);

        if (!Files.isExecutable(TOOL)) {
            System.out.println("SKIPPED the mariadb-binlog check: " + TOOL + " is not installed");
        } else {
            try (Stream<Path> list = Files.list(binlogDir)) {
                for (Path f : list.filter(p -> BinlogFiles.fileNumber(p.getFileName().toString()).isPresent()).sorted()
                        .toList()) {
                    Process p = new ProcessBuilder(TOOL.toString(), "--no-defaults", "--verbose", f.toString())
                            .redirectErrorStream(true).start();
                    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
                    assertThat(p.exitValue()).as("mariadb-binlog --verbose %s; tail: %s", f.getFileName(),
                            text.substring(Math.max(0, text.length() - 2000))).isZero();
                    assertThat(text).as("mariadb-binlog of %s after the clean stop", f.getFileName())
                            .doesNotContain("Warning: this binlog is either in use or was not closed properly");
                }
            }
        }
        // the clean stop left a STOP that the next start removes to append
        RecoveredBinlog after = BinlogRecovery.recover(BinlogConfig.parse(Map.of("binlog.dir", binlogDir.toString(),
                "binlog.flavor", "mariadb", "binlog.server.id", "1")));
        assertThat(after.actions()).anyMatch(a -> a.contains("was closed cleanly (STOP at"));
        assertThat(after.nextSequence()).isEqualTo(out.size() + 1);
    }

    /** Recovery's actions, each cut to its first 160 characters (the shard positions are long). */
    private static String summary(List<String> actions) {
        return actions.stream().map(a -> a.length() > 160 ? a.substring(0, 160) + "..." : a).toList().toString();
    }

    /** The id column (the first, BIGINT NOT NULL) of the one row of a rows event: after a 1-byte null bitmap. */
    private static long rowId(BinlogEvent e) {
        ByteBuffer rows = e.body(RowsEvent.class).rows().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return rows.getLong(rows.position() + 1);
    }

    /** The global binlog's transactions (MariaDB flavor: GTID, table maps, rows, XID). */
    private static List<OutTxn> readGlobal(Path dir) throws IOException {
        List<OutTxn> out = new ArrayList<>();
        for (Path f : ShardBinlogUnits.files(dir, "binlog\\.\\d+")) {
            BinlogEventDecoder d = new BinlogEventDecoder(f.getFileName().toString(), Files.readAllBytes(f),
                    DecoderOptions.FULL);
            MariaGtidEvent gtid = null;
            List<Long> ids = new ArrayList<>();
            while (d.hasNext()) {
                BinlogEvent e = d.next();
                if (e.body() instanceof MariaGtidEvent g) {
                    gtid = g;
                    ids = new ArrayList<>();
                } else if (e.type() != null && e.type().isRows()) {
                    ids.add(rowId(e));
                } else if (gtid != null && (e.type() == EventType.XID || e.type() == EventType.QUERY)) {
                    assertThat(e.type()).as("%s at %d: only row transactions were loaded", f.getFileName(), e.offset())
                            .isEqualTo(EventType.XID);
                    out.add(new OutTxn(gtid.sequence(), ids));
                    gtid = null;
                }
            }
        }
        return out;
    }

    /** A child JVM and what it printed. */
    private static final class Child {
        private static final List<Process> ALL = Collections.synchronizedList(new ArrayList<>());
        final Process process;
        final Thread drain;
        final List<String> lines = Collections.synchronizedList(new ArrayList<>());
        final BlockingQueue<String> markers = new LinkedBlockingQueue<>();
        final List<String> recovery = new ArrayList<>();

        private Child(Process process, Path log) {
            this.process = process;
            this.drain = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8));
                        java.io.Writer copy = Files.newBufferedWriter(log)) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        lines.add(line);
                        markers.add(line);
                        copy.write(line);
                        copy.write('\n');
                    }
                } catch (IOException e) {
                    // killed
                }
                markers.add("EXITED");
            }, "crash-child-" + process.pid());
            drain.setDaemon(true);
            drain.start();
        }

        static Child start(List<String> command, Path log) throws Exception {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            ALL.add(p);
            Child c = new Child(p, log);
            String ready = c.await("READY", 90);
            assertThat(ready).as("child started; output tail:%n%s", c.tail()).isNotNull();
            synchronized (c.lines) {
                for (String l : c.lines) {
                    if (l.startsWith("RECOVERY ")) {
                        c.recovery.add(l.substring(9));
                    }
                }
                // recovery's own log says the same as the actions the child echoes, and where it resumed
                for (String action : c.recovery) {
                    assertThat(c.lines).as("recovery logged: %s", action).anyMatch(l -> l.endsWith("binlog recovery: " + action));
                }
                assertThat(c.lines).as("recovery logged where it resumes")
                        .anyMatch(l -> l.contains("binlog recovery: resuming after GTID sequence ") && l.contains("shards resume from")
                                || l.contains("no global binlog in") || l.contains("crashed before its first checkpoint"));
            }
            return c;
        }

        /** The first line starting with {@code prefix} from now on, or null after {@code seconds} or an exit. */
        String await(String prefix, int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (true) {
                String line = markers.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null || line.equals("EXITED")) {
                    return null;
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }

        /** The first report of a transaction written by this child, or null after {@code seconds}. */
        String awaitWriting(int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < deadline) {
                String w = await("WRITTEN ", seconds);
                if (w == null) {
                    return null;
                }
                if (!w.split(" ")[1].equals("0")) {
                    return w;
                }
            }
            return null;
        }

        /**
         * Waits until the child has written GTID sequence {@code expected} (as many global transactions as the
         * load committed), then 2 s more, so that anything written twice would show.
         */
        void awaitSequence(long expected, int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < deadline) {
                String w = await("WRITTEN ", 5);
                assertThat(w).as("child reports; tail:%n%s", tail()).isNotNull();
                if (Long.parseLong(w.split(" ")[3]) >= expected) {
                    Thread.sleep(2_000);
                    return;
                }
            }
            throw new AssertionError("the last child did not reach GTID sequence " + expected + " in " + seconds
                    + " s; tail:\n" + tail());
        }

        void send(String line) throws IOException {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        int count(String prefix) {
            synchronized (lines) {
                return (int) lines.stream().filter(l -> l.startsWith(prefix)).count();
            }
        }

        String last(String prefix) {
            synchronized (lines) {
                for (int i = lines.size() - 1; i >= 0; i--) {
                    if (lines.get(i).startsWith(prefix)) {
                        return lines.get(i).substring(prefix.length());
                    }
                }
            }
            return null;
        }

        String failure() {
            return last("FAILED ");
        }

        String tail() {
            synchronized (lines) {
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
            }
        }

        /** A real SIGKILL. */
        void kill9() throws Exception {
            assertThat(process.isAlive()).as("child alive when killed; tail:%n%s", tail()).isTrue();
            Process kill = new ProcessBuilder("kill", "-9", Long.toString(process.pid())).start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as("exit status after kill -9").isEqualTo(137);
            drain.join(10_000);
        }

        static void killAll() {
            synchronized (ALL) {
                for (Process p : ALL) {
                    p.destroyForcibly();
                }
            }
        }
    }

    /**
     * Writers on every shard: single-shard transactions of 1-3 rows, XA over 2-3 shards (one in six rolled
     * back), and now and then a large transaction (4 rows of {@value #LARGE_ROW} bytes, single-shard or
     * XA). Every row has a unique id.
     */
    private static final class Load implements AutoCloseable {
        private final List<ShardInfo> infos;
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicBoolean running = new AtomicBoolean();
        private final AtomicLong ids = new AtomicLong();
        final Set<Long> largeIds = Collections.synchronizedSet(new TreeSet<>());
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        /** Transactions committed (an XA counted once): each must become one global transaction. */
        final AtomicLong committed = new AtomicLong();

        Load(List<ShardInfo> infos) {
            this.infos = infos;
        }

        void start(int count, long seed) {
            running.set(true);
            for (int n = 0; n < count; n++) {
                Random random = new Random(seed + n);
                int me = n;
                Thread t = new Thread(() -> run(random, me), "crash-load-" + n);
                t.start();
                threads.add(t);
            }
        }

        private void run(Random random, int me) {
            List<Connection> cs = new ArrayList<>();
            try {
                for (ShardInfo s : infos) {
                    cs.add(s.openAdminConnection());
                }
                for (long step = 0; running.get(); step++) {
                    int kind = random.nextInt(100);
                    boolean large = kind == 0 && random.nextInt(3) == 0;
                    if (kind % 4 == 0) {
                        xa(cs, random, "c" + me + "-" + step, large);
                    } else {
                        int shard = random.nextInt(cs.size());
                        Connection c = cs.get(shard);
                        c.setAutoCommit(false);
                        for (int r = large ? 4 : 1 + random.nextInt(3); r > 0; r--) {
                            insert(c, shard, random, large);
                        }
                        c.commit();
                        c.setAutoCommit(true);
                        committed.incrementAndGet();
                    }
                    Thread.sleep(5 + random.nextInt(20));
                }
            } catch (Exception e) {
                failure.compareAndSet(null, e);
            } finally {
                for (Connection c : cs) {
                    try {
                        c.close();
                    } catch (SQLException ignored) {
                        // closing after the load
                    }
                }
            }
        }

        /** One large single-shard transaction now, from the caller's thread (to aim a kill at spill or rotation). */
        void largeNow(int shard) throws SQLException {
            try (Connection c = infos.get(shard).openAdminConnection()) {
                c.setAutoCommit(false);
                Random random = new Random(ids.get());
                for (int r = 0; r < 4; r++) {
                    insert(c, shard, random, true);
                }
                c.commit();
            }
            committed.incrementAndGet();
        }

        private void xa(List<Connection> cs, Random random, String gtrid, boolean large) throws SQLException {
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < cs.size(); i++) {
                all.add(i);
            }
            Collections.shuffle(all, random);
            List<Integer> branches = all.subList(0, 2 + random.nextInt(cs.size() - 1));
            boolean rollback = random.nextInt(6) == 0;
            for (int i : branches) {
                try (Statement s = cs.get(i).createStatement()) {
                    String xid = "'" + gtrid + "','b" + i + "'";
                    s.execute("XA START " + xid);
                    for (int r = large ? 2 : 1; r > 0; r--) {
                        insert(cs.get(i), i, random, large);
                    }
                    s.execute("XA END " + xid);
                    s.execute("XA PREPARE " + xid);
                }
            }
            for (int i : branches) {
                try (Statement s = cs.get(i).createStatement()) {
                    s.execute((rollback ? "XA ROLLBACK " : "XA COMMIT ") + "'" + gtrid + "','b" + i + "'");
                }
            }
            if (!rollback) {
                committed.incrementAndGet();
            }
        }

        private void insert(Connection c, int shard, Random random, boolean large) throws SQLException {
            long id = ids.incrementAndGet();
            byte[] payload = new byte[large ? LARGE_ROW : 16 + random.nextInt(200)];
            random.nextBytes(payload);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO crash_" + shard + ".items (id, shard, payload)"
                    + " VALUES (?, ?, ?)")) {
                p.setLong(1, id);
                p.setInt(2, shard);
                p.setBytes(3, payload);
                p.executeUpdate();
            }
            if (large) {
                largeIds.add(id);
            }
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            for (Thread t : threads) {
                t.join(30_000);
            }
        }
    }
}
