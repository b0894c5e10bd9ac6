package io.tributary.test.dump;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import com.github.shyiko.mysql.binlog.network.ServerException;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The dump server against real clients: mysql-binlog-connector-java's {@code BinaryLogClient} (by
 * file/position, by GTID, live tailing), MySQL Connector/J (caching_sha2_password with the RSA key exchange,
 * the statements CDC tools send, an unknown statement, a wrong password), and error 1236 for purged and future
 * positions. The global binlog is filled with real corpus transactions by a {@link GlobalBinlogWriter}.
 */
class DumpServerIT {
    static final String USER = "repl";
    static final String PASSWORD = "repl-pass";

    @TempDir
    Path dir;
    private GlobalBinlogWriter writer;
    private DumpServer server;
    private final List<BinaryLogClient> clients = new ArrayList<>();
    private volatile long lastXidAt;

    @AfterEach
    void stop() throws Exception {
        for (BinaryLogClient c : clients) {
            c.disconnect();
        }
        if (server != null) {
            server.close();
        }
        if (writer != null) {
            writer.close();
        }
    }

    private CorpusBinlog start(BinlogFlavor flavor, long fileSize, String retention, int transactions) throws Exception {
        return start(flavor, fileSize, retention, transactions, Duration.ZERO);
    }

    private CorpusBinlog start(BinlogFlavor flavor, long fileSize, String retention, int transactions, Duration aheadWait)
            throws Exception {
        CorpusBinlog corpus = CorpusBinlog.forFlavor(flavor);
        writer = CorpusBinlog.openWriter(dir, flavor, fileSize, retention);
        corpus.append(writer, transactions);
        // what was appended is served once durable: a start at its last GTID must not race the syncer
        assertThat(writer.durability().awaitSequence(writer.lastSequence(), Duration.ofSeconds(30)))
                .as("the %d appended transactions durable within 30 s", transactions).isTrue();
        server = new DumpServer(DumpServerConfig.defaults(flavor, 7, List.of(DumpUser.withPassword(USER, PASSWORD)))
                .withPort(0).withAheadWait(aheadWait), () -> writer).start();
        return corpus;
    }

    private BinaryLogClient client(List<Event> events, List<Exception> failures) {
        BinaryLogClient c = new BinaryLogClient("127.0.0.1", server.port(), USER, PASSWORD);
        c.setServerId(1000 + clients.size());
        c.setKeepAlive(false);
        c.registerEventListener(e -> {
            if (e.getHeader().getEventType() == EventType.XID) {
                lastXidAt = System.nanoTime();
            }
            events.add(e);
        });
        c.registerLifecycleListener(new BinaryLogClient.AbstractLifecycleListener() {
            @Override
            public void onCommunicationFailure(BinaryLogClient client, Exception ex) {
                failures.add(ex);
            }
        });
        clients.add(c);
        return c;
    }

    private static long count(List<Event> events, EventType type) {
        return events.stream().filter(e -> e.getHeader().getEventType() == type).count();
    }

