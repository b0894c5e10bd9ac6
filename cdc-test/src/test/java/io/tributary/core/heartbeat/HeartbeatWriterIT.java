package io.tributary.core.heartbeat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.event.rows.ColumnDefinition;
import io.tributary.core.event.rows.RowChange;
import io.tributary.core.event.rows.RowImageDecoder;
import io.tributary.core.event.rows.RowsImageLayout;
import io.tributary.core.event.rows.TableColumns;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.EmbeddedMariaDbShard;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardFlavor;
import io.tributary.test.shard.ShardInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat writer against real MariaDB shards from the harness: it creates
 * {@code __cdc__.__cdc_heartbeat__} on every shard and writes one shared, increasing value to all of
 * them every interval; an account without the privileges stops it at start with an error naming the
 * shard and the privilege.
 */
@WithShards(count = 2, flavor = ShardFlavor.MARIADB_10_11)
class HeartbeatWriterIT {

    @BeforeEach
    void dropHeartbeatDatabase(ShardCluster shards) throws SQLException {
        for (ShardInfo s : shards.infos()) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS __cdc__");
            }
        }
    }

    private static HeartbeatWriter.Target target(ShardInfo s, String user, String password) {
        return new HeartbeatWriter.Target(s.name(), s.host() + ":" + s.port(),
                () -> DriverManager.getConnection(s.jdbcUrl(), user, password));
    }

    private static List<HeartbeatWriter.Target> replTargets(ShardCluster shards) {
        List<HeartbeatWriter.Target> t = new ArrayList<>();
        for (ShardInfo s : shards.infos()) {
            t.add(target(s, s.replUser(), s.replPassword()));
        }
        return t;
    }

    private static long heartbeat(ShardInfo s) throws SQLException {
        try (Connection c = s.openAdminConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT heartbeat FROM __cdc__.__cdc_heartbeat__ WHERE id = 1")) {
            assertThat(rs.next()).as("heartbeat row on %s", s.name()).isTrue();
            return rs.getLong(1);
        }
    }

    @Test
    void shouldCreateTheTableOnEveryShardAndWriteOneSharedIncreasingValue(ShardCluster shards) throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000);
        try (HeartbeatWriter w = new HeartbeatWriter(replTargets(shards), HeartbeatWriter.DEFAULT_INTERVAL, clock::get)) {
            w.createTables();
            long first = w.beat();
            for (ShardInfo s : shards.infos()) {
                assertThat(heartbeat(s)).as("value on %s", s.name()).isEqualTo(first);
            }
            // The clock standing still (or going back) does not make values repeat.
            long second = w.beat();
            clock.set(5);
            long third = w.beat();
            assertThat(second).isGreaterThan(first);
            assertThat(third).isGreaterThan(second);
            for (ShardInfo s : shards.infos()) {
                assertThat(heartbeat(s)).isEqualTo(third);
                // What the sorter will see: each beat is an UPDATE_ROWS of the heartbeat table in the binlog.
                List<Long> logged = heartbeatsInBinlog(shards, s);
                int at = logged.indexOf(first);
                assertThat(at).as("first beat in the binlog of %s: %s", s.name(), logged).isNotNegative();
                assertThat(logged.subList(at, Math.min(logged.size(), at + 3))).containsExactly(first, second, third);
            }
        }
    }

    @Test
    void anUnreachableShardIsRefusedAtStartNamingIt(ShardCluster shards) {
        ShardInfo s0 = shards.info(0);
        try (HeartbeatWriter w = new HeartbeatWriter(List.of(target(s0, s0.replUser(), "wrong-password")),
                HeartbeatWriter.DEFAULT_INTERVAL, HeartbeatWriter::systemMicros)) {
            assertThatThrownBy(w::start).isInstanceOf(HeartbeatSetupException.class)
                    .hasMessageStartingWith("shard " + s0.name() + " (" + s0.host() + ":" + s0.port()
                            + "): cannot connect to write heartbeats: ")
                    .hasMessageContaining("Access denied");
        }
    }

    /** The heartbeat values of the UPDATE_ROWS events on the heartbeat table in the shard's binlog, in order. */
    private static List<Long> heartbeatsInBinlog(ShardCluster shards, ShardInfo s) throws Exception {
        return beatsInBinlog(shards, s).stream().map(b -> b[0]).toList();
    }

    /** The after images (heartbeat, written_at_us) of the heartbeat table's UPDATE_ROWS events in the shard's binlog. */
    private static List<long[]> beatsInBinlog(ShardCluster shards, ShardInfo s) throws Exception {
        Path dir = ((EmbeddedMariaDbShard) shards.shard(s.index())).binlogDirectory();
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().matches("mariadb-bin\\.\\d+")).sorted().toList();
        }
        List<long[]> values = new ArrayList<>();
        RowImageDecoder rowDecoder = new RowImageDecoder();
        for (Path f : files) {
            Map<Long, TableMapEvent> maps = new HashMap<>();
            BinlogEventDecoder d = new BinlogEventDecoder(f.toString(), Files.readAllBytes(f), DecoderOptions.FULL);
            while (d.hasNext()) {
                BinlogEvent e = d.next();
                if (e.body() instanceof TableMapEvent m) {
                    maps.put(m.tableId(), m);
                } else if ((e.type() == EventType.UPDATE_ROWS_V1 || e.type() == EventType.UPDATE_ROWS_V2)
                        && e.body() instanceof RowsEvent r) {
                    TableMapEvent m = maps.get(r.tableId());
                    if (m == null || !m.database().equals(HeartbeatWriter.DATABASE) || !m.table().equals(HeartbeatWriter.TABLE)) {
                        continue;
                    }
                    List<ColumnDefinition> cols = new ArrayList<>();
                    for (int i = 0; i < m.columnCount(); i++) {
                        cols.add(ColumnDefinition.of(m.columnTypes().get(i), m.metadata().get(i)));
                    }
                    for (RowChange change : rowDecoder.decodeRows(new TableColumns(m.database() + "." + m.table(), cols),
                            RowsImageLayout.UPDATE, r.columnsPresent(), r.columnsPresentAfter(), r.buffer(), r.rowsOffset(),
                            r.rowsLength())) {
                        values.add(new long[] {((Number) change.after().get(1)).longValue(),
                            ((Number) change.after().get(2)).longValue()});
                    }
                }
            }
        }
        return values;
    }

    @Test
    void shouldBeatEveryIntervalOnItsOwnThreadAndContinueFromTheTableAfterARestart(ShardCluster shards) throws Exception {
        long before;
        try (HeartbeatWriter w = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(50),
                HeartbeatWriter::systemMicros)) {
            w.start();
            Thread.sleep(1000);
            before = w.lastValue();
            long v0 = heartbeat(shards.info(0));
            Thread.sleep(300);
            assertThat(heartbeat(shards.info(0))).as("still beating").isGreaterThan(v0);
        }
        long last = Math.max(heartbeat(shards.info(0)), heartbeat(shards.info(1)));
        assertThat(last).isGreaterThanOrEqualTo(before);
        // A restarted writer with a clock far behind still goes on increasing.
        try (HeartbeatWriter w = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(50), () -> 1)) {
            w.createTables();
            assertThat(w.beat()).isGreaterThan(last);
        }
    }

    @Test
    void shouldBeatAtTheIdleIntervalWhileNothingWaitsAtTheIntervalWhileSomethingDoesAndAtOnceWhenWoken(
            ShardCluster shards) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean waiting = new java.util.concurrent.atomic.AtomicBoolean();
        ShardInfo s1 = shards.info(1);
        try (HeartbeatWriter w = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(50), Duration.ofSeconds(1),
                HeartbeatWriter::systemMicros)) {
            w.demand(waiting::get);
            int n0 = heartbeatsInBinlog(shards, s1).size();
            w.start();
            Thread.sleep(2400);
            // idle: the beat at start, then one a second (every shard's binlog carries each)
            int n1 = heartbeatsInBinlog(shards, s1).size();
            assertThat(n1 - n0).as("beats on %s in 2.4 s with nothing waiting", s1.name()).isBetween(2, 4);
            // something starts to wait: a beat at once, not at the next idle beat up to a second away
            long v0 = heartbeat(s1);
            long woken = System.nanoTime();
            w.wake();
            while (heartbeat(s1) == v0 && System.nanoTime() - woken < TimeUnit.SECONDS.toNanos(5)) {
                Thread.sleep(5);
            }
            long wokenMs = (System.nanoTime() - woken) / 1_000_000;
            assertThat(heartbeat(s1)).as("a beat after wake()").isGreaterThan(v0);
            assertThat(wokenMs).as("ms from wake() to the beat on %s", s1.name()).isLessThan(500);
            // while something waits, a beat every interval (50 ms: about 20 in a second, fewer on a loaded machine)
            int n2 = heartbeatsInBinlog(shards, s1).size();
            waiting.set(true);
            Thread.sleep(1000);
            waiting.set(false);
            int n3 = heartbeatsInBinlog(shards, s1).size();
            assertThat(n3 - n2).as("beats in 1 s while something waits").isGreaterThanOrEqualTo(8);
            Thread.sleep(200);
            int n4 = heartbeatsInBinlog(shards, s1).size();
            Thread.sleep(1500);
            int n5 = heartbeatsInBinlog(shards, s1).size();
            assertThat(n5 - n4).as("beats in 1.5 s once nothing waits again").isBetween(1, 2);
        }
    }

    @Test
    void aStoppedShardIsLoggedOnceWhileTheOthersKeepBeatingAndAgainWhenItIsBack(ShardCluster shards) throws Exception {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged = capture(WRITER_LOG);
        AtomicLong clock = new AtomicLong(HeartbeatWriter.systemMicros());
        try (HeartbeatWriter w = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(100), clock::get)) {
            w.createTables();
            w.beat();
            shards.shard(1).stop(Duration.ofSeconds(30));
            long beat = 0;
            for (int i = 0; i < 50; i++) { // 5 s of beats
                clock.addAndGet(100_000);
                beat = w.beat();
            }
            assertThat(heartbeat(shards.info(0))).as("shard-0 keeps beating").isEqualTo(beat);
            assertThat(messages(logged, "shard-1")).as("lines about shard-1 for 50 missed beats").hasSize(1)
                    .allSatisfy(m -> assertThat(m).contains("heartbeat").contains("not written"));
            clock.addAndGet(HeartbeatWriter.REPEAT_WARNING_MS * 1000);
            w.beat();
            assertThat(messages(logged, "shard-1")).as("one more line once the repeat interval passed").hasSize(2)
                    .last().asString().contains("51 beats missed");
            shards.shard(1).start();
            clock.addAndGet(100_000);
            beat = w.beat();
            assertThat(heartbeat(shards.info(1))).as("shard-1 beats again").isEqualTo(beat);
            assertThat(messages(logged, "shard-1")).hasSize(3).last().asString()
                    .contains("written again after 51 missed beats");
        } finally {
            WRITER_LOG.detachAppender(logged);
            shards.shard(1).start();
        }
    }

    @Test
    void aWriteHeldUpHoldsBackEveryShardsBeatsWithAWarningOnlyPastASecond(ShardCluster shards) throws Exception {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged = capture(WRITER_LOG);
        AtomicLong clock = new AtomicLong(HeartbeatWriter.systemMicros());
        try (HeartbeatWriter w = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(100), clock::get);
             Connection lock = shards.info(1).openAdminConnection(); Statement st = lock.createStatement()) {
            w.createTables();
            w.beat();
            // another transaction holds shard-1's heartbeat row: its next write waits (as behind a slow fsync)
            lock.setAutoCommit(false);
            st.executeQuery("SELECT * FROM __cdc__.__cdc_heartbeat__ WHERE id = 1 FOR UPDATE").close();
            long held = 0;
            for (int i = 0; i < 6; i++) { // the held write starts, then 5 beats skipped within 500 ms
                clock.addAndGet(100_000);
                long v = w.beat(Duration.ofMillis(100));
                held = i == 0 ? v : held;
                if (i > 0) {
                    assertThat(v).as("beat %d while the previous one is not on shard-1", i).isZero();
                }
            }
            // a beat is a cut: the next one starts only once this one is on every shard
            assertThat(heartbeat(shards.info(0))).as("shard-0 while shard-1's write is held").isEqualTo(held);
            assertThat(messages(logged, "shard-1")).as("a write held up for 500 ms").isEmpty();
            clock.addAndGet(1_000_000);
            w.beat(Duration.ofMillis(100));
            assertThat(messages(logged, "shard-1")).singleElement().asString()
                    .contains("skipped, the previous write has run 1500 ms (6 beats skipped so far)");
            lock.rollback();
            // once the held write is done, beats go on
            long next = 0;
            for (int i = 0; i < 50 && next == 0; i++) {
                clock.addAndGet(100_000);
                next = w.beat(Duration.ofMillis(100));
                if (next == 0) {
                    Thread.sleep(50);
                }
            }
            assertThat(next).as("a beat once shard-1's write is done").isGreaterThan(held);
            assertThat(heartbeat(shards.info(1))).isEqualTo(next);
        } finally {
            WRITER_LOG.detachAppender(logged);
        }
    }

    /**
     * Twins: two writers on the same shards, beating at the same time, one with its clock 5 s behind the other's.
     * Their beats form one sequence: on every shard the binlog's values strictly increase (the sorter never sees a
     * beat go back), both writers' beats are in it, and neither logs a warning.
     */
    @Test
    void twoWritersWithSkewedClocksMakeOneIncreasingSequenceOnEveryShard(ShardCluster shards) throws Exception {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged = capture(WRITER_LOG);
        long skewMicros = 5_000_000;
        Map<String, Integer> before = new HashMap<>();
        for (ShardInfo s : shards.infos()) {
            before.put(s.name(), beatsInBinlog(shards, s).size());
        }
        long startedAt = HeartbeatWriter.systemMicros();
        try (HeartbeatWriter a = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(20), HeartbeatWriter::systemMicros);
                HeartbeatWriter b = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(20),
                        () -> HeartbeatWriter.systemMicros() - skewMicros)) {
            a.start();
            b.start();
            Thread.sleep(3000);
        } finally {
            WRITER_LOG.detachAppender(logged);
        }
        for (ShardInfo s : shards.infos()) {
            List<long[]> beats = beatsInBinlog(shards, s);
            beats = beats.subList(before.get(s.name()), beats.size());
            List<Long> values = beats.stream().map(x -> x[0]).toList();
            assertThat(values).as("beats on %s", s.name()).hasSizeGreaterThan(50);
            assertThat(values).as("heartbeat values in the binlog of %s", s.name()).isSorted().doesNotHaveDuplicates();
            // written_at_us is the writer's clock: the lagging writer's beats are dated before the test started
            long fromLagging = beats.stream().filter(x -> x[1] < startedAt).count();
            assertThat(fromLagging).as("beats of the writer 5 s behind on %s", s.name()).isPositive();
            assertThat(beats.size() - fromLagging).as("beats of the other writer on %s", s.name()).isPositive();
        }
        synchronized (logged.list) {
            assertThat(logged.list).as("lines logged by the two writers")
                    .noneMatch(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN));
        }
    }

    /**
     * A writer beats only while it holds the lock on the first shard: while another connection holds it (a twin in
     * its beat) it makes no beat and writes nothing; once that connection is gone (a twin killed), it beats again.
     */
    @Test
    void aLockHeldElsewhereSkipsTheBeatUntilItsConnectionIsGone(ShardCluster shards) throws Exception {
        AtomicLong clock = new AtomicLong(HeartbeatWriter.systemMicros());
        try (HeartbeatWriter w = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(100), clock::get)) {
            w.createTables();
            long first = w.beat();
            assertThat(first).isPositive();
            try (Connection twin = shards.info(0).openAdminConnection(); Statement st = twin.createStatement();
                    ResultSet rs = st.executeQuery("SELECT GET_LOCK('" + HeartbeatWriter.LOCK + "', 0)")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("lock taken by the other connection").isEqualTo(1);
                clock.addAndGet(100_000);
                assertThat(w.beat()).as("beat while the lock is held elsewhere").isZero();
                for (ShardInfo s : shards.infos()) {
                    assertThat(heartbeat(s)).as("value on %s", s.name()).isEqualTo(first);
                }
            }
            // the server drops the lock as it notices the closed connection: within a few beats
            long next = 0;
            for (int i = 0; i < 50 && next == 0; i++) {
                clock.addAndGet(100_000);
                next = w.beat();
                if (next == 0) {
                    Thread.sleep(100);
                }
            }
            assertThat(next).as("beat once the holder's connection is closed").isGreaterThan(first);
            for (ShardInfo s : shards.infos()) {
                assertThat(heartbeat(s)).as("value on %s", s.name()).isEqualTo(next);
            }
        }
    }

    /**
     * A twin that holds the lock at every try of this writer for longer than the idle timeout is only worth a warning
     * while it is stuck: while it moves the lock shard's row (it is beating) nothing is logged; once the row stands
     * still past the timeout, one warning names the lock.
     */
    @Test
    void aLockBusyAtEveryTryWarnsOnlyWhileItsHolderBeatsNoMore(ShardCluster shards) throws Exception {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged = capture(WRITER_LOG);
        AtomicLong clock = new AtomicLong(HeartbeatWriter.systemMicros());
        try (HeartbeatWriter w = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(100), clock::get);
             Connection twin = shards.info(0).openAdminConnection(); Statement st = twin.createStatement()) {
            w.createTables();
            assertThat(w.beat()).isPositive();
            try (ResultSet rs = st.executeQuery("SELECT GET_LOCK('" + HeartbeatWriter.LOCK + "', 0)")) {
                assertThat(rs.next() && rs.getInt(1) == 1).as("lock taken by the twin").isTrue();
            }
            for (int i = 0; i < 30; i++) { // 30 s of writer time, the twin beating at every try
                st.executeUpdate("UPDATE __cdc__.__cdc_heartbeat__ SET heartbeat = heartbeat + 1 WHERE id = 1");
                clock.addAndGet(1_000_000);
                assertThat(w.beat()).as("beat %d while the twin holds the lock", i).isZero();
                Thread.sleep(50); // the skipped beat's lock release runs after it; the next beat waits for it
            }
            assertThat(lockWarnings(logged)).as("warnings while the twin beats").isEmpty();
            for (int i = 0; i < 12; i++) { // then 12 s with the row standing still: the twin is stuck in a beat
                clock.addAndGet(1_000_000);
                w.beat();
                Thread.sleep(50);
            }
            assertThat(lockWarnings(logged)).as("warnings once the twin is stuck").singleElement().asString()
                    .contains("has been held by another writer for 1");
        } finally {
            WRITER_LOG.detachAppender(logged);
        }
    }

    /**
     * A twin that loses the lock for longer than the connections' {@code wait_timeout} writes nothing to the other
     * shards meanwhile, and the shards drop those idle connections: its next beat must still reach every shard,
     * without a failure logged.
     */
    @Test
    void aWriterLockedOutPastTheWaitTimeoutBeatsOnEveryShardOnceFree(ShardCluster shards) throws Exception {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged = capture(WRITER_LOG);
        AtomicLong clock = new AtomicLong(HeartbeatWriter.systemMicros());
        try (HeartbeatWriter w = new HeartbeatWriter(replTargets(shards), Duration.ofMillis(100), clock::get)) {
            w.createTables();
            assertThat(w.beat()).isPositive();
            try (Connection twin = shards.info(0).openAdminConnection(); Statement st = twin.createStatement();
                 ResultSet rs = st.executeQuery("SELECT GET_LOCK('" + HeartbeatWriter.LOCK + "', 0)")) {
                assertThat(rs.next() && rs.getInt(1) == 1).as("lock taken by the twin").isTrue();
                long until = System.nanoTime() + (w.idleTimeoutSeconds() + 2) * 1_000_000_000L;
                while (System.nanoTime() < until) { // the writer tries every second, losing each time
                    st.executeUpdate("UPDATE __cdc__.__cdc_heartbeat__ SET heartbeat = heartbeat + 1 WHERE id = 1");
                    clock.addAndGet(1_000_000);
                    assertThat(w.beat()).isZero();
                    Thread.sleep(1000);
                }
            }
            long next = 0;
            for (int i = 0; i < 50 && next == 0; i++) { // the server drops the lock as it notices the closed connection
                clock.addAndGet(100_000);
                next = w.beat();
                if (next == 0) {
                    Thread.sleep(100);
                }
            }
            assertThat(next).as("a beat once the lock is free").isPositive();
            for (ShardInfo s : shards.infos()) {
                assertThat(heartbeat(s)).as("value on %s", s.name()).isEqualTo(next);
            }
            synchronized (logged.list) {
                assertThat(logged.list).as("lines logged by the writer")
                        .noneMatch(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN));
            }
        } finally {
            WRITER_LOG.detachAppender(logged);
        }
    }

    private static List<String> lockWarnings(
            ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> a) {
        synchronized (a.list) {
            return a.list.stream().map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.contains("heartbeat lock")).toList();
        }
    }

    private static List<String> messages(ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> a,
            String shard) {
        synchronized (a.list) {
            return a.list.stream().map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.startsWith("shard " + shard + " ")).toList();
        }
    }

    @Test
    void anAccountWithoutThePrivilegeIsRefusedAtStartNamingTheShardAndThePrivilege(ShardCluster shards) throws Exception {
        ShardInfo s1 = shards.info(1);
        try (Connection c = s1.openAdminConnection(); Statement st = c.createStatement()) {
            st.execute("DROP USER IF EXISTS 'hb_nopriv'@'%'");
            st.execute("CREATE USER 'hb_nopriv'@'%' IDENTIFIED BY 'pw'");
            st.execute("GRANT SELECT, REPLICATION SLAVE ON *.* TO 'hb_nopriv'@'%'");
        }
        List<HeartbeatWriter.Target> targets = List.of(target(shards.info(0), shards.info(0).replUser(),
                shards.info(0).replPassword()), target(s1, "hb_nopriv", "pw"));
        try (HeartbeatWriter w = new HeartbeatWriter(targets, HeartbeatWriter.DEFAULT_INTERVAL, HeartbeatWriter::systemMicros)) {
            assertThatThrownBy(w::start).isInstanceOf(HeartbeatSetupException.class)
                    .hasMessageStartingWith("shard " + s1.name() + " (" + s1.host() + ":" + s1.port() + "): account"
                            + " 'hb_nopriv'@'%' lacks the CREATE privilege on `__cdc__`.*")
                    .hasMessageContaining("GRANT ALL PRIVILEGES ON `__cdc__`.* TO 'hb_nopriv'@'%'")
                    .satisfies(e -> assertThat(((HeartbeatSetupException) e).shard()).isEqualTo(s1.name()));
        }
        // An account that may create and insert but not update is refused too, naming UPDATE.
        try (Connection c = s1.openAdminConnection(); Statement st = c.createStatement()) {
            st.execute("GRANT CREATE, INSERT ON `__cdc__`.* TO 'hb_nopriv'@'%'");
        }
        try (HeartbeatWriter w = new HeartbeatWriter(targets, HeartbeatWriter.DEFAULT_INTERVAL, HeartbeatWriter::systemMicros)) {
            assertThatThrownBy(w::createTables).isInstanceOf(HeartbeatSetupException.class)
                    .hasMessageContaining("lacks the UPDATE privilege")
                    .satisfies(e -> assertThat(((HeartbeatSetupException) e).missingPrivilege()).isEqualTo("UPDATE"));
        }
    }

    private static final ch.qos.logback.classic.Logger WRITER_LOG = (ch.qos.logback.classic.Logger)
            org.slf4j.LoggerFactory.getLogger(HeartbeatWriter.class);

    /** What {@code logger} logs from now on, until the appender is detached. */
    private static ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> capture(
            ch.qos.logback.classic.Logger logger) {
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
                new ch.qos.logback.core.read.ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        return logged;
    }

}
