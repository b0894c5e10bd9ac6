package io.tributary.test.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code mariadb-binlog --read-from-remote-server} against the dump server (MariaDB flavor): the non-blocking
 * form prints every transaction of every file and exits; {@code --stop-never} keeps reading and prints a
 * transaction appended while it is connected. Skipped when {@code /usr/bin/mariadb-binlog} is absent.
 */
class MariaDbBinlogToolIT {
    private static final Path TOOL = Path.of("/usr/bin/mariadb-binlog");

    @TempDir
    Path dir;
    private GlobalBinlogWriter writer;
    private DumpServer server;
    private Process process;

    @AfterEach
    void stop() throws Exception {
        if (process != null) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
        if (writer != null) {
            writer.close();
        }
    }

    private CorpusBinlog start(int transactions) throws Exception {
        assumeTrue(Files.isExecutable(TOOL), TOOL + " is not installed");
        CorpusBinlog corpus = CorpusBinlog.forFlavor(BinlogFlavor.MARIADB);
        writer = CorpusBinlog.openWriter(dir, BinlogFlavor.MARIADB, 4096, "0");
        corpus.append(writer, transactions);
        server = new DumpServer(DumpServerConfig.defaults(BinlogFlavor.MARIADB, 7,
                List.of(DumpUser.withPassword("repl", "repl-pass"))).withPort(0), () -> writer).start();
        return corpus;
    }

    private List<String> command(String... extra) {
        List<String> cmd = new ArrayList<>(List.of(TOOL.toString(), "--no-defaults", "--read-from-remote-server",
                "--host=127.0.0.1", "--port=" + server.port(), "--user=repl", "--password=repl-pass", "--verbose"));
        cmd.addAll(List.of(extra));
        cmd.add("binlog.000001");
        return cmd;
    }

    @Test
    void nonBlockingReadPrintsEveryTransactionOfEveryFileAndExits() throws Exception {
        start(80);
        assertThat(writer.index().entries().size()).isGreaterThan(1);
        process = new ProcessBuilder(command("--to-last-log")).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out.length() > 2000 ? out.substring(out.length() - 2000) : out).isZero();
        List<String> gtids = out.lines().filter(l -> l.contains("GTID 0-7-")).toList();
        assertThat(gtids).hasSize(80);
        assertThat(gtids.get(79)).contains("GTID 0-7-80");
        assertThat(out.lines().filter(l -> l.contains("Xid = ")).count()).isEqualTo(80);
        assertThat(out).contains("### INSERT INTO `logical_");
        // the file being written carries the in-use flag; served to a subscriber it must not (as a server does)
        assertThat(out).doesNotContain("in use or was not closed properly");
    }

    @Test
    void stopNeverKeepsReadingAndPrintsATransactionAppendedWhileConnected() throws Exception {
        CorpusBinlog corpus = start(10);
        process = new ProcessBuilder(command("--stop-never", "--stop-never-slave-server-id=4242"))
                .redirectErrorStream(true).start();
        AtomicInteger gtids = new AtomicInteger();
        StringBuilder seen = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (seen) {
                        seen.append(line).append('\n');
                    }
                    if (line.contains("GTID 0-7-")) {
                        gtids.incrementAndGet();
                    }
                }
            } catch (Exception e) {
                // the process was destroyed
            }
        });
        reader.setDaemon(true);
        reader.start();
        awaitCount(gtids, 10, seen);
        corpus.append(writer, 3);
        awaitCount(gtids, 13, seen);
        assertThat(process.isAlive()).as("--stop-never keeps the connection open").isTrue();
        synchronized (seen) {
            assertThat(seen.toString()).contains("GTID 0-7-13");
        }
    }

    private static void awaitCount(AtomicInteger n, int expected, StringBuilder seen) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (n.get() < expected) {
            if (System.nanoTime() > deadline) {
                synchronized (seen) {
                    throw new AssertionError("mariadb-binlog printed " + n.get() + " GTIDs, expected " + expected
                            + "; output tail: " + seen.substring(Math.max(0, seen.length() - 2000)));
                }
            }
            Thread.sleep(5);
        }
    }
}
