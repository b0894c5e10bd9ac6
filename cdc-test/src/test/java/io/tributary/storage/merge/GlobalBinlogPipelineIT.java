package io.tributary.storage.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.QueryEvent;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.heartbeat.HeartbeatWriter;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardReaderConfig;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogFiles;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.binlog.RecoveredBinlog;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole data path on 4 live MariaDB shards: heartbeats every 100 ms, three writer threads running
 * single-shard transactions and XA transactions over 2-4 shards (one in five rolled back), readers ->
 * assembler -> sorter -> merger -> global binlog. The global binlog is then read back with our decoder and
 * compared, transaction by transaction, with what the shards' own binlog files say was committed. Halfway,
 * the pipeline is stopped and restarted from the writer's recovered checkpoints while the load goes on.
 */
@WithShards(count = 4, flavor = ShardFlavor.MARIADB_10_11)
class GlobalBinlogPipelineIT {

    private static final AtomicLong SERVER_IDS = new AtomicLong(7000);


    /** One global transaction read back. */
    private record OutTxn(String gtid, List<String> rows, List<String> tables, String ddl) {
    }

    @Test
    void everyCommittedShardTransactionAppearsOnceInOrderAndXaAsOneAcrossARestart(ShardCluster shards,
            @TempDir Path dir) throws Exception {
        List<ShardInfo> infos = shards.infos();
        createSchema(infos);
        List<ShardPosition> starts = new ArrayList<>();
        for (ShardInfo s : infos) {
            starts.add(masterPosition(s));
        }
        List<ShardReaderConfig> readers = new ArrayList<>();
        for (int i = 0; i < infos.size(); i++) {
            ShardInfo s = infos.get(i);
            readers.add(ShardReaderConfig.of(s.name(), s.host(), s.port(), s.replUser(), s.replPassword(),
                    SERVER_IDS.incrementAndGet(), starts.get(i)));
        }
        BinlogConfig binlog = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.flavor", "mariadb", "binlog.sync", "none", "binlog.file.size", "1MB"));
        Map<String, String> persist = new HashMap<>(Map.of(PersistConfig.PATH, dir.resolve("spill").toString()));
        LivePersistSettings settings = new LivePersistSettings(new PersistConfig(Runtime.getRuntime().maxMemory()), persist);
        Load load = new Load(infos);
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(settings, store);
                HeartbeatWriter heartbeats = new HeartbeatWriter(heartbeatTargets(infos), HeartbeatWriter.DEFAULT_INTERVAL,
                        HeartbeatWriter.DEFAULT_IDLE_INTERVAL, HeartbeatWriter::systemMicros)) {
            heartbeats.start();
            load.start(3);
            long firstRun = runFor(binlog, readers, Map.of(), buffer, heartbeats, Duration.ofSeconds(10), false);
            assertThat(firstRun).as("transactions written before the restart").isPositive();
            // restart from the recovered checkpoints while the load goes on
            RecoveredBinlog recovered = BinlogRecovery.recover(binlog);
            Map<String, ShardCheckpoint> checkpoints = recovered.shardCheckpoints();
            assertThat(checkpoints).as("recovered checkpoints").hasSize(infos.size());
            runFor(binlog, readers, checkpoints, buffer, heartbeats, Duration.ofSeconds(10), true);
            assertThat(buffer.openTransactions()).as("buffers left open after the drain").isZero();
        } finally {
            load.close();
        }
        assertThat(load.failure.get()).as("load failure").isNull();

        Map<String, Unit<String>> expected = new LinkedHashMap<>();
        List<String> rolledBack = new ArrayList<>();
        for (int i = 0; i < infos.size(); i++) {
            ShardBinlogUnits.read(i, ((EmbeddedMariaDbShard) shards.shard(i)).binlogDirectory(), starts.get(i),
                    db -> !db.equals(HeartbeatWriter.DATABASE), ShardBinlogUnits::rowsFingerprint, expected, rolledBack);
        }
        List<OutTxn> out = readGlobal(dir.resolve("binlog"));
        assertThat(load.xaCommits.get()).as("XA commits").isGreaterThan(10);
        assertThat(load.xaRollbacks.get()).as("XA rollbacks").isPositive();
        assertThat(load.onePhase.get()).as("one-phase XA commits").isPositive();
        assertThat(rolledBack).as("rolled-back branches in the shard binlogs").isNotEmpty();

