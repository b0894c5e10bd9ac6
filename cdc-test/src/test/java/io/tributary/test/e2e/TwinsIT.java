package io.tributary.test.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.load.OltpWriteOnlyLoad;
import io.tributary.test.shard.ShardCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Twins (issue 20, "Identical output"): two daemons with the same configuration (MySQL flavor, so the GTIDs carry
 * the server UUID; 1 MB files, so they rotate during the run) but their own ports, directories and reader server ids,
 * read the same 4 shards; the second starts 15 s after the first, under an {@code oltp_write_only} load with XA
 * over 2-4 shards and rollbacks. Both write heartbeats to the shards all along. Meanwhile the second is stopped
 * cleanly (its last file then ends with a STOP, in-use flag cleared) and started again, and the first is killed with
 * {@code kill -9} (recovery cuts its torn tail) and started again. Once the load has stopped and both have caught
 * up, their global binlog files are byte-identical, file by file, the one being written included; and again after
 * both stopped cleanly (each last file then ends with the same STOP). Neither logs a warning or error about heartbeats
 * (each shard's heartbeats, from both twins, form one increasing sequence: {@code HeartbeatWriter}).
 */
@WithShards(count = 4)
class TwinsIT {

    static final Duration LOAD = Duration.ofSeconds(Long.getLong("tributary.twins.seconds", 55));
    static final Duration SECOND_STARTS_AFTER = Duration.ofSeconds(15);
    static final Duration SECOND_STOPS_AT = Duration.ofSeconds(25);
    static final Duration FIRST_KILLED_AT = Duration.ofSeconds(35);

    @Test
    void twinsStartedAtDifferentTimesWriteTheSameGlobalBinlogByteForByte(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        OltpWriteOnlyLoad.Options options = SteadyLoadEndToEndIT.loadOptions(20);
        try (OltpWriteOnlyLoad load = new OltpWriteOnlyLoad(shards.infos(), options);
                DaemonProcess a = twin(shards, dir.resolve("a"), 0).start()) {
            load.prepare();
            long t0 = System.nanoTime();
            load.start();
            log(t0, "twin a up (pid %d, dump port %d); load started: %s", a.pid(), a.dumpPort(), options);
            Thread.sleep(SECOND_STARTS_AFTER.toMillis());
            DaemonProcess started = null;
            try (DaemonProcess b = twin(shards, dir.resolve("b"), 1).start()) {
                started = b;
                log(t0, "twin b up (pid %d, dump port %d); twin a has written %.0f transactions, %d files", b.pid(),
                        b.dumpPort(), DaemonProcess.sum(a.metrics(), "tributary_binlog_transactions_total"),
                        files(binlog(a)).size());
                sleepUntil(t0, SECOND_STOPS_AT);
                int exit = b.stop(Duration.ofSeconds(60));
                assertThat(exit).as("exit code of twin b after SIGTERM").isIn(0, 143);
                String stopped = end(binlog(b));
                Thread.sleep(3000);
                b.restart();
                log(t0, "twin b stopped cleanly at %s and started again", stopped);
                sleepUntil(t0, FIRST_KILLED_AT);
                a.kill9();
                String killed = end(binlog(a));
                Thread.sleep(3000);
                a.restart();
                log(t0, "twin a killed with kill -9 at %s and started again", killed);
                sleepUntil(t0, LOAD);
                load.stop();
                long stoppedAt = System.currentTimeMillis();
                log(t0, "load stopped: %d commits (%d XA), %d aborted", load.commits(), load.xaCommits(), load.aborted());
                assertThat(load.failure()).as("load failure").isNull();
                awaitCaughtUp(a, shards.size(), stoppedAt, Duration.ofSeconds(90));
                awaitCaughtUp(b, shards.size(), stoppedAt, Duration.ofSeconds(90));
                awaitSameEnd(binlog(a), binlog(b), Duration.ofSeconds(60));
                log(t0, "both caught up: %s", files(binlog(a)));

                List<String> names = files(binlog(a));
                assertThat(names).as("files of twin a").hasSizeGreaterThanOrEqualTo(3);
                assertThat(files(binlog(b))).as("files of twin b").isEqualTo(names);
                assertIdentical(binlog(a), binlog(b), names);
                assertThat(Files.readString(binlog(b).resolve("auto.cnf"))).as("server uuid of twin b")
                        .isEqualTo(Files.readString(binlog(a).resolve("auto.cnf")));
                assertThat(load.xaCommits()).as("XA transactions committed").isPositive();
                // both twins wrote heartbeats all along (each but while it was down): one sequence, no complaint
                assertThat(heartbeatProblems(a)).as("WARN/ERROR lines about heartbeats in twin a's logs").isEmpty();
                assertThat(heartbeatProblems(b)).as("WARN/ERROR lines about heartbeats in twin b's logs").isEmpty();

                assertThat(a.stop(Duration.ofSeconds(60))).as("exit code of twin a after SIGTERM").isIn(0, 143);
                assertThat(b.stop(Duration.ofSeconds(60))).as("exit code of twin b after SIGTERM").isIn(0, 143);
                assertIdentical(binlog(a), binlog(b), names);
                byte[] last = Files.readAllBytes(binlog(a).resolve(names.get(names.size() - 1)));
                // STOP: a 19-byte header and the CRC32, nothing else
                assertThat(last[last.length - 23 + 4]).as("type of the last event after a clean stop (STOP = 3)")
                        .isEqualTo((byte) 3);
                System.out.printf(Locale.ROOT, "E2E twins: %d transactions (%d XA, %d aborted) in %d s; twin b started %d s"
                        + " after twin a, stopped and restarted at %d s; twin a killed and restarted at %d s; %d global binlog files (%d bytes) identical byte for byte, also after a clean"
                        + " stop of both; %.1f s in all%n", load.commits(), load.xaCommits(), load.aborted(),
                        LOAD.toSeconds(), SECOND_STARTS_AFTER.toSeconds(), SECOND_STOPS_AT.toSeconds(),
                        FIRST_KILLED_AT.toSeconds(), names.size(), totalBytes(binlog(a), names),
                        (System.nanoTime() - t0) / 1e9);
            } finally {
                if (started != null) {
                    keepLogs(started, "twins-b");
                }
                keepLogs(a, "twins-a");
            }
        }
    }

    private static final java.util.regex.Pattern PROBLEM = java.util.regex.Pattern.compile("^\\S+\\s+(WARN|ERROR)\\s");

    /**
     * The WARN and ERROR lines of every log of the daemon (all its starts) that speak of heartbeats: the sorter's
     * "heartbeat does not increase", the heartbeat writer's failures and lock waits, XA branches prepared in a
     * heartbeat window after a commit. Not counted, but printed: a shard whose heartbeat write ran over a second
     * ("the previous write has run"), which says how loaded the machine is, not how twins' beats mix.
     */
    static List<String> heartbeatProblems(DaemonProcess d) throws IOException {
        List<String> out = new ArrayList<>();
        List<String> slow = new ArrayList<>();
        try (java.util.stream.Stream<Path> logs = Files.list(d.directory())) {
            for (Path l : logs.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList()) {
                for (String line : Files.readAllLines(l, StandardCharsets.UTF_8)) {
                    if (PROBLEM.matcher(line).find() && line.toLowerCase(Locale.ROOT).contains("heartbeat")) {
                        (line.contains("the previous write has run") ? slow : out).add(l.getFileName() + ": " + line);
                    }
                }
            }
        }
        slow.forEach(line -> System.out.println("slow heartbeat write (machine load), pid " + d.pid() + ": " + line));
        return out;
    }

    /** The twin's logs outlive the temporary directory, under {@code target/e2e-logs/<name>}. */
    static void keepLogs(DaemonProcess d, String name) {
        Path to = Path.of("target", "e2e-logs", name).toAbsolutePath();
        try (java.util.stream.Stream<Path> logs = Files.list(d.directory())) {
            Files.createDirectories(to);
            for (Path l : logs.filter(p -> p.getFileName().toString().endsWith(".log")).toList()) {
                Files.copy(l, to.resolve(l.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            System.out.println("could not keep the logs of " + name + " in " + to + ": " + e);
        }
    }

    /** The configuration twins share, plus their own directory, ports (the harness picks free ones) and reader ids. */
    private static DaemonProcess.Builder twin(ShardCluster shards, Path dir, int readerIdBlock) {
        return DaemonProcess.builder(shards.infos(), dir).flavor("mysql").readerIdBlock(readerIdBlock)
                .heap("512m")
                .property("binlog.file.size", "1MB")
                .property("binlog.server.id", "1")
                .property("logging.level.root", "WARN")
                .property("logging.level.io.tributary.daemon.runtime", "INFO")
                .property("logging.level.io.tributary.storage.binlog", "INFO");
    }

    private static void sleepUntil(long t0, Duration elapsed) throws InterruptedException {
        long wait = t0 + elapsed.toNanos() - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000);
        }
    }

    static Path binlog(DaemonProcess d) {
        return d.directory().resolve("binlog");
    }

    static List<String> files(Path binlog) throws IOException {
        return Files.readAllLines(binlog.resolve("binlog.index"), StandardCharsets.UTF_8).stream()
                .map(l -> Path.of(l.strip()).getFileName().toString()).filter(l -> !l.isEmpty()).toList();
    }

    private static long totalBytes(Path binlog, List<String> names) throws IOException {
        long n = 0;
        for (String name : names) {
            n += Files.size(binlog.resolve(name));
        }
        return n;
    }

    /** {@code cmp} of every file: the first differing byte, if any, named. */
    static void assertIdentical(Path a, Path b, List<String> names) throws IOException {
        List<String> differing = new ArrayList<>();
        for (String name : names) {
            long at = Files.mismatch(a.resolve(name), b.resolve(name));
            if (at >= 0) {
                differing.add(name + " differs at byte " + at + " (sizes " + Files.size(a.resolve(name)) + " and "
                        + Files.size(b.resolve(name)) + ")");
            }
        }
        assertThat(differing).as("files of the twins that differ").isEmpty();
    }

    /** Until both have the same files and the last ones the same size, unchanged for 2 s. */
    static void awaitSameEnd(Path a, Path b, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String previous = null;
        long sameSince = 0;
        String now = null;
        while (System.nanoTime() < deadline) {
            now = end(a) + " / " + end(b);
            boolean same = end(a).equals(end(b));
            if (same && now.equals(previous)) {
                if (System.nanoTime() - sameSince >= 2_000_000_000L) {
                    return;
                }
            } else {
                sameSince = System.nanoTime();
            }
            previous = now;
            Thread.sleep(200);
        }
        throw new AssertionError("the twins' global binlogs did not end at the same place within " + timeout + ": " + now);
    }

    static String end(Path binlog) throws IOException {
        List<String> names = files(binlog);
        String last = names.get(names.size() - 1);
        return last + ":" + Files.size(binlog.resolve(last));
    }

    /** Until every shard's heartbeat delay says the daemon's durable output has passed {@code sinceMillis}. */
    static void awaitCaughtUp(DaemonProcess d, int shards, long sinceMillis, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Double> last = Map.of();
        while (System.nanoTime() < deadline) {
            long scrapeStart = System.currentTimeMillis();
            last = d.metrics();
            int seen = 0;
            int behind = 0;
            for (Map.Entry<String, Double> e : last.entrySet()) {
                if (e.getKey().startsWith("tributary_delay_milliseconds{")) {
                    seen++;
                    if (e.getValue().isNaN() || scrapeStart - e.getValue() <= sinceMillis) {
                        behind++;
                    }
                }
            }
            if (seen == shards && behind == 0) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("daemon pid " + d.pid() + " did not catch up within " + timeout + "; delays "
                + last.entrySet().stream().filter(e -> e.getKey().startsWith("tributary_delay")).toList()
                + "; its log ends with:\n" + d.tail(40));
    }

    private static void log(long t0, String format, Object... args) {
        System.out.printf(Locale.ROOT, "[twins %6.1f s] %s%n", (System.nanoTime() - t0) / 1e9,
                String.format(Locale.ROOT, format, args));
    }
}
