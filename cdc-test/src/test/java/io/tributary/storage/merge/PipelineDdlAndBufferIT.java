package io.tributary.storage.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.QueryEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.heartbeat.HeartbeatWriter;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardReaderConfig;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogRecovery;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.binlog.RecoveredBinlog;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.buffer.TransactionBufferFullException;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline on 2 live MariaDB shards, for what the big {@link GlobalBinlogPipelineIT} does not cover: DDL
 * copies (several physical tables per shard, a restart between the copies), a transaction larger than the
 * buffer with {@code storage.isPersistOn=false}, {@code storage.persist} edits in the middle of a large
 * transaction, and XA branches with one full xid on both shards.
 */
@WithShards(count = 2, flavor = ShardFlavor.MARIADB_10_11)
class PipelineDdlAndBufferIT {

    private static final AtomicLong SERVER_IDS = new AtomicLong(7500);
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Raw bytes of the 48 x 1 MB transaction's events, about: the rows and their table maps. */
    private static final long TXN_BYTES = 48L * ((1 << 20) + 1024);

    @Test
    void theSameDdlOnEveryPhysicalTableAppearsOnceAlsoWithARestartBetweenItsCopies(ShardCluster shards,
            @TempDir Path dir) throws Exception {
        List<ShardInfo> infos = shards.infos();
        for (ShardInfo s : infos) {
            sql(s, "CREATE DATABASE IF NOT EXISTS ddl_" + s.index());
            for (int t = 0; t < 2; t++) {
                sql(s, "CREATE TABLE IF NOT EXISTS ddl_" + s.index() + ".items_000" + t + " (id INT PRIMARY KEY)");
            }
        }
        Setup setup = new Setup(infos, dir, Map.of());
        try (setup) {
            // before the restart: shard 0 alters both its tables, shard 1 one of its two
            alter(infos.get(0), 0, "ADD c1 INT");
            alter(infos.get(0), 1, "ADD c1 INT");
            alter(infos.get(1), 0, "ADD c1 INT");
            try (Run run = setup.run(Map.of())) {
                run.awaitWritten(1);
                run.awaitQuiet();
            }
            RecoveredBinlog recovered = BinlogRecovery.recover(setup.binlog);
            assertThat(recovered.checkpoint().orElseThrow().ddl().statements())
                    .as("the DDL dedup memory stored with the checkpoint").hasSize(1);
            // while stopped: shard 1's last copy, then DROP on all four tables, then ADD again on every table
            alter(infos.get(1), 1, "ADD c1 INT");
            for (int shard = 0; shard < 2; shard++) {
                for (int t = 0; t < 2; t++) {
                    alter(infos.get(shard), t, "DROP c1");
                }
            }
            alter(infos.get(0), 1, "ADD c1 INT");
            try (Run run = setup.run(recovered.shardCheckpoints())) {
                run.awaitWritten(2);
                // the remaining copies of the second ADD arrive after its first copy was written
                alter(infos.get(0), 0, "ADD c1 INT");
                alter(infos.get(1), 1, "ADD c1 INT");
                alter(infos.get(1), 0, "ADD c1 INT");
                alter(infos.get(1), 0, "ADD INDEX ix (c1)");
                run.awaitWritten(3);
                run.awaitQuiet();
            }
        }
        List<String> ddl = new ArrayList<>();
        for (OutTxn t : readGlobal(dir.resolve("binlog"))) {
            ddl.add(t.ddl() == null ? "rows " + t.rows().size() : t.database() + ": " + t.ddl());
        }
        assertThat(ddl).as("the global binlog's transactions").containsExactly(
                "ddl: ALTER TABLE items ADD c1 INT",
                "ddl: ALTER TABLE items DROP c1",
                "ddl: ALTER TABLE items ADD c1 INT",
                "ddl: ALTER TABLE items ADD INDEX ix (c1)");
    }