        Map<String, Integer> outIndex = new HashMap<>();
        for (int k = 0; k < out.size(); k++) {
            OutTxn t = out.get(k);
            assertThat(t.ddl()).as("global transaction %s: no DDL after the start", t.gtid()).isNull();
            assertThat(t.tables()).as("table maps of %s", t.gtid()).containsOnly("shop.orders");
            String fp = String.join("|", t.rows());
            assertThat(outIndex.put(fp, k)).as("global transaction %s appears once", t.gtid()).isNull();
        }
        for (String rb : rolledBack) {
            for (OutTxn t : out) {
                assertThat(t.rows()).as("rolled-back branch rows in %s", t.gtid()).doesNotContain(rb);
            }
        }
        // each shard's commit order as edges: a cycle exists only through XA transactions whose commits cross
        Map<Unit<String>, List<Unit<String>>> next = new java.util.IdentityHashMap<>();
        for (int shard = 0; shard < infos.size(); shard++) {
            int s = shard;
            List<Unit<String>> mine = expected.values().stream().filter(t -> t.commitOrder().containsKey(s))
                    .sorted(java.util.Comparator.comparingLong(t -> t.commitOrder().get(s))).toList();
            for (int k = 0; k + 1 < mine.size(); k++) {
                next.computeIfAbsent(mine.get(k), x -> new ArrayList<>()).add(mine.get(k + 1));
            }
        }
        Map<Integer, Integer> lastIndexOfShard = new HashMap<>();
        AtomicLong reorderedXa = new AtomicLong();
        List<Unit<String>> byCommit = new ArrayList<>(expected.values());
        for (int shard = 0; shard < infos.size(); shard++) {
            int s = shard;
            List<Unit<String>> mine = byCommit.stream().filter(t -> t.commitOrder().containsKey(s))
                    .sorted(java.util.Comparator.comparingLong(t -> t.commitOrder().get(s))).toList();
            int last = -1;
            Unit<String> lastTxn = null;
            for (Unit<String> t : mine) {
                Integer at = outIndex.get(String.join("|", t.rows()));
                assertThat(at).as("shard %d transaction %s (shards %s) in the global binlog exactly as one transaction;"
                        + " its rows are in: %s", s, t.key(), t.shards(), where(t, out)).isNotNull();
                if (at < last) {
                    // invariant 4: only an XA transaction whose commits cross another's (a cycle) may be written
                    // ahead of its shard's commit order
                    assertThat(ShardBinlogUnits.onCycle(t, next))
                            .as("shard %d: %s (output %d) written before its predecessor %s (output %d) without a"
                                    + " cycle of crossing XA commits through it", s, t.key(), at, lastTxn.key(), last).isTrue();
                    reorderedXa.incrementAndGet();
                }
                if (at > last) {
                    last = at;
                    lastTxn = t;
                }
            }
            lastIndexOfShard.put(s, last);
        }
        assertThat(out).as("global transactions = committed shard transactions (XA counted once)").hasSize(expected.size());
        long xa = expected.values().stream().filter(t -> t.shards().size() > 1).count();
        assertThat(xa).as("committed XA transactions spanning several shards").isGreaterThan(10);