    private static void await(String what, Duration timeout, java.util.function.BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(2);
        }
    }

    @Test
    void binaryLogClientReceivesEveryTransactionFromFilePositionAcrossFilesAndTailsLive() throws Exception {
        start(BinlogFlavor.MYSQL, 4096, "0", 120);
        assertThat(writer.index().entries().size()).as("the binlog spans several files").isGreaterThan(1);
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient c = client(events, failures);
        c.setBinlogFilename("binlog.000001");
        c.setBinlogPosition(4);
        c.connect(10_000);
        await("120 XIDs", Duration.ofSeconds(30), () -> count(events, EventType.XID) >= 120 || !failures.isEmpty());
        assertThat(failures).isEmpty();
        List<Long> gnos = events.stream().filter(e -> e.getHeader().getEventType() == EventType.GTID)
                .map(e -> ((GtidEventData) e.getData()).getMySqlGtid().getTransactionId()).toList();
        assertThat(gnos).isEqualTo(java.util.stream.LongStream.rangeClosed(1, 120).boxed().toList());
        assertThat(count(events, EventType.EXT_WRITE_ROWS) + count(events, EventType.EXT_UPDATE_ROWS)
                + count(events, EventType.EXT_DELETE_ROWS)).isPositive();
        assertThat(count(events, EventType.FORMAT_DESCRIPTION)).isEqualTo(writer.index().entries().size());

        // live: a transaction appended while connected arrives without polling
        java.util.concurrent.atomic.AtomicLong durableAt = new java.util.concurrent.atomic.AtomicLong();
        writer.durability().addListener(m -> durableAt.set(System.nanoTime()));
        CorpusBinlog live = CorpusBinlog.forFlavor(BinlogFlavor.MYSQL);
        List<Long> delaysMicros = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long xids = count(events, EventType.XID);
            live.append(writer, 1);
            await("the live transaction", Duration.ofSeconds(5), () -> count(events, EventType.XID) > xids);
            delaysMicros.add((lastXidAt - durableAt.get()) / 1000);
        }
        delaysMicros.sort(null);
        System.out.println("dump live tail: durable -> received by BinaryLogClient, p50 " + delaysMicros.get(10)
                + " us, max " + delaysMicros.get(19) + " us");
        assertThat(delaysMicros.get(10)).as("median durable-to-received delay in us").isLessThan(50_000);
    }

    /**
     * A subscriber that stopped at the very end of a finished file (after its ROTATE) and asks for that position goes
     * on with the next file, as from a server, told so by the fake ROTATE (seen in TwinsFailoverIT: it used to fail
     * with "ends without a ROTATE although later files are durable").
     */
    @Test
    void aStartAtTheEndOfAFinishedFileGoesOnWithTheNextFile() throws Exception {
        start(BinlogFlavor.MYSQL, 4096, "0", 120);
        assertThat(writer.index().entries().size()).as("the binlog spans several files").isGreaterThan(2);
        long end = java.nio.file.Files.size(dir.resolve("binlog.000001"));
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient c = client(events, failures);
        c.setBinlogFilename("binlog.000001");
        c.setBinlogPosition(end);
        c.connect(10_000);
        long inFirstFile = 0;
        try (var r = io.tributary.storage.binlog.BinlogFileReader.at(writer,
                new io.tributary.storage.binlog.BinlogPosition("binlog.000001", 4))) {
            for (var e = r.next(Duration.ofMillis(100)); e != null && r.position().file().equals("binlog.000001");
                 e = r.next(Duration.ofMillis(100))) {
                if (e.type() == io.tributary.core.event.EventType.GTID) {
                    inFirstFile++;
                }
            }
        }
        long expected = 120 - inFirstFile;
        await(expected + " XIDs", Duration.ofSeconds(30), () -> count(events, EventType.XID) >= expected
                || !failures.isEmpty());
        assertThat(failures).isEmpty();
        assertThat(((RotateEventData) events.get(0).getData()).getBinlogFilename()).isEqualTo("binlog.000002");
        assertThat(c.getBinlogFilename()).isNotEqualTo("binlog.000001");
        List<Long> gnos = events.stream().filter(e -> e.getHeader().getEventType() == EventType.GTID)
                .map(e -> ((GtidEventData) e.getData()).getMySqlGtid().getTransactionId()).toList();
        assertThat(gnos).isEqualTo(java.util.stream.LongStream.rangeClosed(inFirstFile + 1, 120).boxed().toList());
    }

    @Test
    void binaryLogClientStartsAfterItsGtidSet() throws Exception {
        start(BinlogFlavor.MYSQL, 64 * 1024, "0", 60);
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient c = client(events, failures);
        c.setGtidSet(writer.serverUuid() + ":1-41");
        c.connect(10_000);
        await("19 XIDs", Duration.ofSeconds(30), () -> count(events, EventType.XID) >= 19 || !failures.isEmpty());
        assertThat(failures).isEmpty();
        List<Long> gnos = events.stream().filter(e -> e.getHeader().getEventType() == EventType.GTID)
                .map(e -> ((GtidEventData) e.getData()).getMySqlGtid().getTransactionId()).toList();
        assertThat(gnos).isEqualTo(java.util.stream.LongStream.rangeClosed(42, 60).boxed().toList());
        assertThat(c.getGtidSet()).contains(writer.serverUuid() + ":1-60");
    }

    @Test
    void binaryLogClientReadsTheMariaDbFlavorByFilePosition() throws Exception {
        start(BinlogFlavor.MARIADB, 64 * 1024, "0", 50);
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient c = client(events, failures);
        c.setBinlogFilename("binlog.000001");
        c.setBinlogPosition(4);
        c.connect(10_000);
        await("50 XIDs", Duration.ofSeconds(30), () -> count(events, EventType.XID) >= 50 || !failures.isEmpty());
        assertThat(failures).isEmpty();
        List<Long> seqs = events.stream().filter(e -> e.getHeader().getEventType() == EventType.MARIADB_GTID)
                .map(e -> ((MariadbGtidEventData) e.getData()).getSequence()).toList();
        assertThat(seqs).isEqualTo(java.util.stream.LongStream.rangeClosed(1, 50).boxed().toList());
    }

    @Test
    void binaryLogClientStartsAfterItsMariaDbGtidPosition() throws Exception {
        start(BinlogFlavor.MARIADB, 4096, "0", 40);
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient c = client(events, failures);
        c.setGtidSet("0-7-25");
        c.connect(10_000);
        await("15 XIDs", Duration.ofSeconds(30), () -> count(events, EventType.XID) >= 15 || !failures.isEmpty());
        assertThat(failures).isEmpty();
        List<Long> seqs = events.stream().filter(e -> e.getHeader().getEventType() == EventType.MARIADB_GTID)
                .map(e -> ((MariadbGtidEventData) e.getData()).getSequence()).toList();
        assertThat(seqs).isEqualTo(java.util.stream.LongStream.rangeClosed(26, 40).boxed().toList());
    }

    /** A subscriber moving to a twin a little behind: its GTID start is served once written (dump.aheadWait). */
    @Test
    void aGtidStartNotWrittenYetWaitsUntilItIs() throws Exception {
        CorpusBinlog corpus = start(BinlogFlavor.MARIADB, 4096, "0", 40, Duration.ofSeconds(30));
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient c = client(events, failures);
        c.setGtidSet("0-7-45");
        Thread twinCatchesUp = new Thread(() -> {
            try {
                Thread.sleep(1500);
                corpus.append(writer, 10);
            } catch (Exception e) {
                failures.add(e);
            }
        });
        twinCatchesUp.start();
        c.connect(10_000);
        await("5 XIDs after 0-7-45", Duration.ofSeconds(30), () -> count(events, EventType.XID) >= 5 || !failures.isEmpty());
        twinCatchesUp.join();
        assertThat(failures).isEmpty();
        List<Long> seqs = events.stream().filter(e -> e.getHeader().getEventType() == EventType.MARIADB_GTID)
                .map(e -> ((MariadbGtidEventData) e.getData()).getSequence()).toList();
        assertThat(seqs).as("what the daemon wrote after the subscriber's position, once written")
                .isEqualTo(java.util.stream.LongStream.rangeClosed(46, 50).boxed().toList());
    }

    @Test
    void aStartFurtherAheadThanTheWaitGets1236SayingHowFarBehind() throws Exception {
        start(BinlogFlavor.MYSQL, 4096, "0", 40, Duration.ofSeconds(1));
        long t0 = System.nanoTime();
        ServerException e = dumpError(c -> c.setGtidSet(writer.serverUuid() + ":1-100"));
        assertThat(e.getErrorCode()).isEqualTo(1236);
        assertThat(e.getMessage()).contains("this daemon is 60 transactions behind").contains("dump.aheadWait");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("answered after the wait").isGreaterThan(Duration.ofMillis(900));
    }

    @Test
    void purgedAndFutureStartsGetError1236SayingWhatExists() throws Exception {
        start(BinlogFlavor.MYSQL, 4096, "16KB", 150);
        writer.purge();
        String first = writer.index().entries().get(0).file();
        assertThat(first).as("retention purged the first files").isNotEqualTo("binlog.000001");

        ServerException e = dumpError(c -> {
            c.setBinlogFilename("binlog.000001");
            c.setBinlogPosition(4);
        });
        assertThat(e.getErrorCode()).isEqualTo(1236);
        assertThat(e.getMessage()).contains("binlog.000001").contains(first);

        ServerException future = dumpError(c -> {
            c.setBinlogFilename(writer.index().last().file());
            c.setBinlogPosition(1L << 30);
        });
        assertThat(future.getErrorCode()).isEqualTo(1236);
        assertThat(future.getMessage()).contains("beyond the end");

        ServerException gtidPurged = dumpError(c -> c.setGtidSet(writer.serverUuid() + ":1-3"));
        assertThat(gtidPurged.getErrorCode()).isEqualTo(1236);
        assertThat(gtidPurged.getMessage()).contains("purged");

        ServerException gtidFuture = dumpError(c -> c.setGtidSet(writer.serverUuid() + ":1-100000"));
        assertThat(gtidFuture.getErrorCode()).isEqualTo(1236);
        assertThat(gtidFuture.getMessage()).contains("100000").contains(":1-150");
    }

    /**
     * A damaged event in the global binlog's files (a flipped byte in a body: its CRC32 no longer matches) stops
     * the subscriber that reads it with error 1236 naming the file, the offset and the checksum, after every event
     * before it; a subscriber starting past the damaged file is served in full meanwhile.
     */
    @Test
    void aDamagedEventInTheFilesGetsError1236SayingWhereAndOthersAreStillServed() throws Exception {
        start(BinlogFlavor.MYSQL, 64 * 1024, "0", 600);
        assertThat(writer.index().entries().size()).as("the binlog spans several files").isGreaterThan(3);
        java.nio.file.Path file = dir.resolve("binlog.000002");
        long middle = java.nio.file.Files.size(file) / 2;
        long damagedEvent = -1;
        long gtidsBefore = 0;
        try (var r = io.tributary.storage.binlog.BinlogFileReader.at(writer,
                new io.tributary.storage.binlog.BinlogPosition("binlog.000001", 4))) {
            for (var e = r.next(Duration.ofMillis(100)); e != null && damagedEvent < 0; e = r.next(Duration.ofMillis(100))) {
                boolean inFile = r.position().file().equals("binlog.000002");
                if (inFile && e.offset() >= middle && e.length() > 60
                        && e.type() != io.tributary.core.event.EventType.GTID) {
                    damagedEvent = e.offset();
                } else if (e.type() == io.tributary.core.event.EventType.GTID) {
                    gtidsBefore++;
                }
            }
        }
        try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
            ch.read(b, damagedEvent + 40);
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {(byte) (b.get(0) ^ 0x55)}), damagedEvent + 40);
        }

        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient c = client(events, failures);
        c.setBinlogFilename("binlog.000001");
        c.setBinlogPosition(4);
        CompletableFuture<Void> connecting = CompletableFuture.runAsync(() -> {
            try {
                c.connect();
            } catch (Exception ex) {
                failures.add(ex);
            }
        });
        await("an error", Duration.ofSeconds(20), () -> failures.stream().anyMatch(ServerException.class::isInstance));
        connecting.get(10, TimeUnit.SECONDS);
        ServerException e = (ServerException) failures.stream().filter(ServerException.class::isInstance).findFirst()
                .orElseThrow();
        assertThat(e.getErrorCode()).isEqualTo(1236);
        assertThat(e.getMessage()).contains("binlog.000002").contains(Long.toString(damagedEvent)).contains("checksum");
        assertThat(count(events, EventType.GTID)).as("every event before the damaged one, once")
                .isEqualTo(gtidsBefore);

        List<Event> later = new CopyOnWriteArrayList<>();
        List<Exception> laterFailures = new CopyOnWriteArrayList<>();
        BinaryLogClient d = client(later, laterFailures);
        d.setBinlogFilename("binlog.000003");
        d.setBinlogPosition(4);
        d.connect(10_000);
        String last = writer.index().last().file();
        long lastEnd = java.nio.file.Files.size(dir.resolve(last));
        await("the last file", Duration.ofSeconds(30), () -> last.equals(d.getBinlogFilename())
                && d.getBinlogPosition() >= lastEnd || !laterFailures.isEmpty());
        assertThat(laterFailures).isEmpty();
    }

    private ServerException dumpError(java.util.function.Consumer<BinaryLogClient> setup) throws Exception {
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient c = client(events, failures);
        setup.accept(c);
        CompletableFuture<Void> connecting = CompletableFuture.runAsync(() -> {
            try {
                c.connect();
            } catch (Exception ex) {
                failures.add(ex);
            }
        });
        await("an error", Duration.ofSeconds(10), () -> !failures.isEmpty());
        connecting.get(10, TimeUnit.SECONDS);
        Predicate<Exception> server = ServerException.class::isInstance;
        return (ServerException) failures.stream().filter(server).findFirst()
                .orElseThrow(() -> new AssertionError("expected a ServerException, got " + failures));
    }

    @Test
    void connectorJLogsInWithCachingSha2OverRsaAndGetsAnswersToTheStatementsCdcToolsSend() throws Exception {
        start(BinlogFlavor.MYSQL, 64 * 1024, "0", 30);
        String url = "jdbc:mysql://127.0.0.1:" + server.port() + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true";
        try (Connection conn = DriverManager.getConnection(url, USER, PASSWORD); Statement st = conn.createStatement()) {
            try (ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString("File")).isEqualTo(writer.durability().current().position().file());
                assertThat(rs.getLong("Position")).isEqualTo(writer.durability().current().position().position());
                assertThat(rs.getString("Executed_Gtid_Set")).isEqualTo(writer.serverUuid() + ":1-30");
            }
            assertThat(single(st, "SELECT @@GLOBAL.GTID_MODE")).isEqualTo("ON");
            assertThat(single(st, "SELECT @@global.server_uuid")).isEqualTo(writer.serverUuid().toString());
            assertThat(single(st, "SELECT GTID_SUBTRACT('" + writer.serverUuid() + ":1-30', '" + writer.serverUuid()
                    + ":1-10')")).isEqualTo(writer.serverUuid() + ":11-30");
            try (ResultSet rs = st.executeQuery("SHOW GLOBAL VARIABLES LIKE 'binlog_row_image'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(2)).isEqualTo("FULL");
            }
            try (ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
                int files = 0;
                while (rs.next()) {
                    files++;
                }
                assertThat(files).isEqualTo(writer.index().entries().size());
            }
            try (ResultSet rs = st.executeQuery("show binlog events limit 3")) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(rs.getString("Log_name") + ":" + rs.getLong("Pos") + " " + rs.getString("Event_type"));
                }
                assertThat(rows).hasSize(3);
                assertThat(rows.get(0)).startsWith("binlog.000001:4 ");
            }
            try (ResultSet rs = st.executeQuery("SHOW BINARY LOG STATUS")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(5)).isEqualTo(writer.serverUuid() + ":1-30");
            }
            st.execute("SET @master_binlog_checksum = @@global.binlog_checksum, @source_binlog_checksum = @@global.binlog_checksum");
            assertThat(single(st, "SELECT @source_binlog_checksum")).isEqualTo("CRC32");
            assertThatThrownBy(() -> st.executeQuery("SELECT * FROM shop.orders GROUP BY 1"))
                    .isInstanceOfSatisfying(SQLException.class, ex -> {
                        assertThat(ex.getErrorCode()).isEqualTo(1235);
                        assertThat(ex.getMessage()).contains("SELECT * FROM shop.orders GROUP BY 1");
                    });
            assertThat(single(st, "SELECT 1")).as("the connection survives an unknown statement").isEqualTo("1");
        }
        // the second login of the same user takes caching_sha2_password's fast path
        try (Connection conn = DriverManager.getConnection(url, USER, PASSWORD); Statement st = conn.createStatement()) {
            assertThat(single(st, "SELECT VERSION()")).isEqualTo("8.0.45-tributary");
        }
        assertThatThrownBy(() -> DriverManager.getConnection(url, USER, "wrong"))
                .isInstanceOfSatisfying(SQLException.class, ex -> assertThat(ex.getErrorCode()).isEqualTo(1045));
        assertThatThrownBy(() -> DriverManager.getConnection(url, "nobody", PASSWORD))
                .isInstanceOfSatisfying(SQLException.class, ex -> assertThat(ex.getErrorCode()).isEqualTo(1045));
    }

    /**
     * Issue 16: Connector/J's {@code isReadOnly()} (which Flink CDC's connection pool calls) reads
     * {@code @@session.transaction_read_only} as a number and {@code setReadOnly} sets it; malformed SQL gets 1064
     * and the connection goes on; {@code KILL} ends a dumping client's connection, an unknown id gets 1094.
     */
    @Test
    void connectorJReadOnlyStateSyntaxErrorsAndKill() throws Exception {
        start(BinlogFlavor.MYSQL, 64 * 1024, "0", 5);
        String url = "jdbc:mysql://127.0.0.1:" + server.port() + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true";
        try (Connection conn = DriverManager.getConnection(url, USER, PASSWORD); Statement st = conn.createStatement()) {
            assertThat(conn.isReadOnly()).isFalse();
            conn.setReadOnly(true);
            assertThat(conn.isReadOnly()).isTrue();
            conn.setReadOnly(false);
            assertThat(single(st, "SELECT @@session.transaction_read_only")).isEqualTo("0");
            assertThatThrownBy(() -> st.execute("SELEC version()"))
                    .isInstanceOfSatisfying(SQLException.class, ex -> {
                        assertThat(ex.getErrorCode()).isEqualTo(1064);
                        assertThat(ex.getSQLState()).isEqualTo("42000");
                        assertThat(ex.getMessage()).endsWith("near 'SELEC version()' at line 1");
                    });
            assertThat(single(st, "SELECT CURRENT_TIMESTAMP")).hasSize(19);

            List<Event> events = new CopyOnWriteArrayList<>();
            List<Exception> failures = new CopyOnWriteArrayList<>();
            BinaryLogClient dumping = client(events, failures);
            dumping.setBinlogFilename("binlog.000001");
            dumping.setBinlogPosition(4);
            dumping.connect(10_000);
            await("the dump started", Duration.ofSeconds(10), () -> count(events, EventType.XID) == 5);
            assertThatThrownBy(() -> st.execute("KILL 999999"))
                    .isInstanceOfSatisfying(SQLException.class, ex -> {
                        assertThat(ex.getErrorCode()).isEqualTo(1094);
                        assertThat(ex.getMessage()).isEqualTo("Unknown thread id: 999999");
                    });
            st.execute("KILL QUERY " + dumping.getConnectionId());
            await("the killed dump ended", Duration.ofSeconds(10), () -> !dumping.isConnected());
            await("its connection closed", Duration.ofSeconds(10), () -> server.connectionCount() == 1);
            assertThat(single(st, "SELECT 1")).isEqualTo("1");
        }
    }

    /**
     * Issue 16: MariaDB Connector/J reads autocommit from the server status flags of the answers: after
     * {@code setAutoCommit(false)} it must see it off (Debezium's MariaDB connector refuses its snapshot otherwise).
     */
    @Test
    void mariaDbConnectorJSeesTheAutocommitItSet() throws Exception {
        start(BinlogFlavor.MARIADB, 64 * 1024, "0", 5);
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + server.port() + "/",
                USER, PASSWORD)) {
            assertThat(c.getAutoCommit()).isTrue();
            c.setAutoCommit(false);
            assertThat(c.getAutoCommit()).as("after SET autocommit=0").isFalse();
            try (java.sql.Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery("SELECT @@autocommit")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isZero();
            }
            assertThat(c.getAutoCommit()).as("after a result set").isFalse();
            c.setAutoCommit(true);
            assertThat(c.getAutoCommit()).isTrue();
        }
    }

    /** Issue 16: the {@code mariadb} client sends Debezium's MariaDB connector's wrapped statement and gets the answer. */
    @Test
    void theMariaDbClientGetsSetStatementForAnswered() throws Exception {
        Path client = Path.of("/usr/bin/mariadb");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(client), client + " is not installed");
        start(BinlogFlavor.MARIADB, 64 * 1024, "0", 5);
        Process p = new ProcessBuilder(client.toString(), "--no-defaults", "-h127.0.0.1", "-P" + server.port(), "-u" + USER,
                "-p" + PASSWORD, "--skip-ssl", "-N", "-B", "-e",
                "SET STATEMENT max_statement_time=600 FOR SELECT version();"
                        + " SET STATEMENT max_statement_time=600 FOR SELECT @@global.gtid_binlog_pos, @@tx_read_only")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out.lines().toList()).containsExactly("10.11.5-MariaDB-tributary", "0-7-5\t0");
    }

    @Test
    void heartbeatsArriveAtTheNegotiatedPeriodWhenIdle() throws Exception {
        start(BinlogFlavor.MYSQL, 64 * 1024, "0", 5);
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient c = client(events, failures);
        c.setBinlogFilename("binlog.000001");
        c.setBinlogPosition(4);
        c.setHeartbeatInterval(100);
        c.connect(10_000);
        await("5 XIDs", Duration.ofSeconds(10), () -> count(events, EventType.XID) >= 5);
        long t0 = System.nanoTime();
        await("3 heartbeats", Duration.ofSeconds(5), () -> count(events, EventType.HEARTBEAT) >= 3);
        long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(elapsedMs).as("3 heartbeats at 100 ms").isBetween(150L, 1500L);
        assertThat(failures).isEmpty();
        assertThat(c.getBinlogPosition()).isEqualTo(writer.durability().current().position().position());
    }

    @Test
    void aDumpBeforeTheBinlogIsOpenGetsACleanError() throws Exception {
        CorpusBinlog.forFlavor(BinlogFlavor.MYSQL);
        server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MYSQL, 7, List.of(DumpUser.withPassword(USER,
                PASSWORD))).withPort(0), () -> null).start();
        ServerException e = dumpError(c -> {
            c.setBinlogFilename("binlog.000001");
            c.setBinlogPosition(4);
        });
        assertThat(e.getErrorCode()).isEqualTo(1236);
        assertThat(e.getMessage()).contains("not open yet");
    }

    @Test
    void garbageTruncatedAndOversizedPacketsCloseOnlyThatConnection() throws Exception {
        start(BinlogFlavor.MYSQL, 64 * 1024, "0", 10);
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient tailing = client(events, failures);
        tailing.connect(10_000);
        byte[][] attacks = {
            "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
            {(byte) 0xff, (byte) 0xff, (byte) 0xff, 1, 0, 0},          // announces 16 MB, sends 2 bytes
            {5, 0, 0, 1, 1, 2},                                        // truncated handshake response
        };
        for (byte[] attack : attacks) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
                s.setSoTimeout(15_000);
                java.io.InputStream in = s.getInputStream();
                readPacket(in); // greeting
                s.getOutputStream().write(attack);
                s.shutdownOutput();
                byte[] reply = readPacket(in);
                assertThat(reply == null || (reply[0] & 0xff) == 0xff).as("an ERR packet or a closed connection").isTrue();
            }
        }
        await("the rejected connections are gone", Duration.ofSeconds(5), () -> server.connectionCount() == 1);
        long before = count(events, EventType.XID);
        CorpusBinlog.forFlavor(BinlogFlavor.MYSQL).append(writer, 2);
        await("the subscriber still receives", Duration.ofSeconds(5), () -> count(events, EventType.XID) >= before + 2);
        assertThat(failures).isEmpty();
    }

    /** One packet's payload, or null at end of stream. */
    private static byte[] readPacket(java.io.InputStream in) throws java.io.IOException {
        byte[] header = in.readNBytes(4);
        if (header.length < 4) {
            return null;
        }
        int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
        byte[] payload = in.readNBytes(length);
        return payload.length < length ? null : payload;
    }

    /**
     * Issue 6: 64 subscribers tailing at once, one more stalled on purpose: it dumps from the start of a binlog
     * that begins with 6 MB of large DDL transactions and never reads its socket. Each phase appends transactions
     * one at a time (delay from appended, i.e. durable, to received by every tailing subscriber), then a burst of 200 (the
     * writer's own time); phase B repeats phase A with the stalled one connected. The others keep their delay,
     * the writer its pace, and the server holds at most {@code dump.subscriber.buffer} plus an event for the
     * stalled one. The second case runs fewer subscribers with a tiny tail cache, so that they fall out of it
     * during the bursts and continue from the files.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "tail cache of {0} bytes, {1} tailing subscribers")
    @org.junit.jupiter.params.provider.CsvSource({"268435456, 64", "16384, 8"})
    void tailingSubscribersKeepTheirDelayAndTheWriterItsPaceWhileOneIsStalled(long cacheBytes, int subscribers)
            throws Exception {
        int bufferBytes = 256 * 1024;
        CorpusBinlog corpus = CorpusBinlog.forFlavor(BinlogFlavor.MYSQL);
        writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MYSQL, 64L << 20, "0", "none");
        String bulk = "CREATE TABLE big_t (c INT) COMMENT '" + "x".repeat(60_000) + "'";
        for (int i = 0; i < 100; i++) {
            CorpusBinlog.appendDdl(writer, "shop", bulk);
        }
        corpus.append(writer, 5);
        server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MYSQL, 7, List.of(DumpUser.withPassword(USER,
                PASSWORD))).withPort(0).withCacheBytes(cacheBytes).withSubscriberBuffer(bufferBytes), () -> writer).start();
        long firstGno = writer.lastSequence() + 1;
        await("everything written is durable", Duration.ofSeconds(10),
                () -> writer.durability().current().lastSequence() == firstGno - 1);
        var end = writer.durability().current().position();
        List<java.util.Map<Long, Long>> receivedAt = new ArrayList<>();
        List<List<Long>> gnos = new ArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        for (int i = 0; i < subscribers; i++) {
            java.util.Map<Long, Long> at = new java.util.concurrent.ConcurrentHashMap<>();
            List<Long> order = new CopyOnWriteArrayList<>();
            receivedAt.add(at);
            gnos.add(order);
            long[] gno = {0};
            BinaryLogClient c = client(new ArrayList<>() {
                @Override
                public boolean add(Event e) { // called on the client's thread only
                    if (e.getHeader().getEventType() == EventType.GTID) {
                        gno[0] = ((GtidEventData) e.getData()).getMySqlGtid().getTransactionId();
                        order.add(gno[0]);
                    } else if (e.getHeader().getEventType() == EventType.XID) {
                        at.put(gno[0], System.nanoTime());
                    }
                    return true;
                }
            }, failures);
            c.setBinlogFilename(end.file());
            c.setBinlogPosition(end.position());
            c.connect(10_000);
        }
        await("every subscriber is dumping", Duration.ofSeconds(30), () -> server.subscriberCount() == subscribers);

        phase(corpus, receivedAt, failures); // warm-up: the first transactions through 64 new clients are slower
        Phase a = phase(corpus, receivedAt, failures);
        java.net.Socket stalled = stalledDump();
        // the channel turns unwritable past the buffer (the high water mark) and stays so until its queue drains
        // below a quarter of it (the low one), which a reader that never reads does not let it do; once unwritable,
        // the socket may still take a little of the queue
        await("the stalled subscriber's backlog reaches the buffer", Duration.ofSeconds(30),
                () -> server.largestSubscriberBacklogBytes() >= bufferBytes / 4);
        Phase b = phase(corpus, receivedAt, failures);
        long backlog = server.largestSubscriberBacklogBytes();
        long binlogBytes = writer.durability().current().position().position();

        System.out.printf("dump fan-out (cache %d B, %d tailing subscribers): delay appended -> received p50/p99"
                + " %.2f/%.2f ms before, %.2f/%.2f ms with one stalled; 200 transactions appended in %d ms before, %d ms"
                + " with one stalled; stalled subscriber's backlog in the server %d B (dump.subscriber.buffer %d B) of"
                + " %d B written; events read from files %d, from the cache %d%n", cacheBytes, subscribers, a.p50Ms,
                a.p99Ms, b.p50Ms, b.p99Ms, a.burstMs, b.burstMs, backlog, bufferBytes, binlogBytes,
                server.eventsReadFromFiles(), server.eventsServedFromCache());
        assertThat(failures).isEmpty();
        for (List<Long> order : gnos) {
            assertThat(order).as("every transaction once, in order").isEqualTo(
                    java.util.stream.LongStream.rangeClosed(firstGno, writer.lastSequence()).boxed().toList());
        }
        assertThat(b.p50Ms).as("median delay with one subscriber stalled (before: %.2f ms)", a.p50Ms)
                .isLessThanOrEqualTo(2 * a.p50Ms + 10);
        assertThat(b.burstMs).as("writer time for 200 transactions with one subscriber stalled (before: %d ms)",
                a.burstMs).isLessThanOrEqualTo(2 * a.burstMs + 500);
        // the streamer stops once the buffer is full; its last batch is at most 64 KB and one event (60 KB here)
        assertThat(backlog).as("memory held for the stalled subscriber: the buffer plus one batch")
                .isBetween((long) bufferBytes / 4, bufferBytes + 64L * 1024 + 2 * 61 * 1024);
        assertThat(stalled.isClosed()).isFalse();
        assertThat(server.subscriberCount()).isEqualTo(subscribers + 1);
        stalled.close();
    }

    /**
     * Issue 21, what the status page lists: each subscriber with its account, address and login time, the position
     * it is being sent and how far that is behind the durable end, in bytes over files and in transactions. One
     * subscriber tails from the end; a raw one dumps from the start of 12 MB in 1 MB files and never reads.
     */
    @Test
    void subscribersAreListedWithTheirPositionAndHowFarBehindTheDurableEndTheyAre() throws Exception {
        CorpusBinlog corpus = CorpusBinlog.forFlavor(BinlogFlavor.MYSQL);
        writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MYSQL, 1L << 20, "0", "none");
        String bulk = "CREATE TABLE big_t (c INT) COMMENT '" + "x".repeat(60_000) + "'";
        for (int i = 0; i < 200; i++) {
            CorpusBinlog.appendDdl(writer, "shop", bulk);
        }
        corpus.append(writer, 5);
        java.time.Instant before = java.time.Instant.now();
        server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MYSQL, 7, List.of(DumpUser.withPassword(USER,
                PASSWORD))).withPort(0).withSubscriberBuffer(64 * 1024), () -> writer).start();
        await("everything written is durable", Duration.ofSeconds(10),
                () -> writer.durability().current().lastSequence() == writer.lastSequence());
        var end = writer.durability().current().position();
        List<Event> events = new CopyOnWriteArrayList<>();
        List<Exception> failures = new CopyOnWriteArrayList<>();
        BinaryLogClient tailing = client(events, failures);
        tailing.setBinlogFilename(end.file());
        tailing.setBinlogPosition(end.position());
        tailing.connect(10_000);
        java.net.Socket stalled = stalledDump();
        await("both listed", Duration.ofSeconds(10), () -> server.subscribers().size() == 2);
        // the stalled one stops once its socket and the subscriber buffer are full: the channel turned unwritable
        // past the 64 KB high water mark and stays so until its queue drains below the low one (16 KB), which a
        // reader that never reads does not let it do
        io.tributary.daemon.dump.DumpSubscriber[] last = {null};
        await("the stalled subscriber's position settles", Duration.ofSeconds(30), () -> {
            io.tributary.daemon.dump.DumpSubscriber now = server.subscribers().get(1);
            boolean settled = last[0] != null && now.sentPosition().equals(last[0].sentPosition())
                    && server.largestSubscriberBacklogBytes() >= 16 * 1024;
            last[0] = now;
            if (!settled) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return settled;
        });
        corpus.append(writer, 1);
        await("the tailing client got the new transaction", Duration.ofSeconds(10),
                () -> count(events, EventType.XID) >= 1);
        var endNow = writer.durability().current();
        await("the tailing subscriber's position published", Duration.ofSeconds(10),
                () -> endNow.position().equals(server.subscribers().get(0).sentPosition()));

        List<io.tributary.daemon.dump.DumpSubscriber> subs = server.subscribers();

        assertThat(subs).hasSize(2);
        var t = subs.get(0);
        var s = subs.get(1);
        assertThat(t.connectionId()).isLessThan(s.connectionId());
        assertThat(List.of(t.user(), s.user())).containsOnly(USER);
        assertThat(s.remoteAddress()).isEqualTo("127.0.0.1:" + stalled.getLocalPort());
        assertThat(t.remoteAddress()).startsWith("127.0.0.1:").isNotEqualTo(s.remoteAddress());
        assertThat(s.connectedSince()).isBetween(before, java.time.Instant.now());
        assertThat(s.request()).contains("from binlog.000001:4");
        assertThat(t.behindBytes()).isZero();
        assertThat(t.behindTransactions()).isZero();
        assertThat(t.sentSequence()).isEqualTo(endNow.lastSequence());
        var sent = s.sentPosition();
        assertThat(sent.compareTo(endNow.position())).as("the stalled one at %s is behind %s", sent, endNow).isNegative();
        long expected = java.nio.file.Files.size(dir.resolve(sent.file())) - sent.position();
        for (var e : writer.index().entries()) {
            if (e.number() > sent.fileNumber() && e.number() < endNow.position().fileNumber()) {
                expected += java.nio.file.Files.size(dir.resolve(e.file()));
            }
        }
        expected += endNow.position().position();
        assertThat(endNow.position().fileNumber()).as("the end is files away").isGreaterThan(sent.fileNumber() + 2);
        assertThat(s.behindBytes()).isEqualTo(expected);
        assertThat(s.behindTransactions()).isEqualTo(endNow.lastSequence() - s.sentSequence()).isPositive();
        assertThat(failures).isEmpty();
        stalled.close();
    }

    private record Phase(double p50Ms, double p99Ms, long burstMs) {
    }

    /** 20 transactions one at a time (delay until all received each), then a burst of 200 (writer time). */
    private Phase phase(CorpusBinlog corpus, List<java.util.Map<Long, Long>> receivedAt, List<Exception> failures)
            throws Exception {
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long appended = System.nanoTime(); // binlog.sync=none: durable when the append returns
            corpus.append(writer, 1);
            long gno = writer.lastSequence();
            awaitAll(receivedAt, gno, failures);
            for (java.util.Map<Long, Long> at : receivedAt) {
                delays.add(at.get(gno) - appended);
            }
        }
        delays.sort(null);
        long t0 = System.nanoTime();
        corpus.append(writer, 200);
        long burstMs = (System.nanoTime() - t0) / 1_000_000;
        awaitAll(receivedAt, writer.lastSequence(), failures);
        return new Phase(delays.get(delays.size() / 2) / 1e6, delays.get((int) (delays.size() * 0.99)) / 1e6, burstMs);
    }

    private static void awaitAll(List<java.util.Map<Long, Long>> receivedAt, long gno, List<Exception> failures)
            throws InterruptedException {
        await("every subscriber receives transaction " + gno, Duration.ofSeconds(60),
                () -> !failures.isEmpty() || receivedAt.stream().allMatch(m -> m.containsKey(gno)));
        assertThat(failures).isEmpty();
    }

    private java.net.Socket stalledDump() throws Exception {
        java.net.Socket s = loggedInSocket(4096);
        writePacket(s.getOutputStream(), 0, dumpCommand(0, "binlog.000001"));
        return s;
    }

    /** A COM_BINLOG_DUMP from position 4 with {@code flags} and the file name bytes as given. */
    private static byte[] dumpCommand(int flags, String fileName) {
        return dumpCommand(flags, fileName, 4);
    }

    private static byte[] dumpCommand(int flags, String fileName, int position) {
        java.io.ByteArrayOutputStream d = new java.io.ByteArrayOutputStream();
        d.writeBytes(new byte[] {0x12, (byte) position, (byte) (position >> 8), (byte) (position >> 16),
                (byte) (position >>> 24), (byte) flags, 0, 99, 0, 0, 0});
        d.writeBytes(fileName.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return d.toByteArray();
    }

    /** A raw connection, logged in with mysql_native_password (receive buffer {@code receiveBuffer}, 0: default). */
    private java.net.Socket loggedInSocket(int receiveBuffer) throws Exception {
        java.net.Socket s = new java.net.Socket();
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer);
        }
        s.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
        s.setSoTimeout(10_000);
        java.io.InputStream in = s.getInputStream();
        java.io.OutputStream out = s.getOutputStream();
        byte[] greeting = readPacket(in);
        assertThat(greeting).isNotNull();
        // switch to mysql_native_password: answer the greeting with that plugin
        int nul = 1;
        while (greeting[nul] != 0) {
            nul++;
        }
        byte[] seed = new byte[20];
        System.arraycopy(greeting, nul + 1 + 4, seed, 0, 8);
        System.arraycopy(greeting, nul + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10, seed, 8, 12);
        byte[] scramble = io.tributary.core.packet.AuthScramble.nativePassword(PASSWORD.getBytes(), seed);
        java.io.ByteArrayOutputStream p = new java.io.ByteArrayOutputStream();
        int caps = 0x200 | 0x8000 | 0x80000;
        p.writeBytes(new byte[] {(byte) caps, (byte) (caps >> 8), (byte) (caps >> 16), 0, 0, 0, 0, 1, 45});
        p.writeBytes(new byte[23]);
        p.writeBytes(USER.getBytes());
        p.write(0);
        p.write(scramble.length);
        p.writeBytes(scramble);
        p.writeBytes("mysql_native_password".getBytes());
        p.write(0);
        writePacket(out, 1, p.toByteArray());
        byte[] ok = readPacket(in);
        assertThat(ok[0]).as("authenticated").isEqualTo((byte) 0);
        return s;
    }

    /**
     * Issue 16: zongji sends the file name NUL-terminated, as MySQL and MariaDB read it ({@code strlen}); the dump
     * starts in that file instead of failing with "not a binlog file name". The non-blocking dump ends with EOF.
     */
    @Test
    void aNulTerminatedFileNameStartsInThatFile() throws Exception {
        start(BinlogFlavor.MYSQL, 4096, "0", 30);
        assertThat(writer.index().entries().size()).isGreaterThan(2);
        String second = writer.index().entries().get(1).file();
        try (java.net.Socket s = loggedInSocket(0)) {
            writePacket(s.getOutputStream(), 0, dumpCommand(0x01, second + "\0"));
            List<byte[]> events = dumpedEvents(s.getInputStream());
            assertThat(events.get(0)[4]).as("first event: the ROTATE to the file asked for (no checksum: none negotiated)").isEqualTo((byte) 4);
            assertThat(new String(events.get(0), 19 + 8, events.get(0).length - 19 - 8,
                    java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo(second);
            long xids = events.stream().filter(e -> e[4] == 16).count();
            assertThat(xids).as("the transactions from the second file on").isPositive().isLessThan(30);
        }
    }

    /** Issue 16: on the MariaDB flavor a lone {@code "\0"} name is no name: the GTID start of @slave_connect_state. */
    @Test
    void aNulFileNameStartsAtTheMariaDbGtidPosition() throws Exception {
        start(BinlogFlavor.MARIADB, 4096, "0", 40);
        assertThat(gtidSequencesDumped("0-7-25", dumpCommand(0x01, "\0")))
                .isEqualTo(java.util.stream.LongStream.rangeClosed(26, 40).boxed().toList());
    }

    /**
     * A MariaDB replica in GTID mode reconnecting sends the file and position it had read to as well as
     * {@code @slave_connect_state}; the position may be inside a transaction (the connection was cut there). MariaDB's
     * server starts at the GTID state and ignores the position, and the replica expects the cut transaction again
     * from its GTID event: so does the dump server (it used to start at the position, and the replica stopped with
     * "Relay log write failure: could not queue event from master").
     */
    @Test
    void aMariaDbGtidStateWinsOverTheFileAndPositionOfAReconnectingReplica() throws Exception {
        start(BinlogFlavor.MARIADB, 4096, "0", 40);
        // a position inside the first file's transactions, not at an event boundary
        assertThat(gtidSequencesDumped("0-7-25", dumpCommand(0x01, "binlog.000001", 1000)))
                .isEqualTo(java.util.stream.LongStream.rangeClosed(26, 40).boxed().toList());
    }

    /**
     * The MariaDB GTID sequence numbers of a non-blocking dump sent as {@code dump} after
     * {@code SET @slave_connect_state = state}, in the order they came.
     */
    private List<Long> gtidSequencesDumped(String state, byte[] dump) throws Exception {
        try (java.net.Socket s = loggedInSocket(0)) {
            byte[] set = ("\u0003SET @slave_connect_state = '" + state + "'")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            writePacket(s.getOutputStream(), 0, set);
            assertThat(readPacket(s.getInputStream())[0]).as("OK to the SET").isEqualTo((byte) 0);
            writePacket(s.getOutputStream(), 0, dump);
            List<Long> seqs = new ArrayList<>();
            for (byte[] e : dumpedEvents(s.getInputStream())) {
                if ((e[4] & 0xff) == 162) {
                    seqs.add(java.nio.ByteBuffer.wrap(e, 19, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong());
                }
            }
            return seqs;
        }
    }

    /** The events of a non-blocking dump up to its EOF (each without the OK byte); an ERR packet fails. */
    private static List<byte[]> dumpedEvents(java.io.InputStream in) throws java.io.IOException {
        List<byte[]> events = new ArrayList<>();
        while (true) {
            byte[] p = readPacket(in);
            assertThat(p).as("a packet before EOF").isNotNull();
            if ((p[0] & 0xff) == 0xff) {
                throw new AssertionError("ERR packet: " + new String(p, 3, p.length - 3,
                        java.nio.charset.StandardCharsets.UTF_8));
            }
            if ((p[0] & 0xff) == 0xfe && p.length < 9) {
                return events;
            }
            events.add(java.util.Arrays.copyOfRange(p, 1, p.length));
        }
    }

    private static void writePacket(java.io.OutputStream out, int seq, byte[] payload) throws java.io.IOException {
        out.write(new byte[] {(byte) payload.length, (byte) (payload.length >> 8), (byte) (payload.length >> 16),
            (byte) seq});
        out.write(payload);
        out.flush();
    }

    @Test
    void connectorJLogsInOverTlsWithTheClearPasswordPath() throws Exception {
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                key.toString(), "-out", cert.toString(), "-days", "1", "-subj", "/CN=127.0.0.1")
                .redirectErrorStream(true).start();
        String out = new String(openssl.getInputStream().readAllBytes());
        org.junit.jupiter.api.Assumptions.assumeTrue(openssl.waitFor() == 0, "openssl cannot make a certificate: " + out);
        CorpusBinlog.forFlavor(BinlogFlavor.MYSQL);
        writer = CorpusBinlog.openWriter(dir.resolve("binlog"), BinlogFlavor.MYSQL, 64 * 1024, "0");
        server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MYSQL, 7, List.of(DumpUser.withPassword(USER,
                PASSWORD))).withPort(0).withTls(cert, key), () -> writer).start();
        // sslMode=REQUIRED fails unless the server offers TLS; without the public key the first (full)
        // caching_sha2 authentication can only succeed by sending the password inside TLS
        String url = "jdbc:mysql://127.0.0.1:" + server.port() + "/?sslMode=REQUIRED&allowPublicKeyRetrieval=false";
        try (Connection conn = DriverManager.getConnection(url, USER, PASSWORD); Statement st = conn.createStatement()) {
            assertThat(single(st, "SELECT VERSION()")).isEqualTo("8.0.45-tributary");
        }
        assertThatThrownBy(() -> DriverManager.getConnection(url, USER, "wrong"))
                .isInstanceOfSatisfying(SQLException.class, ex -> assertThat(ex.getErrorCode()).isEqualTo(1045));
        String plain = "jdbc:mysql://127.0.0.1:" + server.port() + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true";
        try (Connection conn = DriverManager.getConnection(plain, USER, PASSWORD); Statement st = conn.createStatement()) {
            assertThat(single(st, "SELECT 1")).as("TLS stays optional").isEqualTo("1");
        }
    }

    private static String single(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            assertThat(rs.next()).as(sql).isTrue();
            return rs.getString(1);
        }
    }
}