    @Test
    void withPersistOffATransactionLargerThanTheMemoryLimitStopsThePipelineWithAClearErrorAndWritesNothingOfIt(
            ShardCluster shards, @TempDir Path dir) throws Exception {
        List<ShardInfo> infos = shards.infos();
        createBlobTables(infos);
        Map<String, String> persistOff = Map.of(PersistConfig.IS_PERSIST_ON, "false", PersistConfig.MEMORY_LIMIT, "8MB");
        Setup setup = new Setup(infos, dir, persistOff);
        String bigGtid;
        try (setup) {
            try (Run run = setup.run(Map.of())) {
                insertBlobs(infos.get(0), 1, 4, 1000);
                run.awaitWritten(1);
                bigGtid = insertBlobs(infos.get(1), 100, 24, 1 << 20); // 24 MB in one transaction
                awaitTrue(() -> run.pipeline.failure() != null, "the pipeline to fail on the 24 MB transaction");
                Throwable failure = run.pipeline.failure();
                assertThat(failure).isInstanceOf(TransactionBufferFullException.class);
                assertThat(failure.getMessage()).as("names shard, transaction, size, limit and the keys to change")
                        .contains("shard " + infos.get(1).name(), "transaction " + bigGtid, "storage.memoryLimit=8MB",
                                "(8388608 bytes)", "storage.isPersistOn")
                        .containsPattern("the transaction holds \\d+ bytes in \\d+ events");
                assertThat(run.pipeline.transactionsWritten()).as("nothing of it written").isEqualTo(1);
            }
            assertThat(setup.buffer.openTransactions()).as("buffers left open").isZero();
            assertThat(setup.buffer.memoryUsed()).as("buffer memory after the failure").isZero();
            assertThat(readGlobal(dir.resolve("binlog"))).extracting(t -> t.rows().size()).containsExactly(4);

            // turning spilling on, the restart writes the whole transaction: nothing was lost either
            setup.settings.apply(Map.of(PersistConfig.IS_PERSIST_ON, "true"));
            try (Run run = setup.run(BinlogRecovery.recover(setup.binlog).shardCheckpoints())) {
                run.awaitWritten(1);
                run.awaitQuiet();
            }
            assertThat(setup.buffer.openTransactions()).isZero();
        }
        assertThat(readGlobal(dir.resolve("binlog"))).extracting(t -> t.rows().size()).containsExactly(4, 24);
        assertThat(globalRows(dir.resolve("binlog"))).as("the rows, byte for byte, in the shards' order")
                .isEqualTo(shardRows(shards, setup.starts));
    }

    @Test
    void persistSettingsEditedWhileALargeTransactionIsBufferedApplyToItsLaterEvents(ShardCluster shards,
            @TempDir Path dir) throws Exception {
        List<ShardInfo> infos = shards.infos();
        createBlobTables(infos);
        Setup setup = new Setup(infos, dir, Map.of(PersistConfig.MEMORY_LIMIT, "256MB"));
        long written;
        try (setup) {
            try (Run run = setup.run(Map.of())) {
                // AUTO -> FORCE: what comes after the edit goes to disk, what was in memory stays there
                Edit force = run.editWhileBuffering(infos.get(0), 1_000, Map.of(PersistConfig.MODE, "FORCE"));
                assertThat(force.spilled()).as("bytes spilled after the edit to FORCE (%s): not what was in memory", force)
                        .isLessThanOrEqualTo(TXN_BYTES - force.memoryAtEdit() + (2 << 20));
                setup.settings.apply(Map.of(PersistConfig.MODE, "AUTO"));
                // a lower transaction threshold: the transaction, already above it, moves to disk as a whole
                Edit lower = run.editWhileBuffering(infos.get(1), 10_000, Map.of(PersistConfig.TXN_THRESHOLD, "1MB"));
                assertThat(lower.spilled()).as("bytes spilled after lowering the threshold (%s): all of it", lower)
                        .isGreaterThanOrEqualTo(48L << 20);
                run.awaitQuiet();
                written = run.pipeline.transactionsWritten();
            }
            assertThat(setup.buffer.openTransactions()).isZero();
            assertThat(setup.buffer.spilledBytes()).as("spilled bytes once durable").isZero();
        }
        List<OutTxn> out = readGlobal(dir.resolve("binlog"));
        assertThat(out).as("one global transaction per shard transaction (a late edit is tried again)")
                .hasSize((int) written).hasSizeGreaterThanOrEqualTo(2).allSatisfy(t -> assertThat(t.rows()).hasSize(48));
        assertThat(globalRows(dir.resolve("binlog"))).as("the rows, byte for byte, in the shards' order")
                .isEqualTo(shardRows(shards, setup.starts));
    }

