package io.tributary.storage.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.QueryEvent;
import io.tributary.core.heartbeat.HeartbeatWriter;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardReaderConfig;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.merge.ShardBinlogUnits.Unit;
import io.tributary.storage.pipeline.GlobalBinlogPipeline;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.EmbeddedMariaDbShard;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardFlavor;
import io.tributary.test.shard.ShardInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, catch-up on 4 live MariaDB shards: the shards take writes while no pipeline runs and nothing writes
 * heartbeats (single-shard transactions, XA over 2-4 shards with branch commits spread over time, rollbacks, 2 000-row
 * transactions), then the pipeline starts with its heartbeats, as the daemon does after an outage. The history of the
 * outage has no heartbeat: the sorter orders it by commit timestamps and writes it as the readers go, in a buffer of
 * 8 MB that stays under its limit with nothing spilled. The global binlog holds every committed transaction once, XA
 * as one, in each shard's order; a second pipeline over the same shard binlogs, from scratch, writes the same bytes.
 * It prints the time to the first global transaction and the catch-up rate beside a raw {@code mariadb-binlog
 * --read-from-remote-server --raw} of the same binlogs (docs/benchmarks.md, "Catch-up").
 */
@WithShards(count = 4, flavor = ShardFlavor.MARIADB_10_11)
class CatchUpPipelineIT {

    private static final AtomicLong SERVER_IDS = new AtomicLong(7400);
    /** The buffer's limit in MB: small, so that bounded memory is tested; {@code -Dtributary.catchup.memoryMb=64} to measure. */
    private static final int MEMORY_MB = Integer.getInteger("tributary.catchup.memoryMb", 8);
    private static final String MEMORY_LIMIT = MEMORY_MB + "MB";
    private static final long MEMORY_LIMIT_BYTES = MEMORY_MB * 1024L * 1024;
    private static final int LOAD_SECONDS = Integer.getInteger("tributary.catchup.loadSeconds", 20);

    /** One global transaction read back: its rows' fingerprints. */
    private record OutTxn(String gtid, List<String> rows) {
    }

    /** What one pipeline run over the backlog showed. */
    private record Run(long firstMillis, long caughtUpMillis, long writtenAtFirstSample, int samplesWhileCatchingUp,
            long peakBytes, long spilledBytes, long holds) {
    }

