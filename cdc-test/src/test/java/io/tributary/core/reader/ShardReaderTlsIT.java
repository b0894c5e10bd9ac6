package io.tributary.core.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.core.position.ShardPosition;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shard reader over TLS against a MariaDB 10.11 shard from the harness started with a
 * self-signed certificate (made with the {@code openssl} CLI; skipped when it is missing): the
 * reader switches to TLS after the greeting and streams when it trusts the certificate, and stops
 * with a clear, non-retried error when it does not.
 */
class ShardReaderTlsIT {
    @TempDir
    static Path certs;
    private static ShardCluster cluster;
    private static String certPem;

    @BeforeAll
    static void startShardWithCertificate() throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                    "-keyout", certs.resolve("key.pem").toString(), "-out", certs.resolve("cert.pem").toString(),
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
                    .redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            assumeTrue(false, "openssl CLI not available to make a test certificate: " + e.getMessage());
            return;
        }
        p.getInputStream().readAllBytes();
        assumeTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "openssl could not make a test certificate");
        certPem = Files.readString(certs.resolve("cert.pem"));
        cluster = ShardCluster.start(ShardClusterConfig.defaults().withCount(1).withServerOptions(List.of(
                "--ssl-cert=" + certs.resolve("cert.pem"), "--ssl-key=" + certs.resolve("key.pem"))));
    }

    @AfterAll
    static void stopShard() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static ShardReaderConfig config(ShardInfo shard, String trustPem) {
        return ShardReaderConfig.of(shard.name(), shard.host(), shard.port(), shard.replUser(), shard.replPassword(), 7001,
                ShardPosition.latest()).withTls(true, trustPem)
                .withBackoff(new ShardReaderConfig.Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0));
    }

    @Test
    void shouldStreamOverTlsWhenTheCertificateIsTrusted() throws Exception {
        ShardInfo shard = cluster.info(0);
        RecordingSink sink = new RecordingSink();
        try (ShardReader reader = new ShardReader(config(shard, certPem), sink)) {
            reader.start();
            long deadline = System.currentTimeMillis() + 10_000;
            while (reader.state() != ShardReader.State.STREAMING && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            String gtid;
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE tls_it");
                try (ResultSet rs = s.executeQuery("SELECT @@last_gtid")) {
                    rs.next();
                    gtid = rs.getString(1);
                }
            }
            assertThat(sink.await(t -> gtid.equals(t.gtid()), 1, 10_000)).hasSize(1);
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.processlist WHERE command LIKE 'Binlog Dump%'")) {
                rs.next();
                assertThat(rs.getInt(1)).as("dump threads on the shard").isEqualTo(1);
            }
        }
    }

    @Test
    void shouldStopWithAClearErrorWhenTheCertificateIsNotTrusted() {
        ShardInfo shard = cluster.info(0);
        RecordingSink sink = new RecordingSink();
        try (ShardReader reader = new ShardReader(config(shard, null), sink)) {
            reader.start();
            assertThatThrownBy(() -> reader.termination().get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(ShardReaderException.class)
                    .hasMessageStartingWith("shard " + shard.name() + ": TLS handshake with " + shard.host() + ":" + shard.port()
                            + " failed: PKIX path building failed");
            assertThat(reader.connections()).isZero();
        }
    }
}