    /**
     * {@code XA START 'same'} on both shards with the default empty bqual: two branches with one full xid, legal
     * since each shard is its own server. Once they stopped the pipeline in the sorter (NullPointerException);
     * they must become one transaction with both shards' rows, also when two such transactions' commits cross.
     */
    @Test
    void theSameXaXidOnTwoShardsIsOneTransactionWithBothShardsRows(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        List<ShardInfo> infos = shards.infos();
        for (ShardInfo s : infos) {
            sql(s, "CREATE DATABASE IF NOT EXISTS xa_" + s.index());
            sql(s, "CREATE TABLE IF NOT EXISTS xa_" + s.index() + ".items_0001 (id INT PRIMARY KEY, name VARCHAR(16))");
        }
        Setup setup = new Setup(infos, dir, Map.of());
        try (setup; Run run = setup.run(Map.of())) {
            xaPrepare(infos, "same", 1);
            xaCommit(infos.get(0), "same");
            xaCommit(infos.get(1), "same");
            run.awaitWritten(1);
            // two more, committed in opposite orders on the two shards: the sorter must break the cycle
            xaPrepare(infos, "x1", 2);
            xaPrepare(infos, "x2", 3);
            xaCommit(infos.get(0), "x1");
            xaCommit(infos.get(0), "x2");
            xaCommit(infos.get(1), "x2");
            xaCommit(infos.get(1), "x1");
            run.awaitWritten(3);
            run.awaitQuiet();
        }
        List<OutTxn> out = readGlobal(dir.resolve("binlog"));
        List<String> shardRows = shardRows(shards, setup.starts);
        assertThat(shardRows).as("rows the shards logged: 3 on each").hasSize(6);
        List<String> shard0 = shardRows.subList(0, 3);
        List<String> shard1 = shardRows.subList(3, 6);
        assertThat(out).as("one global transaction per XA transaction").hasSize(3);
        assertThat(out.get(0).rows()).as("XA 'same': shard 0's row, then shard 1's")
                .containsExactly(shard0.get(0), shard1.get(0));
        for (OutTxn t : out.subList(1, 3)) {
            assertThat(t.rows()).as("a crossing XA transaction: one row of each shard").hasSize(2);
            assertThat(shard0).contains(t.rows().get(0));
            assertThat(shard1).contains(t.rows().get(1));
        }
        assertThat(globalRows(dir.resolve("binlog"))).as("every row once")
                .containsExactlyInAnyOrderElementsOf(shardRows);
    }

