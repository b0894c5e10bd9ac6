package io.tributary.test.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.net.FreePorts;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/haproxy/haproxy.cfg run by a real HAProxy in front of two real daemons (twins on one embedded shard),
 * with only its addresses changed: {@code mariadb-binlog --read-from-remote-server} through HAProxy's one
 * address reads the global binlog from twin A; after {@code kill -9} of twin A the health check marks it DOWN
 * and a new connection reads from twin B, including what the shard committed after the kill. Skipped, with the
 * reason, when haproxy or mariadb-binlog is not installed.
 */
@WithShards(count = 1)
class HaproxyTwinsIT {

    private static final Path TOOL = Path.of("/usr/bin/mariadb-binlog");

    @Test
    void shouldServeTheBinlogThroughOneAddressAndFailOverToTheBackupTwin(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        Path haproxy = HaproxyFront.executable().orElse(null);
        assumeTrue(haproxy != null, "haproxy is not installed (apt-get install haproxy; .ci/run installs it)");
        assumeTrue(Files.isExecutable(TOOL), TOOL + " is not installed (mariadb-client)");
        ShardInfo shard = shards.info(0);
        try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS front_0");
            s.execute("CREATE TABLE IF NOT EXISTS front_0.orders (id BIGINT PRIMARY KEY, amount INT)");
            s.execute("INSERT INTO front_0.orders VALUES (7001, 11), (7002, 12)");
        }
        Process proxy = null;
        Process mysqlCheck = null;
        try (DaemonProcess a = twin(shards, dir.resolve("twin-a"), 0); DaemonProcess b = twin(shards, dir.resolve("twin-b"), 1)) {
            a.awaitTransactions(2, Duration.ofSeconds(60));
            b.awaitTransactions(2, Duration.ofSeconds(60));
            // the paths deploy/k8s probes, with the ConfigMap's management settings
            assertThat(b.get("/actuator/health/liveness")).startsWith("{\"status\":\"UP\"");
            assertThat(b.get("/actuator/health/readiness")).startsWith("{\"status\":\"UP\"")
                    .contains("\"shards\"", "\"globalBinlog\"", "\"disk\"", "\"readinessState\"");

            // why haproxy.cfg does not use "option mysql-check user ...": HAProxy logs in without a password,
            // which the dump server refuses, so a healthy twin is marked DOWN
            Path mysqlCfg = dir.resolve("haproxy-mysql-check.cfg");
            String httpCheck = HaproxyFront.withPorts(HaproxyFront.checkedIn(), FreePorts.next(),
                    new int[] {a.dumpPort(), b.dumpPort()}, new int[] {a.dumpPort(), b.dumpPort()});
            Files.writeString(mysqlCfg, httpCheck.replaceAll("(?m)^\\s*(option httpchk|http-check .*)$", "")
                    .replace("    default-server ", "    option mysql-check user " + DaemonProcess.DUMP_USER
                            + " post-41\n    default-server "));
            Path mysqlLog = dir.resolve("haproxy-mysql-check.log");
            mysqlCheck = new ProcessBuilder(haproxy.toString(), "-db", "-f", mysqlCfg.toString())
                    .redirectErrorStream(true).redirectOutput(mysqlLog.toFile()).start();
            HaproxyFront.awaitLog(mysqlLog, "Server tributary_twins/twin-a is DOWN", Duration.ofSeconds(30));
            assertThat(Files.readString(mysqlLog)).contains("reason: Layer7");
            assertThat(a.logContains("access denied for user '" + DaemonProcess.DUMP_USER + "'"))
                    .as("twin A refused HAProxy's login without a password: %s", a.logFile()).isTrue();
            stop(mysqlCheck);

            int front = FreePorts.next();
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(cfg, HaproxyFront.withPorts(HaproxyFront.checkedIn(), front,
                    new int[] {a.dumpPort(), b.dumpPort()}, new int[] {a.managementPort(), b.managementPort()}));
            Path log = dir.resolve("haproxy.log");
            proxy = new ProcessBuilder(haproxy.toString(), "-db", "-f", cfg.toString()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            HaproxyFront.awaitListening(front, proxy, log);

            String first = readThrough(front);
            assertThat(first).contains("@1=7001", "@1=7002");
            HaproxyFront.awaitLog(log, "tributary_twins/twin-a", Duration.ofSeconds(10));
            assertThat(Files.readString(log)).as("nothing reached the backup while the primary was up")
                    .doesNotContain("tributary_twins/twin-b ");

            long killed = System.nanoTime();
            a.kill9();
            HaproxyFront.awaitLog(log, "Server tributary_twins/twin-a is DOWN", Duration.ofSeconds(30));
            Duration markedDown = Duration.ofNanos(System.nanoTime() - killed);
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO front_0.orders VALUES (7003, 13)");
            }
            b.awaitTransactions(3, Duration.ofSeconds(30));

            String second = readThrough(front);
            assertThat(second).contains("@1=7001", "@1=7002", "@1=7003");
            HaproxyFront.awaitLog(log, "tributary_twins/twin-b", Duration.ofSeconds(10));
            System.out.println("HaproxyTwinsIT: twin A marked DOWN " + markedDown.toMillis() + " ms after kill -9");
        } finally {
            stop(proxy);
            stop(mysqlCheck);
        }
    }

    /** A twin with the management settings of deploy/k8s's ConfigMap (its probes' paths). */
    private static DaemonProcess twin(ShardCluster shards, Path dir, int index) throws IOException, InterruptedException {
        DaemonProcess.Builder b = DaemonProcess.builder(shards.infos(), dir).flavor("mariadb").heap("256m")
                .readerIdBlock(index);
        DeployKubernetesTest.managementProperties().forEach(b::property);
        return b.start();
    }

    private static void stop(Process p) throws InterruptedException {
        if (p != null && p.isAlive()) {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Every file of the global binlog, read with mariadb-binlog through HAProxy; its output. */
    private static String readThrough(int port) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(TOOL.toString(), "--no-defaults", "--read-from-remote-server",
                "--host=127.0.0.1", "--port=" + port, "--user=" + DaemonProcess.DUMP_USER,
                "--password=" + DaemonProcess.DUMP_PASSWORD, "--verbose", "--to-last-log", "binlog.000001"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("mariadb-binlog through HAProxy: %s", tail(out)).isZero();
        return out;
    }

    static String tail(String s) {
        return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
    }
}
