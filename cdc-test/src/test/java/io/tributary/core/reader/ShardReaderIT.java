package io.tributary.core.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.position.ShardPosition;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardFlavor;
import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shard reader against a real MariaDB 10.11 shard from the project's harness: transactions
 * written over JDBC arrive complete and in order, from a file/position and from a GTID position;
 * wrong credentials and purged positions stop the reader with a clear error; a shard stopped for
 * 10 s mid-stream loses and duplicates nothing; a blocked sink pauses the reader with bounded
 * buffering.
 */
@WithShards(count = 1, flavor = ShardFlavor.MARIADB_10_11)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardReaderIT {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final AtomicInteger SERVER_IDS = new AtomicInteger(5000);

    private static ShardReaderConfig config(ShardInfo shard, ShardPosition start) {
        return new ShardReaderConfig(shard.name(), shard.host(), shard.port(), shard.replUser(), shard.replPassword(),
                SERVER_IDS.incrementAndGet(), start, Duration.ofSeconds(1), false, null, Duration.ofSeconds(10), 10_000,
                64L << 20, new ShardReaderConfig.Backoff(Duration.ofMillis(200), Duration.ofSeconds(2), 2.0, 0));
    }

    /** A fresh database with one table; returns its name. */
    private static String createDatabase(ShardInfo shard) throws SQLException {
        String db = "reader_it_" + DATABASES.incrementAndGet();
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
            s.execute("CREATE TABLE " + db + ".t (id BIGINT AUTO_INCREMENT PRIMARY KEY, txn INT, stmt INT, payload LONGBLOB)");
        }
        return db;
    }

    private static ShardPosition masterStatus(ShardInfo shard) throws SQLException {
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            rs.next();
            return ShardPosition.at(rs.getString(1), rs.getLong(2));
        }
    }

    /** The events of {@code type} (as SHOW BINLOG EVENTS names it) the shard wrote from {@code from} on, in its file. */
    private static int binlogEvents(ShardInfo shard, ShardPosition from, String type) throws SQLException {
        int n = 0;
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW BINLOG EVENTS IN '" + from.file() + "' FROM " + from.position())) {
            while (rs.next()) {
                n += type.equals(rs.getString("Event_type")) ? 1 : 0;
            }
        }
        return n;
    }

    private static String gtidBinlogPos(ShardInfo shard) throws SQLException {
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@global.gtid_binlog_pos")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * Writes {@code txns} transactions of {@code statements} single-row INSERTs each and returns
     * their GTIDs ({@code @@last_gtid}) in commit order.
     */
    private static List<String> write(ShardInfo shard, String db, int firstTxn, int txns, int statements, int payloadBytes)
            throws SQLException {
        List<String> gtids = new ArrayList<>();
        byte[] payload = new byte[payloadBytes];
        try (Connection c = shard.openAdminConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + db + ".t (txn, stmt, payload) VALUES (?, ?, ?)");
                 Statement s = c.createStatement()) {
                for (int t = firstTxn; t < firstTxn + txns; t++) {
                    for (int i = 0; i < statements; i++) {
                        payload[0] = (byte) t;
                        ins.setInt(1, t);
                        ins.setInt(2, i);
                        ins.setBytes(3, payload);
                        ins.executeUpdate();
                    }
                    c.commit();
                    try (ResultSet rs = s.executeQuery("SELECT @@last_gtid")) {
                        rs.next();
                        gtids.add(rs.getString(1));
                    }
                }
            }
        }
        return gtids;
    }

    private static void awaitStreaming(ShardReader reader) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (reader.state() != ShardReader.State.STREAMING) {
            assertThat(System.currentTimeMillis()).as("reader streaming within 10 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static List<String> gtidsOf(List<RecordingSink.Txn> txns) {
        return txns.stream().map(RecordingSink.Txn::gtid).toList();
    }

    @Test
    @Order(1)
    void shouldDeliverTransactionsCompleteAndInOrderFromAFilePosition(ShardCluster cluster) throws Exception {
        ShardInfo shard = cluster.info(0);
        String db = createDatabase(shard);
        ShardPosition start = masterStatus(shard);
        RecordingSink sink = new RecordingSink();
        try (ShardReader reader = new ShardReader(config(shard, start), sink)) {
            reader.start();
            List<String> written = write(shard, db, 0, 50, 3, 100);
            // one transaction with a 20 MB row: its WRITE_ROWS event spans two 16 MB packets
            written = new ArrayList<>(written);
            written.addAll(write(shard, db, 50, 1, 1, 20 << 20));
            Set<String> ours = new HashSet<>(written);
            List<RecordingSink.Txn> got = sink.await(t -> ours.contains(t.gtid()), written.size(), 60_000);
            assertThat(gtidsOf(got)).containsExactlyElementsOf(written);
            for (int i = 0; i < 50; i++) {
                assertThat(got.get(i).count(RecordingSink.WRITE_ROWS_V1)).as("rows events of transaction %s", got.get(i).gtid())
                        .isEqualTo(3);
                assertThat(got.get(i).types().get(got.get(i).types().size() - 1)).as("last event is XID").isEqualTo(16);
            }
            assertThat(sink.largestEvent()).as("largest event").isGreaterThan(20L << 20);
            // the statement text MariaDB writes beside each rows event is read past, not handed on: the global
            // binlog does not carry it (and the position still ends where the shard's binlog ends, below)
            assertThat(binlogEvents(shard, start, "Annotate_rows")).as("statement texts the shard wrote").isEqualTo(151);
            assertThat(got).allSatisfy(t -> assertThat(t.types()).as("event types of %s", t.gtid()).doesNotContain(160));
            assertThat(reader.restartPosition().file()).isEqualTo(masterStatus(shard).file());
            assertThat(reader.restartPosition().position()).isEqualTo(masterStatus(shard).position());
            assertThat(reader.restartPosition()).isEqualTo(reader.currentPosition());
        }
    }

    @Test
    @Order(2)
    void shouldResumeFromAGtidPositionWithoutEarlierTransactions(ShardCluster cluster) throws Exception {
        ShardInfo shard = cluster.info(0);
        String db = createDatabase(shard);
        List<String> before = write(shard, db, 0, 10, 2, 10);
        String position = gtidBinlogPos(shard);
        List<String> after = write(shard, db, 10, 20, 2, 10);
        RecordingSink sink = new RecordingSink();
        try (ShardReader reader = new ShardReader(config(shard, ShardPosition.ofGtidSet(position)), sink)) {
            reader.start();
            Set<String> ours = new HashSet<>(after);
            ours.addAll(before);
            List<RecordingSink.Txn> got = sink.await(t -> ours.contains(t.gtid()), after.size(), 30_000);
            assertThat(gtidsOf(got)).containsExactlyElementsOf(after);
            assertThat(reader.restartPosition().gtidSet()).isEqualTo(after.get(after.size() - 1));
            assertThat(sink.transactions(t -> true).get(0).gtid()).as("first transaction delivered").isEqualTo(after.get(0));
        }
    }

    @Test
    @Order(3)
    void shouldStopWithAClearErrorOnAWrongPassword(ShardCluster cluster) throws Exception {
        ShardInfo shard = cluster.info(0);
        RecordingSink sink = new RecordingSink();
        long t0 = System.nanoTime();
        try (ShardReader reader = new ShardReader(config(shard, ShardPosition.latest()).withPassword("not-the-password"), sink)) {
            reader.start();
            assertThatThrownBy(() -> reader.termination().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(ShardAuthenticationException.class)
                    .hasMessageStartingWith("shard " + shard.name() + ": authentication failed for user '" + shard.replUser()
                            + "' at " + shard.host() + ":" + shard.port() + ": server error 1045 (28000): Access denied");
            assertThat(reader.state()).isEqualTo(ShardReader.State.FAILED);
            assertThat(sink.failure()).isInstanceOf(ShardAuthenticationException.class);
            assertThat(reader.connections()).isZero();
        }
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).as("seconds until the error").isLessThan(10);
    }

    @ParameterizedTest(name = "resume by {0}")
    @ValueSource(strings = {"file", "gtid"})
    // the shard is down for 10 s: the reader keeps retrying with backoff and resumes
    @Order(4)
    void shouldDeliverEveryTransactionExactlyOnceAcrossAShardRestart(String mode, ShardCluster cluster) throws Exception {
        ShardInfo shard = cluster.info(0);
        String db = createDatabase(shard);
        ShardPosition start = mode.equals("gtid") ? ShardPosition.ofGtidSet(gtidBinlogPos(shard)) : masterStatus(shard);
        RecordingSink sink = new RecordingSink();
        // a blocked sink and a small buffer keep the reader in the middle of the stream when the shard goes down
        sink.block();
        try (ShardReader reader = new ShardReader(config(shard, start).withBuffer(40, 1 << 20), sink)) {
            reader.start();
            awaitStreaming(reader);
            List<String> written = new ArrayList<>(write(shard, db, 0, 40, 25, 20_000));
            sink.slowDown(1_000_000);
            sink.unblock();
            // 20 MB of rows: more than the socket buffers hold, so the shard goes down in mid-stream.
            // A clean shutdown when resuming by file, a SIGKILL (a crash) when resuming by GTID.
            if (mode.equals("gtid")) {
                cluster.shard(0).kill();
            } else {
                cluster.shard(0).stop(Duration.ofSeconds(30));
            }
            Thread.sleep(10_000);
            cluster.shard(0).start();
            written.addAll(write(shard, db, 40, 40, 25, 20_000));
            sink.slowDown(0);
            Set<String> ours = new HashSet<>(written);
            List<RecordingSink.Txn> got = sink.await(t -> ours.contains(t.gtid()), written.size(), 120_000);
            Thread.sleep(500);
            got = sink.transactions(t -> ours.contains(t.gtid()));
            assertThat(gtidsOf(got)).as("every transaction once, in commit order").containsExactlyElementsOf(written);
            for (RecordingSink.Txn t : got) {
                assertThat(t.count(RecordingSink.WRITE_ROWS_V1)).as("rows events of %s", t.gtid()).isEqualTo(25);
            }
            assertThat(reader.connections()).as("connections").isGreaterThanOrEqualTo(2);
            System.out.printf("restart (%s): %d connections, %d rewinds dropping %d events%n", mode, reader.connections(),
                    sink.rewinds(), sink.rewoundEvents());
        }
    }

    @Test
    @Order(5)
    void shouldPauseReadingWithBoundedBufferWhileTheSinkIsBlocked(ShardCluster cluster) throws Exception {
        ShardInfo shard = cluster.info(0);
        String db = createDatabase(shard);
        ShardPosition start = masterStatus(shard);
        RecordingSink sink = new RecordingSink();
        sink.block();
        int maxEvents = 100;
        long maxBytes = 256 << 10;
        try (ShardReader reader = new ShardReader(config(shard, start).withBuffer(maxEvents, maxBytes), sink)) {
            reader.start();
            List<String> written = write(shard, db, 0, 200, 10, 1000);
            long binlogBytes = masterStatus(shard).position() - start.position();
            Thread.sleep(2_000);
            int buffered = reader.bufferedEvents();
            long bufferedBytes = reader.bufferedBytes();
            Thread.sleep(1_000);
            assertThat(reader.bufferedEvents()).as("no more reading while blocked").isEqualTo(buffered);
            assertThat(reader.readPauses()).isPositive();
            // the limit plus what one socket read can still bring in
            assertThat(reader.peakBufferedEvents()).isLessThanOrEqualTo(maxEvents + 64);
            assertThat(reader.peakBufferedBytes()).isLessThanOrEqualTo(maxBytes + (64 << 10));
            assertThat(binlogBytes).as("written binlog bytes").isGreaterThan(8 * maxBytes);
            System.out.printf("blocked sink: %d bytes written to the binlog, reader holds %d events / %d bytes"
                    + " (peak %d / %d, limit %d / %d)%n", binlogBytes, buffered, bufferedBytes, reader.peakBufferedEvents(),
                    reader.peakBufferedBytes(), maxEvents, maxBytes);
            sink.unblock();
            Set<String> ours = new HashSet<>(written);
            List<RecordingSink.Txn> got = sink.await(t -> ours.contains(t.gtid()), written.size(), 60_000);
            assertThat(gtidsOf(got)).containsExactlyElementsOf(written);
        }
    }

    private static String firstBinlog(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    @Order(6)
    void shouldReportAPurgedPositionWithWhatTheShardStillHas(ShardCluster cluster) throws Exception {
        ShardInfo shard = cluster.info(0);
        ShardPosition old = masterStatus(shard);
        String first;
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("FLUSH BINARY LOGS");
            first = masterStatus(shard).file();
            // a dump thread of an earlier test may still hold the old file for a moment; purge until it is gone
            long deadline = System.currentTimeMillis() + 20_000;
            while (!firstBinlog(s).equals(first)) {
                assertThat(System.currentTimeMillis()).as("old binlogs purged within 20 s").isLessThan(deadline);
                s.execute("PURGE BINARY LOGS TO '" + first + "'");
                Thread.sleep(200);
            }
        }
        for (ShardPosition gone : List.of(old, ShardPosition.at("mariadb-bin.999999", 4))) {
            RecordingSink sink = new RecordingSink();
            try (ShardReader reader = new ShardReader(config(shard, gone), sink)) {
                reader.start();
                assertThatThrownBy(() -> reader.termination().get(30, TimeUnit.SECONDS))
                        .cause()
                        .isInstanceOf(ShardPositionPurgedException.class)
                        .hasMessageStartingWith("shard " + shard.name() + ": position " + gone + " is not available (server error 1236: ")
                        .hasMessageContaining("the shard has 1 binlog file(s), from " + first + ":4 to " + first + ":")
                        .satisfies(e -> {
                            ShardPositionPurgedException p = (ShardPositionPurgedException) e;
                            assertThat(p.requested()).isEqualTo(gone);
                            assertThat(p.available()).extracting(ShardPositionPurgedException.BinlogFile::name).containsExactly(first);
                        });
                assertThat(reader.connections()).as("not retried").isEqualTo(1);
            }
        }
    }

    @Test
    @Order(7)
    void shouldReceiveHeartbeatsFromAnIdleShardWithoutMovingThePosition(ShardCluster cluster) throws Exception {
        ShardInfo shard = cluster.info(0);
        ShardPosition end = masterStatus(shard);
        AtomicInteger heartbeats = new AtomicInteger();
        List<ShardPosition> positions = new java.util.concurrent.CopyOnWriteArrayList<>();
        ShardReaderConfig cfg = new ShardReaderConfig(shard.name(), shard.host(), shard.port(), shard.replUser(),
                shard.replPassword(), SERVER_IDS.incrementAndGet(), ShardPosition.latest(), Duration.ofMillis(500), false,
                null, Duration.ofSeconds(10), 1000, 1 << 20, ShardReaderConfig.Backoff.DEFAULT);
        try (ShardReader reader = new ShardReader(cfg, e -> {
            if (e.type() == 27) {
                heartbeats.incrementAndGet();
                positions.add(e.position());
            }
            e.release();
        })) {
            reader.start();
            Thread.sleep(3_000);
            assertThat(heartbeats.get()).as("heartbeats in 3 s at a 500 ms period").isBetween(3, 8);
            assertThat(positions).allSatisfy(p -> assertThat(p).isEqualTo(end));
            assertThat(reader.restartPosition()).isEqualTo(end);
            assertThat(reader.connections()).isEqualTo(1);
        }
    }
}