    @Test
    void aBacklogWithoutHeartbeatsIsWrittenAsItIsReadInBoundedMemoryAndTheSameTwice(ShardCluster shards,
            @TempDir Path dir) throws Exception {
        List<ShardInfo> infos = shards.infos();
        createSchema(infos);
        List<ShardPosition> starts = new ArrayList<>();
        for (ShardInfo s : infos) {
            starts.add(masterPosition(s));
        }
        // the outage: writes, no pipeline, no heartbeats
        Load load = new Load(infos);
        load.start(4);
        Thread.sleep(TimeUnit.SECONDS.toMillis(LOAD_SECONDS));
        load.close();
        assertThat(load.failure.get()).as("load failure").isNull();

        Map<String, Unit<String>> expected = new LinkedHashMap<>();
        List<String> rolledBack = new ArrayList<>();
        long backlogBytes = 0;
        for (int i = 0; i < infos.size(); i++) {
            Path binlogs = ((EmbeddedMariaDbShard) shards.shard(i)).binlogDirectory();
            ShardBinlogUnits.read(i, binlogs, starts.get(i), db -> !db.equals(HeartbeatWriter.DATABASE),
                    ShardBinlogUnits::rowsFingerprint, expected, rolledBack);
            backlogBytes += bytesFrom(binlogs, starts.get(i));
        }
        assertThat(load.xaCommits.get()).as("XA commits").isGreaterThan(20);
        assertThat(load.xaRollbacks.get()).as("XA rollbacks").isPositive();
        assertThat(load.large.get()).as("2 000-row transactions").isPositive();
        if (MEMORY_MB == 8) {
            // bounded memory is what the default limit tests; a larger one (to measure the rate) may hold it all
            assertThat(backlogBytes).as("backlog bytes").isGreaterThan(2 * MEMORY_LIMIT_BYTES);
        }

        // the daemon starts again: its heartbeats begin, after the backlog in every shard's binlog
        Run first;
        try (HeartbeatWriter heartbeats = new HeartbeatWriter(heartbeatTargets(infos), HeartbeatWriter.DEFAULT_INTERVAL,
                HeartbeatWriter.DEFAULT_IDLE_INTERVAL, HeartbeatWriter::systemMicros)) {
            heartbeats.start();
            first = run(dir.resolve("first"), infos, starts, expected.size(), heartbeats);
        }
        // a second pipeline from scratch over the same shard binlogs (the outage's history and the first run's beats)
        Run second = run(dir.resolve("second"), infos, starts, expected.size(), null);

        // within 2 s of the readers starting; the first run's JVM is cold (class loading, JIT), and on a machine
        // shared with other builds it took up to 2.3 s: it gets 5 s, the second (warm, as a running daemon) 2 s
        assertThat(first.firstMillis()).as("time to the first global transaction (ms), cold JVM").isLessThan(5_000);
        assertThat(second.firstMillis()).as("time to the first global transaction (ms)").isLessThan(2_000);
        for (Run r : List.of(first, second)) {
            assertThat(r.writtenAtFirstSample()).as("global transactions in the first sample that had any: written as"
                    + " the backlog is read, not at its end").isLessThan(expected.size() / 2);
            assertThat(r.samplesWhileCatchingUp()).as("samples (20 ms apart) with some, not all, written").isGreaterThan(3);
            assertThat(r.peakBytes()).as("buffer peak, by its own accounting").isPositive().isLessThan(MEMORY_LIMIT_BYTES);
            assertThat(r.spilledBytes()).as("bytes spilled: closed transactions are written, not spilled").isZero();
        }
        List<OutTxn> out = readGlobal(dir.resolve("first/binlog"));
        verify(out, expected, rolledBack, infos.size());
        List<Path> files = ShardBinlogUnits.files(dir.resolve("first/binlog"), "binlog\\.\\d+");
        assertThat(files).isNotEmpty();
        for (Path f : files) {
            Path twin = dir.resolve("second/binlog").resolve(f.getFileName());
            assertThat(Files.mismatch(f, twin)).as("%s: the same bytes from the same shard binlogs", f.getFileName())
                    .isEqualTo(-1L);
        }
        assertThat(ShardBinlogUnits.files(dir.resolve("second/binlog"), "binlog\\.\\d+")).hasSameSizeAs(files);

        long raw = rawReadMillis(infos, starts, dir.resolve("raw"));
        double mb = backlogBytes / 1e6;
        System.out.printf("catch-up IT: backlog %.1f MB, %d transactions (%d XA, %d rolled-back branches) over %d shards;"
                + " buffer limit %s%n", mb, expected.size(), load.xaCommits.get(), rolledBack.size(), infos.size(), MEMORY_LIMIT);
        for (Run r : List.of(first, second)) {
            System.out.printf("catch-up IT: %s: first global transaction after %d ms, caught up in %d ms (%.1f MB/s, %.0f"
                    + " transactions/s), buffer peak %.2f MB, spilled %d bytes, reader holds %d%n",
                    r == first ? "after the outage (heartbeats start)" : "second run, from scratch", r.firstMillis(),
                    r.caughtUpMillis(), mb / (r.caughtUpMillis() / 1000.0), expected.size() / (r.caughtUpMillis() / 1000.0),
                    r.peakBytes() / 1e6, r.spilledBytes(), r.holds());
        }
        if (raw > 0) {
            System.out.printf("catch-up IT: raw read (mariadb-binlog --read-from-remote-server --raw, 4 at once): %d ms"
                    + " (%.1f MB/s); catch-up at %.0f%% / %.0f%% of it%n", raw, mb / (raw / 1000.0),
                    100.0 * raw / first.caughtUpMillis(), 100.0 * raw / second.caughtUpMillis());
        }
    }

