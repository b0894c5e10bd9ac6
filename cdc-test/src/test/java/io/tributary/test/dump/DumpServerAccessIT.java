package io.tributary.test.dump;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventType;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.admin.LiveConfig;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import io.tributary.daemon.dump.LiveVariables;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.PersistMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Who gets in and for how long, against real clients: TLS with a generated certificate (MySQL and MariaDB
 * Connector/J, {@code openssl s_client -starttls mysql}), {@code dump.authTimeout} and {@code dump.idleTimeout},
 * {@code dump.maxConnections} (error 1040), the live settings over SQL ({@code SHOW VARIABLES},
 * {@code SET GLOBAL} for admin accounts only, through the daemon's {@link LiveConfig}), and bad clients (wrong
 * password, unknown user, garbage, truncated and oversized packets, a subscriber vanishing mid-stream): each
 * gets an error or a closed connection, the server logs one line, and a tailing subscriber is unaffected.
 */
class DumpServerAccessIT {
    private static final String USER = "repl";
    private static final String PASSWORD = "repl-pass";
    private static final String ADMIN = "ops";
    private static final String ADMIN_PASSWORD = "ops-pass";

    @TempDir
    Path dir;
    private GlobalBinlogWriter writer;
    private DumpServer server;
    private final List<BinaryLogClient> clients = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger dumpLogger = (Logger) LoggerFactory.getLogger("io.tributary.daemon.dump");

    @BeforeEach
    void captureLogs() {
        logs.start();
        dumpLogger.addAppender(logs);
    }

