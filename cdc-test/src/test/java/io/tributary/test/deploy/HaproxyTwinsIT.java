package io.tributary.test.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardInfo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
        try (DaemonProcess a = DaemonProcess.builder(shards.infos(), dir.resolve("twin-a")).flavor("mariadb").heap("256m")
                .start();
             DaemonProcess b = DaemonProcess.builder(shards.infos(), dir.resolve("twin-b")).flavor("mariadb").heap("256m")
                     .readerIdBlock(1).start()) {
            a.awaitTransactions(2, Duration.ofSeconds(60));
            b.awaitTransactions(2, Duration.ofSeconds(60));

            int front = freePort();
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(cfg, HaproxyFront.withPorts(HaproxyFront.checkedIn(), front,
                    new int[] {a.dumpPort(), b.dumpPort()}, new int[] {a.managementPort(), b.managementPort()}));
            Path log = dir.resolve("haproxy.log");
            proxy = new ProcessBuilder(haproxy.toString(), "-db", "-f", cfg.toString()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            awaitListening(front, proxy, log);

            String first = readThrough(front);
            assertThat(first).contains("@1=7001", "@1=7002");
            awaitLog(log, "tributary_twins/twin-a", Duration.ofSeconds(10));
            assertThat(Files.readString(log)).as("nothing reached the backup while the primary was up")
                    .doesNotContain("tributary_twins/twin-b ");

            long killed = System.nanoTime();
            a.kill9();
            awaitLog(log, "Server tributary_twins/twin-a is DOWN", Duration.ofSeconds(30));
            Duration markedDown = Duration.ofNanos(System.nanoTime() - killed);
            try (Connection c = shard.openAdminConnection(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO front_0.orders VALUES (7003, 13)");
            }
            b.awaitTransactions(3, Duration.ofSeconds(30));

            String second = readThrough(front);
            assertThat(second).contains("@1=7001", "@1=7002", "@1=7003");
            awaitLog(log, "tributary_twins/twin-b", Duration.ofSeconds(10));
            System.out.println("HaproxyTwinsIT: twin A marked DOWN " + markedDown.toMillis() + " ms after kill -9");
        } finally {
            if (proxy != null) {
                proxy.destroy();
                if (!proxy.waitFor(10, TimeUnit.SECONDS)) {
                    proxy.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
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

    private static void awaitListening(int port, Process proxy, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!proxy.isAlive()) {
                throw new AssertionError("haproxy exited with " + proxy.exitValue() + ": " + Files.readString(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("haproxy does not listen on " + port + ": " + Files.readString(log));
    }

    private static void awaitLog(Path log, String text, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.readString(log).contains(text)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("haproxy's log has no '" + text + "' after " + timeout + ":\n" + tail(Files.readString(log)));
    }

    private static String tail(String s) {
        return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