        System.out.printf("pipeline IT: %d global transactions = %d committed shard transactions (%d XA over 2-4 shards,"
                + " %d rolled-back branches left out), %d XA written ahead of a crossing one, load: %d single-shard,"
                + " %d XA commits, %d XA rollbacks, %d one-phase XA%n", out.size(), expected.size(), xa, rolledBack.size(), reorderedXa.get(),
                load.singles.get(), load.xaCommits.get(), load.xaRollbacks.get(), load.onePhase.get());
        // mariadb-binlog parses what we wrote
        Path tool = Path.of("/usr/bin/mariadb-binlog");
        if (Files.isExecutable(tool)) {
            List<String> cmd = new ArrayList<>(List.of(tool.toString(), "--verbose"));
            try (Stream<Path> files = Files.list(dir.resolve("binlog"))) {
                files.filter(p -> BinlogFiles.fileNumber(p.getFileName().toString()).isPresent()).sorted()
                        .forEach(p -> cmd.add(p.toString()));
            }
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] text = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String s = new String(text, java.nio.charset.StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as("mariadb-binlog exit status; output tail: %s",
                    s.substring(Math.max(0, s.length() - 2000))).isZero();
            assertThat(s).contains("### INSERT INTO `shop`.`orders`").doesNotContain("__cdc_heartbeat__");
        }
    }

    /**
     * Heartbeats as the daemon writes them: one every idle interval (here 10 s) while nothing waits, and promptly
     * once a write waits for the shards to move past it. A single write on an idle cluster is written within about
     * one interval plus the round trip, not at the next idle beat, and the fast beats stop once it is out.
     */
    @Test
    void aSingleWriteOnAnIdleClusterIsWrittenPromptlyThoughIdleBeatsAreRare(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        List<ShardInfo> infos = shards.infos();
        createSchema(infos);
        List<ShardReaderConfig> readers = new ArrayList<>();
        for (ShardInfo s : infos) {
            readers.add(ShardReaderConfig.of(s.name(), s.host(), s.port(), s.replUser(), s.replPassword(),
                    SERVER_IDS.incrementAndGet(), masterPosition(s)));
        }
        BinlogConfig binlog = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.flavor", "mariadb", "binlog.sync", "none"));
        Map<String, String> persist = new HashMap<>(Map.of(PersistConfig.PATH, dir.resolve("spill").toString()));
        LivePersistSettings settings = new LivePersistSettings(new PersistConfig(Runtime.getRuntime().maxMemory()), persist);
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(settings, store);
                HeartbeatWriter heartbeats = new HeartbeatWriter(heartbeatTargets(infos), HeartbeatWriter.DEFAULT_INTERVAL,
                        Duration.ofSeconds(10), HeartbeatWriter::systemMicros);
                GlobalBinlogWriter writer = GlobalBinlogWriter.open(binlog, BinlogRecovery.recover(binlog),
                        Clock.systemUTC())) {
            GlobalBinlogPipeline pipeline = new GlobalBinlogPipeline(readers, Map.of(), writer, buffer,
                    LogicalNames.defaults(), Duration.ofSeconds(60), 1024);
            try {
                heartbeats.demand(pipeline::heartbeatsNeeded);
                pipeline.onHeartbeatsNeeded(heartbeats::wake);
                heartbeats.start();
                pipeline.start();
                Thread.sleep(1500);
                long idleBeat = heartbeats.lastValue();
                Thread.sleep(1500);
                assertThat(heartbeats.lastValue()).as("no beat while nothing waits (idle interval 10 s)")
                        .isEqualTo(idleBeat);
                long t0 = System.nanoTime();
                try (Connection c = infos.get(2).openAdminConnection(); Statement st = c.createStatement()) {
                    st.executeUpdate("INSERT INTO shop_2.orders_0000 VALUES (" + IDLE_WRITE_ID.incrementAndGet()
                            + ", 'idle', 1.00, NULL)");
                }
                while (pipeline.transactionsWritten() == 0 && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20)) {
                    Thread.sleep(5);
                }
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertThat(pipeline.transactionsWritten()).as("the single write, written").isEqualTo(1);
                // one beat (woken at once, or at the next 100 ms tick) plus reading it back from every shard
                assertThat(ms).as("ms from the write's commit to the global binlog").isLessThan(2000);
                assertThat(heartbeats.lastValue()).as("a beat for the write").isGreaterThan(idleBeat);
                Thread.sleep(500);
                long after = heartbeats.lastValue();
                Thread.sleep(1500);
                assertThat(heartbeats.lastValue()).as("no more beats once nothing waits").isEqualTo(after);
                assertThat(pipeline.failure()).as("pipeline failure").isNull();
                System.out.printf("idle pipeline IT: a single write written in %d ms with heartbeats every 10 s while"
                        + " idle%n", ms);
            } finally {
                pipeline.close();
            }
        }
    }

    private static final AtomicLong IDLE_WRITE_ID = new AtomicLong(9_000_000_000L);

    /**
     * Issue 16: a DDL rolled out one shard at a time while rows are written to every shard. {@code ADD COLUMN c INT
     * DEFAULT 7}, then {@code DROP COLUMN v}, then a widening ({@code c} to BIGINT, {@code s} from VARCHAR(10) to
     * VARCHAR(300), whose length prefix grows to 2 bytes) reach shard 0 first and shard 3 last, with inserts on every
     * shard (an update and a delete on shards not yet altered) in between. Every TABLE_MAP of the global binlog has
     * the logical shape as of the DDL written before it (the first copy), and every row image decodes in it with the
     * right values: the default 7 where the shard had no column {@code c} yet. The pipeline restarts from its
     * checkpoints halfway through the first rollout, which must leave nothing out, twice, or in a wrong shape.
     * Last, a narrowing on one shard: the next row of another shard stops the pipeline with an error naming the
     * table, the shard and both shapes, and nothing of it is in the global binlog.
     */
    @Test
    void aDdlRolledOutShardByShardWhileRowsAreWrittenLeavesEveryRowInTheLogicalShape(ShardCluster shards,
            @TempDir Path dir) throws Exception {
        List<ShardInfo> infos = shards.infos();
        List<ShardPosition> starts = new ArrayList<>();
        List<ShardReaderConfig> readers = new ArrayList<>();
        for (ShardInfo s : infos) {
            ShardPosition at = masterPosition(s);
            starts.add(at);
            readers.add(ShardReaderConfig.of(s.name(), s.host(), s.port(), s.replUser(), s.replPassword(),
                    SERVER_IDS.incrementAndGet(), at));
        }
        BinlogConfig binlog = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(),
                "binlog.flavor", "mariadb", "binlog.sync", "none"));
        Map<String, String> persist = new HashMap<>(Map.of(PersistConfig.PATH, dir.resolve("spill").toString()));
        LivePersistSettings settings = new LivePersistSettings(new PersistConfig(Runtime.getRuntime().maxMemory()), persist);
        Map<Long, Long> explicitC = new HashMap<>();
        List<Long> inserted = new ArrayList<>();
        long[] nextId = {1};
        // what each shard has done of the rollout: 0 nothing, 1 ADD c, 2 DROP v, 3 the widening
        int[] step = new int[infos.size()];
        String[] ddl = {"ADD COLUMN c INT DEFAULT 7, ADD COLUMN t TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP",
                "DROP COLUMN v", "MODIFY c BIGINT DEFAULT 7, MODIFY s VARCHAR(300)"};
        int shapesStored = 0;
        try (SpillStore store = SpillStore.open(dir.resolve("spill"));
                TransactionBuffer buffer = new TransactionBuffer(settings, store);
                HeartbeatWriter heartbeats = new HeartbeatWriter(heartbeatTargets(infos), HeartbeatWriter.DEFAULT_INTERVAL,
                        HeartbeatWriter::systemMicros)) {
            heartbeats.start();
            RolloutRun run = new RolloutRun(binlog, readers, Map.of(), buffer);
            try {
                for (ShardInfo s : infos) {
                    rolloutSql(s, "CREATE DATABASE IF NOT EXISTS roll_0" + s.index());
                    rolloutSql(s, "CREATE TABLE " + items(s) + " (id BIGINT PRIMARY KEY, v INT, s VARCHAR(10))"
                            + " DEFAULT CHARSET=utf8mb4");
                }
                for (ShardInfo s : infos) {
                    insertRolloutRow(s, step[s.index()], nextId, inserted, explicitC);
                }
                for (int round = 0; round < ddl.length; round++) {
                    for (ShardInfo altered : infos) {
                        rolloutSql(altered, "ALTER TABLE " + items(altered) + " " + ddl[round]);
                        step[altered.index()] = round + 1;
                        Thread.sleep(60);
                        for (ShardInfo s : infos) {
                            insertRolloutRow(s, step[s.index()], nextId, inserted, explicitC);
                        }
                        if (altered.index() == 1) {
                            // a shard still behind updates and deletes a row of its own, written in its old shape
                            ShardInfo behind = infos.get(infos.size() - 1);
                            long id = inserted.stream().filter(i -> i % 10 == behind.index()).reduce((a, b) -> b)
                                    .orElseThrow();
                            rolloutSql(behind, "UPDATE " + items(behind) + " SET s = 'u" + id + "' WHERE id = " + id);
                            if (round == 1) {
                                rolloutSql(behind, "DELETE FROM " + items(behind) + " WHERE id = " + id);
                            }
                        }
                        if (round == 0 && altered.index() == 1) {
                            // a restart halfway through the first rollout: shards 2 and 3 are still behind
                            run.awaitQuiet();
                            run.close();
                            RecoveredBinlog recovered = BinlogRecovery.recover(binlog);
                            shapesStored = recovered.checkpoint().orElseThrow().ddl().shapes().size();
                            run = new RolloutRun(binlog, readers, recovered.shardCheckpoints(), buffer);
                        }
                    }
                }
                run.awaitQuiet();
                // a narrowing on shard 0 (c back to INT): shard 1's next row, still BIGINT, cannot be written in it
                rolloutSql(infos.get(0), "ALTER TABLE " + items(infos.get(0)) + " MODIFY c INT DEFAULT 7");
                Thread.sleep(1100);
                long refused = nextId[0]++ * 10 + 1;
                rolloutSql(infos.get(1), "INSERT INTO " + items(infos.get(1)) + " (id, s, c) VALUES (" + refused
                        + ", 's" + refused + "', " + (100 + refused) + ")");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (run.pipeline.failure() == null && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertThat(run.pipeline.failure()).as("the pipeline stops on the narrowing")
                        .isInstanceOf(io.tributary.core.naming.ShapeConflictException.class)
                        .hasMessageContaining("rows of logical table roll.items from shard " + infos.get(1).name()
                                + " (roll_01.items_0001)")
                        .hasMessageContaining("column `c` bigint(20) -> int(11): the logical type is narrower")
                        .hasMessageContaining("Shard's shape: (`id` bigint(20) NOT NULL, `s` varchar(300) utf8mb4,"
                                + " `c` bigint(20) DEFAULT 7, `t` timestamp NOT NULL DEFAULT current_timestamp());"
                                + " logical shape: (`id` bigint(20) NOT NULL, `s` varchar(300) utf8mb4,"
                                + " `c` int(11) DEFAULT 7, `t` timestamp NOT NULL DEFAULT current_timestamp())");
            } finally {
                run.close();
            }
        }
        assertThat(shapesStored).as("rollouts open in the checkpoint of the restart").isEqualTo(1);
        // the logical shape after 0..3 DDL statements written: column names, TABLE_MAP types and metadata
        List<List<String>> names = List.of(List.of("id", "v", "s"), List.of("id", "v", "s", "c", "t"),
                List.of("id", "s", "c", "t"), List.of("id", "s", "c", "t"), List.of("id", "s", "c", "t"));
        io.tributary.core.event.ColumnType ts = io.tributary.core.event.ColumnType.TIMESTAMP2;
        List<List<io.tributary.core.event.ColumnType>> types = List.of(
                List.of(io.tributary.core.event.ColumnType.LONGLONG, io.tributary.core.event.ColumnType.LONG,
                        io.tributary.core.event.ColumnType.VARCHAR),
                List.of(io.tributary.core.event.ColumnType.LONGLONG, io.tributary.core.event.ColumnType.LONG,
                        io.tributary.core.event.ColumnType.VARCHAR, io.tributary.core.event.ColumnType.LONG, ts),
                List.of(io.tributary.core.event.ColumnType.LONGLONG, io.tributary.core.event.ColumnType.VARCHAR,
                        io.tributary.core.event.ColumnType.LONG, ts),
                List.of(io.tributary.core.event.ColumnType.LONGLONG, io.tributary.core.event.ColumnType.VARCHAR,
                        io.tributary.core.event.ColumnType.LONGLONG, ts),
                List.of(io.tributary.core.event.ColumnType.LONGLONG, io.tributary.core.event.ColumnType.VARCHAR,
                        io.tributary.core.event.ColumnType.LONG, ts));
        List<Integer> varcharBytes = List.of(40, 40, 40, 1200, 1200);
        int phase = -1;
        Map<Long, Integer> writes = new HashMap<>();
        int defaults = 0;
        int rowTimes = 0;
        int updates = 0;
        int deletes = 0;
        List<String> ddlOut = new ArrayList<>();
        Map<Integer, java.util.Set<Long>> idsByPhase = new java.util.TreeMap<>();
        io.tributary.core.event.rows.RowsEventDecoder rows = new io.tributary.core.event.rows.RowsEventDecoder("global");
        for (Path f : ShardBinlogUnits.files(dir.resolve("binlog"), "binlog\\.\\d+")) {
            BinlogEventDecoder d = new BinlogEventDecoder(f.getFileName().toString(), Files.readAllBytes(f),
                    DecoderOptions.FULL);
            while (d.hasNext()) {
                BinlogEvent e = d.next();
                if (e.body() instanceof QueryEvent q && q.sql().contains("items")) {
                    ddlOut.add(q.sql());
                    phase++;
                } else if (e.body() instanceof TableMapEvent m && m.table().equals("items")) {
                    String where = "phase " + phase + ", TABLE_MAP at " + f.getFileName() + ":" + e.offset();
                    assertThat(m.database()).isEqualTo("roll");
                    assertThat(m.columnTypes()).as(where).isEqualTo(types.get(phase));
                    int vc = names.get(phase).indexOf("s");
                    assertThat(m.metadata().get(vc)).as(where + ": VARCHAR bytes").isEqualTo(varcharBytes.get(phase));
                    rows.remember(m);
                    idsByPhase.computeIfAbsent(phase, k -> new java.util.TreeSet<>()).add(m.tableId());
                } else if (e.type() != null && e.type().isRows() && rows.tableMap(RowsEvent.tableIdOf(e)) != null) {
                    for (io.tributary.core.event.rows.RowChange c : rows.decode(e)) {
                        for (io.tributary.core.event.rows.Row r : java.util.Arrays.asList(c.before(), c.after())) {
                            if (r == null) {
                                continue;
                            }
                            List<String> cols = names.get(phase);
                            long id = ((Number) r.get(0)).longValue();
                            String where = "phase " + phase + ", row " + id + " at " + f.getFileName() + ":" + e.offset();
                            assertThat(r.columnCount()).as(where).isEqualTo(cols.size());
                            Object sv = r.get(cols.indexOf("s"));
                            assertThat(sv instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : sv)
                                    .as(where).isIn("s" + id, "u" + id);
                            if (cols.contains("v")) {
                                assertThat(((Number) r.get(cols.indexOf("v"))).longValue()).as(where).isEqualTo(id);
                            }
                            if (cols.contains("c")) {
                                long expected = explicitC.getOrDefault(id, 7L);
                                assertThat(((Number) r.get(cols.indexOf("c"))).longValue()).as(where + " c").isEqualTo(expected);
                                defaults += expected == 7L ? 1 : 0;
                            }
                        }
                        List<String> cols = names.get(phase);
                        if (c.before() == null && cols.contains("t")) {
                            // CURRENT_TIMESTAMP: the row's own time, the statement's (its rows event's), rewritten or not
                            assertThat(c.after().get(cols.indexOf("t"))).as("phase " + phase + ", row "
                                    + c.after().get(0) + ": t").isEqualTo(java.time.Instant.ofEpochSecond(
                                            e.header().timestamp()));
                            rowTimes += ((Number) c.after().get(cols.indexOf("c"))).longValue() == 7L ? 1 : 0;
                        }
                        if (c.before() == null) {
                            writes.merge(((Number) c.after().get(0)).longValue(), 1, Integer::sum);
                        } else if (c.after() == null) {
                            deletes++;
                        } else {
                            updates++;
                        }
                    }
                }
            }
        }
        assertThat(ddlOut).as("each DDL once, with logical names").containsExactly(
                "CREATE TABLE roll.items (id BIGINT PRIMARY KEY, v INT, s VARCHAR(10)) DEFAULT CHARSET=utf8mb4",
                "ALTER TABLE roll.items " + ddl[0], "ALTER TABLE roll.items " + ddl[1], "ALTER TABLE roll.items " + ddl[2],
                "ALTER TABLE roll.items MODIFY c INT DEFAULT 7");
        assertThat(writes.keySet()).as("every row inserted, none of the refused transaction")
                .containsExactlyInAnyOrderElementsOf(inserted);
        assertThat(writes.values()).as("each once").containsOnly(1);
        assertThat(idsByPhase.values()).as("one table id per shape: rewritten table maps have the layout (and the"
                + " column names) of the altered shards' own").allMatch(ids -> ids.size() == 1);
        assertThat(updates).as("updates").isEqualTo(3);
        assertThat(deletes).as("deletes").isEqualTo(1);
        assertThat(defaults).as("row images given the default of c (rows of shards not yet altered)").isGreaterThan(5);
        assertThat(rowTimes).as("inserts of shards not yet altered given t = their rows event's time").isGreaterThan(3);
        System.out.printf("rollout IT: %d rows, %d updates, %d deletes, %d images given c's default, %d inserts the row's"
                + " time%n", writes.size(), updates, deletes, defaults, rowTimes);
    }

    /** A pipeline and its writer, started from the given checkpoints. */
    private static final class RolloutRun implements AutoCloseable {
        final GlobalBinlogWriter writer;
        final GlobalBinlogPipeline pipeline;

        RolloutRun(BinlogConfig binlog, List<ShardReaderConfig> readers, Map<String, ShardCheckpoint> from,
                TransactionBuffer buffer) throws Exception {
            writer = GlobalBinlogWriter.open(binlog, BinlogRecovery.recover(binlog), Clock.systemUTC());
            pipeline = new GlobalBinlogPipeline(readers, from, writer, buffer, LogicalNames.defaults(),
                    Duration.ofSeconds(60), 1024);
            pipeline.start();
        }

        /** Waits until nothing more is written for 2 s (heartbeats keep coming). */
        void awaitQuiet() throws InterruptedException {
            long last = -1;
            long stableSince = System.nanoTime();
            while (System.nanoTime() - stableSince < TimeUnit.SECONDS.toNanos(2)) {
                Thread.sleep(200);
                assertThat(pipeline.failure()).as("pipeline failure").isNull();
                long now = pipeline.transactionsWritten();
                if (now != last) {
                    last = now;
                    stableSince = System.nanoTime();
                }
            }
        }

        @Override
        public void close() throws Exception {
            try {
                pipeline.close();
            } finally {
                writer.close();
            }
        }
    }

    private static String items(ShardInfo s) {
        return "roll_0" + s.index() + ".items_000" + s.index();
    }

    private static void rolloutSql(ShardInfo s, String sql) throws SQLException {
        try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Inserts a row in the shard's current shape: ids end with the shard index; c is given once the shard has it. */
    private static void insertRolloutRow(ShardInfo s, int step, long[] nextId, List<Long> inserted,
            Map<Long, Long> explicitC) throws SQLException {
        long id = nextId[0]++ * 10 + s.index();
        String sql;
        if (step == 0) {
            sql = "INSERT INTO " + items(s) + " (id, v, s) VALUES (" + id + ", " + id + ", 's" + id + "')";
        } else {
            explicitC.put(id, 100 + id);
            sql = step == 1 ? "INSERT INTO " + items(s) + " (id, v, s, c) VALUES (" + id + ", " + id + ", 's" + id + "', "
                    + (100 + id) + ")"
                    : "INSERT INTO " + items(s) + " (id, s, c) VALUES (" + id + ", 's" + id + "', " + (100 + id) + ")";
        }
        rolloutSql(s, sql);
        inserted.add(id);
    }

    /** For a failure message: the output transactions holding each of {@code t}'s rows. */
    private static String where(Unit<String> t, List<OutTxn> out) {
        StringBuilder b = new StringBuilder();
        for (String row : t.rows()) {
            b.append("\n  row ").append(row, 0, Math.min(40, row.length())).append("... in");
            for (int k = 0; k < out.size(); k++) {
                if (out.get(k).rows().contains(row)) {
                    b.append(' ').append(k).append(' ').append(out.get(k).gtid()).append(" (").append(out.get(k).rows().size())
                            .append(" rows)");
                }
            }
        }
        return b.toString();
    }

    /**
     * Runs a pipeline for {@code duration}, its heartbeats wired as the daemon wires them (fast only while something
     * waits for them); when {@code drain}, stops the load first and waits for the output.
     */
    private long runFor(BinlogConfig binlog, List<ShardReaderConfig> readers, Map<String, ShardCheckpoint> from,
            TransactionBuffer buffer, HeartbeatWriter heartbeats, Duration duration, boolean drain) throws Exception {
        RecoveredBinlog recovered = BinlogRecovery.recover(binlog);
        try (GlobalBinlogWriter writer = GlobalBinlogWriter.open(binlog, recovered, Clock.systemUTC())) {
            GlobalBinlogPipeline pipeline = new GlobalBinlogPipeline(readers, from, writer, buffer, LogicalNames.defaults(),
                    Duration.ofSeconds(60), 1024);
            try {
                heartbeats.demand(pipeline::heartbeatsNeeded);
                pipeline.onHeartbeatsNeeded(heartbeats::wake);
                pipeline.start();
                Thread.sleep(duration.toMillis());
                if (drain) {
                    Load.stopAll();
                    // heartbeats keep going: wait until nothing more comes for a while
                    long last = -1;
                    long stableSince = System.nanoTime();
                    while (System.nanoTime() - stableSince < TimeUnit.SECONDS.toNanos(2)) {
                        Thread.sleep(200);
                        long now = pipeline.transactionsWritten();
                        if (now != last) {
                            last = now;
                            stableSince = System.nanoTime();
                        }
                    }
                }
                assertThat(pipeline.failure()).as("pipeline failure").isNull();
                return pipeline.transactionsWritten();
            } finally {
                pipeline.close();
            }
        }
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
                for (int t = 0; t < 2; t++) {
                    st.execute("CREATE TABLE IF NOT EXISTS shop_" + s.index() + ".orders_000" + t
                            + " (id BIGINT PRIMARY KEY, customer VARCHAR(64) NOT NULL, amount DECIMAL(12,2) NOT NULL,"
                            + " note VARCHAR(255)) ENGINE=InnoDB");
                }
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

    /** Concurrent writers: single-shard transactions and XA over 2-4 shards, one in five XA rolled back. */
    private static final class Load implements AutoCloseable {
        private static final AtomicBoolean RUNNING = new AtomicBoolean();
        private static final AtomicLong IDS = new AtomicLong();
        private final List<ShardInfo> infos;
        private final List<Thread> threads = new ArrayList<>();
        final AtomicLong xaCommits = new AtomicLong();
        final AtomicLong xaRollbacks = new AtomicLong();
        final AtomicLong singles = new AtomicLong();
        final AtomicLong onePhase = new AtomicLong();
        final java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();

        Load(List<ShardInfo> infos) {
            this.infos = infos;
        }

        static void stopAll() {
            RUNNING.set(false);
        }

        void start(int threadCount) {
            RUNNING.set(true);
            for (int n = 0; n < threadCount; n++) {
                long seed = 42 + n;
                int me = n;
                Thread t = new Thread(() -> run(seed, me), "load-" + n);
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
                while (RUNNING.get()) {
                    step++;
                    int kind = random.nextInt(20);
                    if (kind < 5) {
                        xa(cs, random, "t" + me + "-" + step);
                    } else if (kind == 5) {
                        onePhase(cs, random, "t" + me + "-" + step);
                    } else {
                        int shard = random.nextInt(cs.size());
                        Connection c = cs.get(shard);
                        c.setAutoCommit(false);
                        for (int r = 1 + random.nextInt(3); r > 0; r--) {
                            insert(c, shard, random);
                        }
                        c.commit();
                        c.setAutoCommit(true);
                        singles.incrementAndGet();
                    }
                    Thread.sleep(random.nextInt(5));
                }
            } catch (Exception e) {
                failure.compareAndSet(null, e);
            } finally {
                for (Connection c : cs) {
                    try {
                        c.close();
                    } catch (SQLException ignored) {
                        // closing after the test
                    }
                }
            }
        }

        /** XA on one shard committed in one phase: an ordinary transaction of that shard. */
        private void onePhase(List<Connection> cs, Random random, String gtrid) throws SQLException {
            int i = random.nextInt(cs.size());
            try (Statement s = cs.get(i).createStatement()) {
                String xid = "'" + gtrid + "','one'";
                s.execute("XA START " + xid);
                insert(cs.get(i), i, random);
                s.execute("XA END " + xid);
                s.execute("XA COMMIT " + xid + " ONE PHASE");
            }
            onePhase.incrementAndGet();
        }

        private void xa(List<Connection> cs, Random random, String gtrid) throws SQLException {
            List<Integer> all = new ArrayList<>(List.of(0, 1, 2, 3));
            java.util.Collections.shuffle(all, random);
            List<Integer> branches = all.subList(0, 2 + random.nextInt(3));
            boolean rollback = random.nextInt(5) == 0;
            for (int i : branches) {
                try (Statement s = cs.get(i).createStatement()) {
                    String xid = "'" + gtrid + "','b" + i + "'";
                    s.execute("XA START " + xid);
                    insert(cs.get(i), i, random);
                    s.execute("XA END " + xid);
                    s.execute("XA PREPARE " + xid);
                }
            }
            for (int i : branches) {
                try (Statement s = cs.get(i).createStatement()) {
                    s.execute((rollback ? "XA ROLLBACK " : "XA COMMIT ") + "'" + gtrid + "','b" + i + "'");
                }
            }
            (rollback ? xaRollbacks : xaCommits).incrementAndGet();
        }

        private static void insert(Connection c, int shard, Random random) throws SQLException {
            long id = IDS.incrementAndGet();
            try (PreparedStatement p = c.prepareStatement("INSERT INTO shop_" + shard + ".orders_000" + (id % 2)
                    + " (id, customer, amount, note) VALUES (?, ?, ?, ?)")) {
                p.setLong(1, id);
                p.setString(2, "customer-" + random.nextInt(1000));
                p.setBigDecimal(3, java.math.BigDecimal.valueOf(random.nextInt(100_000), 2));
                p.setString(4, random.nextInt(3) == 0 ? null : "note " + Long.toHexString(random.nextLong()));
                p.executeUpdate();
            }
        }

        @Override
        public void close() throws InterruptedException {
            RUNNING.set(false);
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
            List<String> tables = new ArrayList<>();
            while (d.hasNext()) {
                BinlogEvent e = d.next();
                if (e.body() instanceof MariaGtidEvent g) {
                    gtid = g.gtid();
                    rows = new ArrayList<>();
                    tables = new ArrayList<>();
                } else if (e.body() instanceof TableMapEvent m) {
                    tables.add(m.database() + "." + m.table());
                } else if (e.type() != null && e.type().isRows()) {
                    rows.add(ShardBinlogUnits.rowsFingerprint(e));
                } else if (gtid != null && e.type() == EventType.XID) {
                    out.add(new OutTxn(gtid, rows, tables, null));
                    gtid = null;
                } else if (gtid != null && e.body() instanceof QueryEvent q) {
                    out.add(new OutTxn(gtid, rows, tables, q.sql()));
                    gtid = null;
                }
            }
        }
        return out;
    }
}