    @AfterEach
    void stop() throws Exception {
        dumpLogger.detachAppender(logs);
        for (BinaryLogClient c : clients) {
            c.disconnect();
        }
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                // already closed by the server
            }
        }
        if (server != null) {
            server.close();
        }
        if (writer != null) {
            writer.close();
        }
    }

    private DumpServerConfig config(BinlogFlavor flavor) {
        return DumpServerConfig.defaults(flavor, 7, List.of(DumpUser.withPassword(USER, PASSWORD),
                DumpUser.withPassword(ADMIN, ADMIN_PASSWORD, true))).withPort(0);
    }

    private void start(DumpServerConfig config, LiveVariables live) throws Exception {
        CorpusBinlog corpus = CorpusBinlog.forFlavor(config.flavor());
        writer = CorpusBinlog.openWriter(dir.resolve("binlog"), config.flavor(), 1 << 20, "0", "none");
        corpus.append(writer, 5);
        server = new DumpServer(config, () -> writer, live).start();
    }

    private String mysqlUrl(String options) {
        return "jdbc:mysql://127.0.0.1:" + server.port() + "/?" + options;
    }

    private Connection connect(String url, String user, String password) throws SQLException {
        Connection c = DriverManager.getConnection(url, user, password);
        closeables.add(c);
        return c;
    }

    private Connection plain(String user, String password) throws SQLException {
        return connect(mysqlUrl("sslMode=DISABLED&allowPublicKeyRetrieval=true"), user, password);
    }

    private List<Event> tail() throws Exception {
        List<Event> events = new CopyOnWriteArrayList<>();
        BinaryLogClient c = new BinaryLogClient("127.0.0.1", server.port(), USER, PASSWORD);
        c.setServerId(3000 + clients.size());
        c.setKeepAlive(false);
        c.registerEventListener(events::add);
        clients.add(c);
        c.connect(10_000);
        return events;
    }

    private static long xids(List<Event> events) {
        return events.stream().filter(e -> e.getHeader().getEventType() == EventType.XID).count();
    }

    /** A tailing subscriber still receives what is appended now. */
    private void assertStillReceives(List<Event> events) throws Exception {
        long before = xids(events);
        CorpusBinlog.forFlavor(writerFlavor()).append(writer, 2);
        await("the tailing subscriber receives 2 new transactions", Duration.ofSeconds(10),
                () -> xids(events) >= before + 2);
    }

    private BinlogFlavor writerFlavor() {
        return writer.config().flavor();
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    private static String single(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            assertThat(rs.next()).as(sql).isTrue();
            return rs.getString(1);
        }
    }

    private static Map<String, String> variables(Statement st, String sql) throws SQLException {
        Map<String, String> m = new LinkedHashMap<>();
        try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                m.put(rs.getString(1), rs.getString(2));
            }
        }
        return m;
    }

    private List<String> dumpLogLinesSince(int from) {
        List<ILoggingEvent> all = new ArrayList<>(logs.list);
        return all.subList(Math.min(from, all.size()), all.size()).stream().map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    // ---- TLS

    @Test
    void realClientsConnectOverTlsWithTheGeneratedCertificateWhoseFingerprintIsLogged() throws Exception {
        start(config(BinlogFlavor.MYSQL).withGeneratedTls(), LiveVariables.NONE);
        String fingerprint = server.tlsFingerprint();
        assertThat(fingerprint).matches("([0-9A-F]{2}:){31}[0-9A-F]{2}");
        assertThat(logs.list).anySatisfy(e -> assertThat(e.getFormattedMessage())
                .contains("generated a self-signed certificate").contains(fingerprint));

        // MySQL Connector/J: REQUIRED fails unless TLS is offered; without the RSA public key, the first
        // caching_sha2_password login can only succeed by sending the password inside TLS
        try (Connection c = connect(mysqlUrl("sslMode=REQUIRED&allowPublicKeyRetrieval=false"), USER, PASSWORD);
             Statement st = c.createStatement()) {
            assertThat(single(st, "SELECT 1")).isEqualTo("1");
            assertThat(variables(st, "SHOW GLOBAL VARIABLES LIKE 'have_ssl'")).containsEntry("have_ssl", "YES");
        }

        // the certificate a client receives is the one whose fingerprint was logged
        Process openssl;
        try {
            openssl = new ProcessBuilder("bash", "-c", "openssl s_client -connect 127.0.0.1:" + server.port()
                    + " -starttls mysql </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256")
                    .redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            System.out.println("SKIPPING the openssl fingerprint check: " + e.getMessage());
            return;
        }
        String out = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        assertThat(openssl.waitFor(20, TimeUnit.SECONDS)).isTrue();
        org.junit.jupiter.api.Assumptions.assumeTrue(out.contains("="), "openssl s_client -starttls mysql gave: " + out);
        assertThat(out.substring(out.indexOf('=') + 1).toUpperCase()).isEqualTo(fingerprint);
    }

    @Test
    void mariaDbConnectorJWithSslModeTrustConnectsOverTheGeneratedCertificate() throws Exception {
        start(config(BinlogFlavor.MARIADB).withGeneratedTls(), LiveVariables.NONE);
        String url = "jdbc:mariadb://127.0.0.1:" + server.port() + "/?sslMode=trust";
        try (Connection c = connect(url, USER, PASSWORD); Statement st = c.createStatement()) {
            assertThat(single(st, "SELECT VERSION()")).contains("MariaDB");
        }
        // the same client insisting on TLS is refused by a server without it: the option is not a no-op
        server.close();
        server = new DumpServer(config(BinlogFlavor.MARIADB), () -> writer).start();
        String noTls = "jdbc:mariadb://127.0.0.1:" + server.port() + "/?sslMode=trust";
        assertThatThrownBy(() -> connect(noTls, USER, PASSWORD)).isInstanceOf(SQLException.class);
    }

    // ---- timeouts and limits

    @Test
    void idleCommandConnectionsAreClosedButNotSubscribersAndSlowLoginsAreCut() throws Exception {
        // MariaDB flavor: mysql_native_password logins take no RSA exchange, so a busy machine stays well
        // inside the short auth timeout
        start(config(BinlogFlavor.MARIADB).withTimeouts(Duration.ofMillis(800), Duration.ofSeconds(1)),
                LiveVariables.NONE);
        List<Event> events = tail();
        String url = "jdbc:mariadb://127.0.0.1:" + server.port() + "/";
        Connection idle = connect(url, USER, PASSWORD);
        Connection busy = connect(url, USER, PASSWORD);
        int logsBefore = logs.list.size();
        long t0 = System.nanoTime();
        try (Statement st = busy.createStatement()) {
            while (System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(2500)) {
                assertThat(single(st, "SELECT 1")).as("a connection in use is never idle").isEqualTo("1");
                Thread.sleep(200);
            }
        }
        busy.close();
        await("the idle connection is closed", Duration.ofSeconds(5), () -> server.connectionCount() == 1);
        assertThatThrownBy(() -> idle.createStatement().executeQuery("SELECT 1")).isInstanceOf(SQLException.class);
        assertThat(dumpLogLinesSince(logsBefore)).filteredOn(l -> l.contains("idle for")).singleElement()
                .satisfies(l -> assertThat(l).contains("dump.idleTimeout"));
        assertStillReceives(events); // 2.5 s without sending anything: a dumping subscriber is never idle

        // a client that connects and never logs in is cut after dump.authTimeout
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            assertThat(readPacket(in)).as("greeting").isNotNull();
            long t1 = System.nanoTime();
            assertThat(in.read()).as("closed by the server").isEqualTo(-1);
            long ms = (System.nanoTime() - t1) / 1_000_000;
            assertThat(ms).as("closed after the 800 ms auth timeout").isBetween(500L, 5000L);
        }
        assertThat(logs.list).anySatisfy(e -> assertThat(e.getFormattedMessage()).contains("not authenticated within"));
    }

    @Test
    void connectionBeyondMaxConnectionsGetsError1040AndTheOthersAreUnaffected() throws Exception {
        start(config(BinlogFlavor.MYSQL).withMaxConnections(3), LiveVariables.NONE);
        List<Event> events = tail();
        Connection a = plain(USER, PASSWORD);
        Connection b = plain(USER, PASSWORD);
        assertThatThrownBy(() -> plain(USER, PASSWORD)).isInstanceOfSatisfying(SQLException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(1040);
            assertThat(e.getMessage()).contains("Too many connections");
        });
        for (Connection c : List.of(a, b)) {
            try (Statement st = c.createStatement()) {
                assertThat(single(st, "SELECT 1")).isEqualTo("1");
            }
        }
        assertStillReceives(events);
        a.close();
        await("the closed connection is released", Duration.ofSeconds(5), () -> server.connectionCount() == 2);
        try (Statement st = plain(USER, PASSWORD).createStatement()) {
            assertThat(single(st, "SELECT 1")).as("a freed slot is usable again").isEqualTo("1");
        }
    }

    // ---- live settings over SQL

    @Test
    void adminsChangeLiveSettingsWithSetGlobalAndOthersOnlyReadThem() throws Exception {
        PersistConfig keys = PersistConfig.forThisJvm();
        Path overrides = dir.resolve("tributary-overrides.properties");
        LiveConfig live = new LiveConfig(keys, keys.defaultSettings(), overrides);
        start(config(BinlogFlavor.MYSQL), live);

        try (Statement st = plain(USER, PASSWORD).createStatement()) {
            Map<String, String> shown = variables(st, "SHOW VARIABLES LIKE 'storage%'");
            assertThat(shown).containsEntry("storage.persist.mode", "AUTO").containsEntry("storage.persistNewThreshold",
                    "0.85").containsKeys("storage.persistAllThreshold", "storage.txnPersistThreshold");
            assertThat(shown).isEqualTo(variables(st, "SHOW GLOBAL VARIABLES LIKE 'storage%'"));
            assertThatThrownBy(() -> st.execute("SET GLOBAL storage.persist.mode = 'FORCE'"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1227);
                        assertThat(e.getMessage()).contains("SUPER privilege");
                    });
            assertThat(live.persist().current().mode()).isEqualTo(PersistMode.AUTO);
        }

        try (Statement st = plain(ADMIN, ADMIN_PASSWORD).createStatement()) {
            st.execute("SET GLOBAL storage.persist.mode = 'FORCE'");
            assertThat(live.persist().current().mode()).isEqualTo(PersistMode.FORCE);
            assertThat(variables(st, "SHOW GLOBAL VARIABLES LIKE 'storage.persist.mode'"))
                    .containsExactly(Map.entry("storage.persist.mode", "FORCE"));
            assertThat(Files.readString(overrides)).contains("storage.persist.mode=FORCE");

            st.execute("SET GLOBAL `storage`.`persist.mode` = AUTO");
            assertThat(live.persist().current().mode()).isEqualTo(PersistMode.AUTO);
            st.execute("SET @@global.`storage.persistNewThreshold` = 0.8");
            assertThat(live.persist().current().newThreshold()).isEqualTo(0.8);
            assertThat(single(st, "SELECT @@`storage.persistNewThreshold`")).isEqualTo("0.8");

            assertThatThrownBy(() -> st.execute("SET GLOBAL storage.persist.mode = 'SOMETIMES'"))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getErrorCode()).isEqualTo(1231);
                        assertThat(e.getMessage()).contains(
                                "Invalid value SOMETIMES for configuration storage.persist.mode: expected AUTO or FORCE");
                    });
            assertThatThrownBy(() -> st.execute("SET GLOBAL storage.persistNewThreshold = 0.99"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getMessage())
                            .contains("Invalid value 0.99 for configuration storage.persistNewThreshold: must not exceed"));
            assertThatThrownBy(() -> st.execute("SET storage.persist.mode = 'FORCE'"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(1229));
            assertThatThrownBy(() -> st.execute("SET GLOBAL storage.noSuchKey = 1"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(1193));
            assertThat(live.persist().current().mode()).as("refused edits change nothing").isEqualTo(PersistMode.AUTO);
            assertThat(live.persist().current().newThreshold()).isEqualTo(0.8);
            assertThat(single(st, "SELECT 1")).as("the connection survives refused edits").isEqualTo("1");
        }
        assertThat(LiveConfig.readOverrides(overrides)).containsEntry("storage.persist.mode", "AUTO")
                .containsEntry("storage.persistNewThreshold", "0.8");
    }

    // ---- bad clients

    @Test
    void eachBadClientGetsAnErrorOrAClosedConnectionAndOneLogLineWhileASubscriberIsUnaffected() throws Exception {
        start(config(BinlogFlavor.MYSQL), LiveVariables.NONE);
        List<Event> events = tail();
        await("the subscriber is dumping", Duration.ofSeconds(5), () -> server.subscriberCount() == 1);
        Map<String, ThrowingRunnable> attacks = new LinkedHashMap<>();
        attacks.put("wrong password", () -> assertThatThrownBy(() -> plain(USER, "wrong"))
                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(1045)));
        attacks.put("unknown user", () -> assertThatThrownBy(() -> plain("nobody", PASSWORD))
                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getErrorCode()).isEqualTo(1045)));
        attacks.put("garbage", () -> rawAttack("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
        attacks.put("truncated packet", () -> rawAttack(new byte[] {40, 0, 0, 1, 1, 2, 3}));
        attacks.put("truncated handshake response", () -> rawAttack(new byte[] {5, 0, 0, 1, 1, 2, 3, 4, 5}));
        attacks.put("oversized length", () -> rawAttack(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xfe, 1, 0, 0}));
        attacks.put("disconnect mid-stream", this::vanishWhileDumping);
        for (Map.Entry<String, ThrowingRunnable> attack : attacks.entrySet()) {
            int before = logs.list.size();
            attack.getValue().run();
            await("the bad connection is gone (" + attack.getKey() + ")", Duration.ofSeconds(10),
                    () -> server.connectionCount() == 1);
            Thread.sleep(100); // a late second line would show up here
            // a subscriber's dump request is logged when it starts: a normal event, not the failure's line
            List<String> lines = dumpLogLinesSince(before).stream().filter(l -> !l.contains("DumpRequest[")).toList();
            System.out.println(attack.getKey() + " -> " + lines);
            assertThat(lines).as("log lines for %s", attack.getKey()).hasSize(1);
            assertStillReceives(events);
        }
        assertThat(server.subscriberCount()).isEqualTo(1);
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Sends bytes after the greeting; expects an ERR packet or the connection closed. */
    private void rawAttack(byte[] bytes) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(15_000);
            InputStream in = s.getInputStream();
            assertThat(readPacket(in)).as("greeting").isNotNull();
            s.getOutputStream().write(bytes);
            s.shutdownOutput();
            byte[] reply = readPacket(in);
            assertThat(reply == null || (reply[0] & 0xff) == 0xff).as("an ERR packet or a closed connection").isTrue();
        }
    }

    /** A subscriber with a large backlog that closes its socket while events are being sent to it. */
    private void vanishWhileDumping() throws Exception {
        CorpusBinlog.forFlavor(writerFlavor()).append(writer, 200);
        BinaryLogClient c = new BinaryLogClient("127.0.0.1", server.port(), USER, PASSWORD);
        c.setServerId(3999);
        c.setKeepAlive(false);
        c.setBinlogFilename("binlog.000001");
        c.setBinlogPosition(4);
        List<Event> got = new CopyOnWriteArrayList<>();
        c.registerEventListener(got::add);
        c.connect(10_000);
        await("it is receiving", Duration.ofSeconds(10), () -> !got.isEmpty());
        c.disconnect();
    }

    private static byte[] readPacket(InputStream in) throws java.io.IOException {
        byte[] header = in.readNBytes(4);
        if (header.length < 4) {
            return null;
        }
        int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
        byte[] payload = in.readNBytes(length);
        return payload.length < length ? null : payload;
    }
}