    /**
     * On every shard, on a connection of its own: XA START (default bqual), one row {@code id}/{@code xid}, XA END,
     * XA PREPARE. The prepared branch outlives the connection (MariaDB 10.5+), which holds one XA at a time.
     */
    private static void xaPrepare(List<ShardInfo> infos, String xid, int id) throws SQLException {
        for (ShardInfo s : infos) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("XA START '" + xid + "'");
                st.execute("INSERT INTO xa_" + s.index() + ".items_0001 VALUES (" + id + ", '" + xid + "')");
                st.execute("XA END '" + xid + "'");
                st.execute("XA PREPARE '" + xid + "'");
            }
        }
    }

    private static void xaCommit(ShardInfo s, String xid) throws SQLException {
        sql(s, "XA COMMIT '" + xid + "'");
    }

    // ------------------------------------------------------------------------------------------------------

    /** Shards, heartbeats, a buffer and the binlog directory shared by the runs of one test. */
    private static final class Setup implements AutoCloseable {
        final List<ShardInfo> infos;
        final List<ShardPosition> starts = new ArrayList<>();
        final List<ShardReaderConfig> readers = new ArrayList<>();
        final BinlogConfig binlog;
        final LivePersistSettings settings;
        final SpillStore store;
        final TransactionBuffer buffer;
        final HeartbeatWriter heartbeats;

        Setup(List<ShardInfo> infos, Path dir, Map<String, String> persist) throws Exception {
            this.infos = infos;
            for (ShardInfo s : infos) {
                ShardPosition start = masterPosition(s);
                starts.add(start);
                readers.add(ShardReaderConfig.of(s.name(), s.host(), s.port(), s.replUser(), s.replPassword(),
                        SERVER_IDS.incrementAndGet(), start));
            }
            binlog = BinlogConfig.parse(Map.of("binlog.dir", dir.resolve("binlog").toString(), "binlog.flavor", "mariadb",
                    "binlog.sync", "none"));
            Map<String, String> values = new HashMap<>(persist);
            values.put(PersistConfig.PATH, dir.resolve("spill").toString());
            settings = new LivePersistSettings(new PersistConfig(Runtime.getRuntime().maxMemory()), values);
            store = SpillStore.open(dir.resolve("spill"));
            buffer = new TransactionBuffer(settings, store);
            List<HeartbeatWriter.Target> targets = new ArrayList<>();
            for (ShardInfo s : infos) {
                targets.add(new HeartbeatWriter.Target(s.name(), s.host() + ":" + s.port(),
                        () -> DriverManager.getConnection(s.jdbcUrl(), s.replUser(), s.replPassword())));
            }
            heartbeats = new HeartbeatWriter(targets, HeartbeatWriter.DEFAULT_INTERVAL, HeartbeatWriter::systemMicros);
            heartbeats.start();
        }

        /** A pipeline from {@code from} (empty: from the start positions), started. */
        Run run(Map<String, ShardCheckpoint> from) throws IOException {
            return new Run(this, from);
        }

        @Override
        public void close() throws Exception {
            heartbeats.close();
            buffer.close();
            store.close();
        }
    }

    /** An edit in the middle of a transaction: buffer memory it added before the edit, bytes spilled after it. */
    private record Edit(long memoryAtEdit, long spilled) {
    }

    /** One pipeline run with its own writer. */
    private static final class Run implements AutoCloseable {
        final Setup setup;
        final GlobalBinlogWriter writer;
        final GlobalBinlogPipeline pipeline;

        Run(Setup setup, Map<String, ShardCheckpoint> from) throws IOException {
            this.setup = setup;
            RecoveredBinlog recovered = BinlogRecovery.recover(setup.binlog);
            writer = GlobalBinlogWriter.open(setup.binlog, recovered, Clock.systemUTC());
            pipeline = new GlobalBinlogPipeline(setup.readers, from, writer, setup.buffer, LogicalNames.defaults(),
                    Duration.ofSeconds(60), 1024);
            pipeline.start();
        }

        void awaitWritten(long n) throws InterruptedException {
            awaitTrue(() -> pipeline.transactionsWritten() >= n || pipeline.failure() != null,
                    n + " global transactions written");
            assertThat(pipeline.failure()).as("pipeline failure").isNull();
            assertThat(pipeline.transactionsWritten()).isEqualTo(n);
        }

        /** Waits until nothing more is written for 2 s (heartbeats go on) and the written is durable. */
        void awaitQuiet() throws InterruptedException {
            long last = -1;
            long since = System.nanoTime();
            while (System.nanoTime() - since < Duration.ofSeconds(2).toNanos()) {
                Thread.sleep(100);
                long now = pipeline.transactionsWritten();
                if (now != last) {
                    last = now;
                    since = System.nanoTime();
                }
            }
            awaitTrue(() -> writer.durability().current().lastSequence() == writer.lastSequence(), "durable");
            assertThat(pipeline.failure()).as("pipeline failure").isNull();
        }

        /**
         * Commits a transaction of 48 rows of 1 MB on {@code shard} and applies {@code edit} once the buffer holds
         * 4 MB more than before, then waits until the transaction is written. What went to disk is read from the
         * buffer's cumulative spill count, not sampled. An edit that came too late (the transaction was already all
         * buffered, on a busy machine: nothing spilled) is undone and the transaction tried again, up to 3 times.
         */
        Edit editWhileBuffering(ShardInfo shard, int firstId, Map<String, String> edit) throws Exception {
            Map<String, String> before = new HashMap<>();
            edit.keySet().forEach(k -> before.put(k, setup.settings.values().get(k)));
            for (int attempt = 0; ; attempt++) {
                long writtenBefore = pipeline.transactionsWritten();
                long base = setup.buffer.memoryUsed();
                long spilledBefore = setup.buffer.spilledBytesTotal();
                int id = firstId + attempt * 100;
                Thread writerThread = new Thread(() -> {
                    try {
                        insertBlobs(shard, id, 48, 1 << 20);
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }, "blob-writer");
                writerThread.start();
                long deadline = System.nanoTime() + WAIT.toNanos();
                long atEdit = 0;
                boolean applied = false;
                while (pipeline.transactionsWritten() == writtenBefore) {
                    assertThat(pipeline.failure()).as("pipeline failure").isNull();
                    assertThat(System.nanoTime()).as("the transaction written").isLessThan(deadline);
                    if (!applied && (atEdit = setup.buffer.memoryUsed() - base) >= (4 << 20)) {
                        setup.settings.apply(edit);
                        applied = true;
                    }
                    Thread.onSpinWait();
                }
                writerThread.join();
                if (!applied) {
                    setup.settings.apply(edit); // never saw it in the buffer: too late for this one
                }
                Edit seen = new Edit(atEdit, setup.buffer.spilledBytesTotal() - spilledBefore);
                if (seen.spilled() > 0 || attempt == 2) {
                    assertThat(seen.spilled()).as("bytes spilled after %s (3 tries)", edit).isPositive();
                    return seen;
                }
                setup.settings.apply(before);
                System.out.printf("edit %s came after the transaction was buffered (%s); trying again%n", edit, seen);
            }
        }

        @Override
        public void close() throws IOException {
            pipeline.close();
            writer.close();
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static void sql(ShardInfo s, String sql) throws SQLException {
        try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** {@code ALTER TABLE items_000<table> <change>} on shard {@code s}, with {@code ddl_<index>} as default database. */
    private static void alter(ShardInfo s, int table, String change) throws SQLException {
        try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
            st.execute("USE ddl_" + s.index());
            st.execute("ALTER TABLE items_000" + table + " " + change);
        }
    }

    private static void createBlobTables(List<ShardInfo> infos) throws SQLException {
        for (ShardInfo s : infos) {
            sql(s, "CREATE DATABASE IF NOT EXISTS big_" + s.index());
            sql(s, "CREATE TABLE IF NOT EXISTS big_" + s.index() + ".blobs_0001 (id INT PRIMARY KEY, payload LONGBLOB)");
        }
    }

    /** Inserts {@code rows} rows of {@code bytes} bytes in one transaction; returns its GTID. */
    private static String insertBlobs(ShardInfo s, int firstId, int rows, int bytes) throws SQLException {
        try (Connection c = s.openAdminConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement p = c.prepareStatement("INSERT INTO big_" + s.index() + ".blobs_0001 VALUES (?, ?)")) {
                byte[] payload = new byte[bytes];
                for (int r = 0; r < rows; r++) {
                    java.util.Arrays.fill(payload, (byte) ('a' + (firstId + r) % 26));
                    p.setInt(1, firstId + r);
                    p.setBytes(2, payload);
                    p.executeUpdate();
                }
            }
            c.commit();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@last_gtid")) {
                rs.next();
                return rs.getString(1);
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

    private record OutTxn(String database, String ddl, List<String> rows) {
    }

    /** The global binlog's transactions: GTID ... XID, or GTID + DDL query. */
    private static List<OutTxn> readGlobal(Path dir) throws IOException {
        List<OutTxn> out = new ArrayList<>();
        for (Path f : ShardBinlogUnits.files(dir, "binlog\\.\\d+")) {
            BinlogEventDecoder d = new BinlogEventDecoder(f.getFileName().toString(), Files.readAllBytes(f),
                    DecoderOptions.FULL);
            boolean open = false;
            List<String> rows = new ArrayList<>();
            while (d.hasNext()) {
                BinlogEvent e = d.next();
                if (e.body() instanceof MariaGtidEvent) {
                    open = true;
                    rows = new ArrayList<>();
                } else if (e.type() != null && e.type().isRows()) {
                    rows.add(ShardBinlogUnits.rowsFingerprint(e));
                } else if (open && e.type() == io.tributary.core.event.EventType.XID) {
                    out.add(new OutTxn(null, null, rows));
                    open = false;
                } else if (open && e.body() instanceof QueryEvent q && !q.sql().equals("BEGIN")) {
                    out.add(new OutTxn(q.database(), q.sql(), rows));
                    open = false;
                }
            }
        }
        return out;
    }

    /** Every rows event of the global binlog, in order. */
    private static List<String> globalRows(Path dir) throws IOException {
        List<String> rows = new ArrayList<>();
        readGlobal(dir).forEach(t -> rows.addAll(t.rows()));
        return rows;
    }

    /** Every rows event the shards logged after their start positions (heartbeats left out), shard after shard. */
    private static List<String> shardRows(ShardCluster shards, List<ShardPosition> starts) throws Exception {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < starts.size(); i++) {
            ShardPosition start = starts.get(i);
            Path dir = ((EmbeddedMariaDbShard) shards.shard(i)).binlogDirectory();
            for (Path f : ShardBinlogUnits.files(dir, "mariadb-bin\\.\\d+")) {
                String name = f.getFileName().toString();
                if (name.compareTo(start.file()) < 0) {
                    continue;
                }
                BinlogEventDecoder d = new BinlogEventDecoder(name, Files.readAllBytes(f), DecoderOptions.FULL);
                boolean heartbeat = false;
                while (d.hasNext()) {
                    BinlogEvent e = d.next();
                    if (name.equals(start.file()) && e.offset() < start.position()) {
                        continue;
                    }
                    if (e.body() instanceof TableMapEvent m) {
                        heartbeat = m.database().equals(HeartbeatWriter.DATABASE);
                    } else if (e.type() != null && e.type().isRows() && !heartbeat) {
                        rows.add(ShardBinlogUnits.rowsFingerprint(e));
                    }
                }
            }
        }
        return rows;
    }

}