    /**
     * One pipeline from the start positions until every expected transaction is written, sampled every 20 ms; with
     * {@code heartbeats} (else null) the running writer is told, as in the daemon, when the pipeline waits for beats.
     */
    private Run run(Path dir, List<ShardInfo> infos, List<ShardPosition> starts, int expected, HeartbeatWriter heartbeats)
            throws Exception {
        List<ShardReaderConfig> readers = new ArrayList<>();
        for (int i = 0; i < infos.size(); i++) {
            ShardInfo s = infos.get(i);
            readers.add(ShardReaderConfig.of(s.name(), s.host(), s.port(), s.replUser(), s.replPassword(),
                    SERVER_IDS.incrementAndGet(), starts.get(i)));
        }
        BinlogConfig binlog = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.flavor", "mariadb", "binlog.sync", "none", "binlog.file.size", "4MB", "binlog.server.id", "77"));
        LivePersistSettings settings = new LivePersistSettings(new PersistConfig(Runtime.getRuntime().maxMemory()),
                Map.of(PersistConfig.PATH, dir.resolve("spill").toString(), PersistConfig.MEMORY_LIMIT, MEMORY_LIMIT));
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(settings, store);
                GlobalBinlogWriter writer = GlobalBinlogWriter.open(binlog, BinlogRecovery.recover(binlog), Clock.systemUTC())) {
            GlobalBinlogPipeline pipeline = new GlobalBinlogPipeline(readers, Map.of(), writer, buffer,
                    LogicalNames.defaults(), Duration.ofSeconds(60), 1024);
            try {
                long start = System.nanoTime();
                if (heartbeats != null) {
                    // as the daemon wires them: at the interval while something waits, at once when it starts to
                    heartbeats.demand(pipeline::heartbeatsNeeded);
                    pipeline.onHeartbeatsNeeded(heartbeats::wake);
                }
                pipeline.start();
                long firstAt = -1;
                long atFirstSample = -1;
                int between = 0;
                long deadline = start + TimeUnit.SECONDS.toNanos(Integer.getInteger("tributary.catchup.timeoutSeconds", 120));
                while (true) {
                    Thread.sleep(20);
                    assertThat(pipeline.failure()).as("pipeline failure").isNull();
                    long written = pipeline.transactionsWritten();
                    if (written > 0 && firstAt < 0) {
                        firstAt = System.nanoTime();
                        atFirstSample = written;
                    }
                    if (written > 0 && written < expected) {
                        between++;
                    }
                    if (written >= expected) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(MergeStage.class))
                                .setLevel(ch.qos.logback.classic.Level.DEBUG);
                        Thread.getAllStackTraces().forEach((t, st) -> {
                            if (t.getName().startsWith("shard-reader") || t.getName().startsWith("merge")
                                    || t.getName().startsWith("global-binlog")) {
                                System.out.println("STACK " + t.getName() + " " + t.getState() + " "
                                        + java.util.Arrays.toString(java.util.Arrays.copyOf(st, Math.min(12, st.length))));
                            }
                        });
                        System.out.println("BUFFER " + buffer + " holds " + pipeline.readAheadHolds() + " units "
                                + pipeline.unitsAssembled());
                    }
                    assertThat(System.nanoTime()).as("caught up in time (%d of %d written)", written, expected)
                            .isLessThan(deadline);
                }
                long done = System.nanoTime();
                Thread.sleep(500); // nothing more comes
                assertThat(pipeline.transactionsWritten()).as("global transactions").isEqualTo(expected);
                return new Run(TimeUnit.NANOSECONDS.toMillis(firstAt - start), TimeUnit.NANOSECONDS.toMillis(done - start),
                        atFirstSample, between, buffer.memoryPeak(), buffer.spilledBytesTotal(), pipeline.readAheadHolds());
            } finally {
                pipeline.close();
            }
        }
    }

    /** Every committed transaction once, XA as one and without rolled-back branches, each shard's order kept. */
    private static void verify(List<OutTxn> out, Map<String, Unit<String>> expected, List<String> rolledBack, int shards) {
        Map<String, Integer> outIndex = new HashMap<>();
        for (int k = 0; k < out.size(); k++) {
            assertThat(outIndex.put(String.join("|", out.get(k).rows()), k)).as("%s appears once", out.get(k).gtid())
                    .isNull();
        }
        for (String rb : rolledBack) {
            assertThat(out).noneMatch(t -> t.rows().contains(rb));
        }
        Map<Unit<String>, List<Unit<String>>> next = new IdentityHashMap<>();
        for (int shard = 0; shard < shards; shard++) {
            int s = shard;
            List<Unit<String>> mine = expected.values().stream().filter(t -> t.commitOrder().containsKey(s))
                    .sorted(java.util.Comparator.comparingLong(t -> t.commitOrder().get(s))).toList();
            for (int k = 0; k + 1 < mine.size(); k++) {
                next.computeIfAbsent(mine.get(k), x -> new ArrayList<>()).add(mine.get(k + 1));
            }
        }
        // each shard's order, with every shard's edges known: a cycle goes through several shards
        for (int shard = 0; shard < shards; shard++) {
            int s = shard;
            List<Unit<String>> mine = expected.values().stream().filter(t -> t.commitOrder().containsKey(s))
                    .sorted(java.util.Comparator.comparingLong(t -> t.commitOrder().get(s))).toList();
            int last = -1;
            Unit<String> lastUnit = null;
            for (Unit<String> t : mine) {
                Integer at = outIndex.get(String.join("|", t.rows()));
                assertThat(at).as("shard %d transaction %s (shards %s) in the global binlog as one transaction", s,
                        t.key(), t.shards()).isNotNull();
                if (at < last) {
                    Unit<String> before = lastUnit;
                    assertThat(ShardBinlogUnits.onCycle(t, next)).as("shard %d: %s (shards %s, commit orders %s, output"
                            + " %d) written before %s (shards %s, commit orders %s, output %d) without a cycle of crossing"
                            + " XA commits through it", s, t.key(), t.shards(), t.commitOrder(), at, before.key(),
                            before.shards(), before.commitOrder(), last).isTrue();
                }
                if (at > last) {
                    last = at;
                    lastUnit = t;
                }
            }
        }
        assertThat(out).as("global transactions = committed shard transactions (XA counted once)").hasSize(expected.size());
        assertThat(expected.values().stream().filter(t -> t.shards().size() > 1).count()).as("XA over several shards")
                .isGreaterThan(20);
    }

    /**
     * Reads every shard's binlog from its start file, 4 at once, with {@code mariadb-binlog --read-from-remote-server
     * --raw}: the rate at which the dump protocol gives the same bytes. 0 when the tool is missing.
     */
    private static long rawReadMillis(List<ShardInfo> infos, List<ShardPosition> starts, Path dir) throws Exception {
        Path tool = Path.of("/usr/bin/mariadb-binlog");
        if (!Files.isExecutable(tool)) {
            return 0;
        }
        Files.createDirectories(dir);
        List<Process> ps = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < infos.size(); i++) {
            ShardInfo s = infos.get(i);
            ps.add(new ProcessBuilder(tool.toString(), "--read-from-remote-server", "--raw", "--to-last-log",
                    "--host=" + s.host(), "--port=" + s.port(), "--user=" + s.replUser(), "--password=" + s.replPassword(),
                    "--result-file=" + dir.resolve("s" + i + "-") + "", starts.get(i).file())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("s" + i + ".log").toFile()).start());
        }
        for (Process p : ps) {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("mariadb-binlog exit status").isZero();
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static long bytesFrom(Path binlogs, ShardPosition start) throws IOException {
        long bytes = 0;
        for (Path f : ShardBinlogUnits.files(binlogs, "mariadb-bin\\.\\d+")) {
            String name = f.getFileName().toString();
            if (name.compareTo(start.file()) >= 0) {
                bytes += Files.size(f) - (name.equals(start.file()) ? start.position() : 0);
            }
        }
        return bytes;
    }

    private static List<HeartbeatWriter.Target> heartbeatTargets(List<ShardInfo> infos) {
        List<HeartbeatWriter.Target> t = new ArrayList<>();
        for (ShardInfo s : infos) {
            t.add(new HeartbeatWriter.Target(s.name(), s.host() + ":" + s.port(),
                    () -> DriverManager.getConnection(s.jdbcUrl(), s.replUser(), s.replPassword())));
        }
        return t;
    }

    private static void createSchema(List<ShardInfo> infos) throws SQLException {
        for (ShardInfo s : infos) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS shop_" + s.index());
                st.execute("CREATE TABLE IF NOT EXISTS shop_" + s.index() + ".orders_0000 (id BIGINT PRIMARY KEY,"
                        + " customer VARCHAR(64) NOT NULL, amount DECIMAL(12,2) NOT NULL, note VARCHAR(255)) ENGINE=InnoDB");
            }
        }
    }

    private static ShardPosition masterPosition(ShardInfo s) throws SQLException {
        try (Connection c = s.openAdminConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
            assertThat(rs.next()).as("binlog on %s", s.name()).isTrue();
            return ShardPosition.at(rs.getString(1), rs.getLong(2));
        }
    }

    /**
     * Concurrent writers: single-shard transactions, XA over 2-4 shards (one in five rolled back; the branches commit
     * up to 30 ms apart), and now and then a 2 000-row transaction.
     */
    private static final class Load implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean();
        private final AtomicLong ids = new AtomicLong();
        private final List<ShardInfo> infos;
        private final List<Thread> threads = new ArrayList<>();
        final AtomicLong xaCommits = new AtomicLong();
        final AtomicLong xaRollbacks = new AtomicLong();
        final AtomicLong large = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        Load(List<ShardInfo> infos) {
            this.infos = infos;
        }

        void start(int threadCount) {
            running.set(true);
            for (int n = 0; n < threadCount; n++) {
                long seed = 1800 + n;
                int me = n;
                Thread t = new Thread(() -> run(seed, me), "catchup-load-" + n);
                t.start();
                threads.add(t);
            }
        }

        private void run(long seed, int me) {
            Random random = new Random(seed);
            List<Connection> cs = new ArrayList<>();
            try {
                for (ShardInfo s : infos) {
                    cs.add(s.openAdminConnection());
                }
                long step = 0;
                while (running.get()) {
                    step++;
                    int kind = random.nextInt(400);
                    if (kind < 100) {
                        xa(cs, random, "c" + me + "-" + step);
                    } else {
                        int shard = random.nextInt(cs.size());
                        Connection c = cs.get(shard);
                        c.setAutoCommit(false);
                        int rows = kind == 100 ? 2_000 : 1 + random.nextInt(3);
                        for (int from = 0; from < rows; from += 500) {
                            insert(c, shard, random, Math.min(500, rows - from));
                        }
                        c.commit();
                        c.setAutoCommit(true);
                        if (rows == 2_000) {
                            large.incrementAndGet();
                        }
                    }
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

        private void xa(List<Connection> cs, Random random, String gtrid) throws Exception {
            List<Integer> all = new ArrayList<>(List.of(0, 1, 2, 3));
            Collections.shuffle(all, random);
            List<Integer> branches = all.subList(0, 2 + random.nextInt(3));
            boolean rollback = random.nextInt(5) == 0;
            for (int i : branches) {
                try (Statement s = cs.get(i).createStatement()) {
                    String xid = "'" + gtrid + "','b" + i + "'";
                    s.execute("XA START " + xid);
                    insert(cs.get(i), i, random, 1 + random.nextInt(2));
                    s.execute("XA END " + xid);
                    s.execute("XA PREPARE " + xid);
                }
            }
            for (int i : branches) {
                if (random.nextInt(4) == 0) {
                    Thread.sleep(random.nextInt(30));
                }
                try (Statement s = cs.get(i).createStatement()) {
                    s.execute((rollback ? "XA ROLLBACK " : "XA COMMIT ") + "'" + gtrid + "','b" + i + "'");
                }
            }
            (rollback ? xaRollbacks : xaCommits).incrementAndGet();
        }

        private void insert(Connection c, int shard, Random random, int rows) throws SQLException {
            StringBuilder sql = new StringBuilder("INSERT INTO shop_" + shard + ".orders_0000 (id, customer, amount, note) VALUES ");
            for (int r = 0; r < rows; r++) {
                sql.append(r == 0 ? "(?, ?, ?, ?)" : ", (?, ?, ?, ?)");
            }
            try (PreparedStatement p = c.prepareStatement(sql.toString())) {
                for (int r = 0; r < rows; r++) {
                    p.setLong(4 * r + 1, ids.incrementAndGet());
                    p.setString(4 * r + 2, "customer-" + random.nextInt(1000));
                    p.setBigDecimal(4 * r + 3, java.math.BigDecimal.valueOf(random.nextInt(100_000), 2));
                    p.setString(4 * r + 4, "note " + Long.toHexString(random.nextLong()));
                }
                p.executeUpdate();
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

    /** The global binlog's transactions (MariaDB flavor: GTID ... XID, or GTID + DDL query). */
    private static List<OutTxn> readGlobal(Path dir) throws IOException {
        List<OutTxn> out = new ArrayList<>();
        for (Path f : ShardBinlogUnits.files(dir, "binlog\\.\\d+")) {
            BinlogEventDecoder d = new BinlogEventDecoder(f.getFileName().toString(), Files.readAllBytes(f),
                    DecoderOptions.FULL);
            String gtid = null;
            List<String> rows = new ArrayList<>();
            while (d.hasNext()) {
                BinlogEvent e = d.next();
                if (e.body() instanceof MariaGtidEvent g) {
                    gtid = g.gtid();
                    rows = new ArrayList<>();
                } else if (e.type() != null && e.type().isRows()) {
                    rows.add(ShardBinlogUnits.rowsFingerprint(e));
                } else if (gtid != null && (e.type() == EventType.XID || e.body() instanceof QueryEvent)) {
                    out.add(new OutTxn(gtid, rows));
                    gtid = null;
                }
            }
        }
        return out;
    }
}
