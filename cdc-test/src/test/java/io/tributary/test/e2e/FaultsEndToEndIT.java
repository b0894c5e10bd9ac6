package io.tributary.test.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.Shard;
import io.tributary.test.shard.ShardCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end with faults, in one 2-minute run of the same setup as {@link SteadyLoadEndToEndIT} (4 shards,
 * daemon process, MariaDB replica by GTID, {@code oltp_write_only} load with XA):
 * <ol>
 * <li>at 25 s the daemon gets {@code kill -9} and is restarted 3 s later on the same directory and ports and catches up; the
 *     replica reconnects by itself and goes on applying with no error;</li>
 * <li>at 65 s shard 2 is stopped (the load leaves it alone first, as an application whose shard is down
 *     would) and started again 20 s later: meanwhile the health endpoint shows it DOWN and the global stream
 *     pauses (no global transaction is written while a shard's commits cannot be ordered), so the daemon falls
 *     behind the other shards and says so (health {@code catchUp} CATCHING_UP with their bytes and seconds behind,
 *     the metrics, the status line); then it catches up and {@code catchUp} is UP again;</li>
 * <li>at the end the replica's logical tables still equal the union of the shards' tables.</li>
 * </ol>
 */
@WithShards(count = 4)
class FaultsEndToEndIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long KILL_AT_MILLIS = 25_000;
    private static final long SHARD_STOP_AT_MILLIS = 65_000;
    private static final Duration SHARD_DOWN = Duration.ofSeconds(20);
    private static final int STOPPED_SHARD = 2;

    @Test
    void theReplicaSurvivesAKilledDaemonAndAStoppedShardAndStillEqualsTheShards(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        try (EndToEndRun run = EndToEndRun.start("faults", shards, SteadyLoadEndToEndIT.loadOptions(7), dir)) {
            DaemonProcess daemon = run.daemon;
            RunMonitor mon = run.monitor;
            run.startLoad();
            long t0 = System.nanoTime();

            // 1. kill -9 of the daemon, restart
            sleepUntil(t0, KILL_AT_MILLIS);
            double before = DaemonProcess.sum(daemon.metrics(), "tributary_binlog_transactions_total");
            daemon.kill9();
            long killedAt = System.nanoTime();
            mon.log("daemon killed with kill -9 after writing %.0f transactions; replica: %s", before,
                    run.replica.status().get("Slave_IO_State"));
            Thread.sleep(3000);
            long restartStart = System.nanoTime();
            daemon.restart();
            mon.log("daemon restarted in %d ms (pid %d); its recovery said: %s", (System.nanoTime() - restartStart) / 1_000_000,
                    daemon.pid(), recoveryLines(daemon));
            long reconnectStart = System.nanoTime();
            awaitReplicaStreaming(run, Duration.ofSeconds(30));
            mon.log("replica reconnected by itself %d ms after the restart", (System.nanoTime() - reconnectStart) / 1_000_000);
            awaitCaughtUp(run, Duration.ofSeconds(90));
            double killCaughtUpAfterSeconds = (System.nanoTime() - killedAt) / 1e9;
            mon.log("daemon caught up with the shards (every delay under 1 s) %.1f s after the kill",
                    killCaughtUpAfterSeconds);

            // 2. one shard stopped for 20 s, once the daemon has caught up
            sleepUntil(t0, SHARD_STOP_AT_MILLIS);
            assertThat(run.load.pauseShard(STOPPED_SHARD, 30_000)).as("load left shard %d", STOPPED_SHARD).isTrue();
            Shard shard = shards.shard(STOPPED_SHARD);
            String name = shard.info().name();
            shard.stop(Duration.ofSeconds(30));
            long downAt = System.nanoTime();
            mon.log("%s stopped; the load goes on on the other shards", name);
            Thread.sleep(5000);
            JsonNode health = health(daemon);
            JsonNode shardsHealth = health.path("components").path("shards");
            mon.log("health 5 s into the outage: shards %s, %s %s", shardsHealth.path("status").asText(), name,
                    shardsHealth.path("details").path(name));
            assertThat(shardsHealth.path("status").asText()).as("health of the shard readers while %s is down: %s", name,
                    shardsHealth).isEqualTo("DOWN");
            assertThat(shardsHealth.path("details").path(name).path("state").asText()).as("%s reader state", name)
                    .isNotEqualTo("STREAMING");
            assertThat(streaming(daemon.metrics(), name)).as("tributary_reader_streaming of %s", name).isEqualTo(0.0);
            double pausedFrom = DaemonProcess.sum(daemon.metrics(), "tributary_binlog_transactions_total");
            long loadFrom = run.load.commits();
            sleepUntilNanos(downAt + SHARD_DOWN.toNanos() - 1_000_000_000L);
            double pausedTo = DaemonProcess.sum(daemon.metrics(), "tributary_binlog_transactions_total");
            long loadTo = run.load.commits();
            mon.log("while %s was down (5 s .. 19 s): %d transactions committed on the other shards, %.0f global"
                    + " transactions written", name, loadTo - loadFrom, pausedTo - pausedFrom);
            assertThat(loadTo - loadFrom).as("load on the other shards while %s is down", name).isPositive();
            assertThat(pausedTo - pausedFrom).as("global transactions written while %s is down", name).isZero();
            // meanwhile the other shards' binlogs grow and none of it reaches the global binlog: the daemon is behind
            // them, and says how far (issue 18, "Progress")
            String other = shards.shard(0).info().name();
            JsonNode catchUp = health(daemon).path("components").path("catchUp");
            Map<String, Double> m = daemon.metrics();
            mon.log("catch-up health 19 s into the outage: %s; tributary_catchup %s", catchUp, m.get("tributary_catchup"));
            assertThat(catchUp.path("status").asText()).as("catchUp health while %s is down: %s", name, catchUp)
                    .isEqualTo("CATCHING_UP");
            assertThat(catchUp.path("details").path(other).path("bytesBehind").asLong()).as("bytes behind %s", other)
                    .isPositive();
            assertThat(catchUp.path("details").path(other).path("secondsBehind").asDouble()).as("seconds behind %s", other)
                    .isGreaterThan(5.0);
            assertThat(catchUp.path("details").path(name).path("bytesBehind").asText()).as("bytes behind the stopped %s",
                    name).isEqualTo("unknown");
            assertThat(m.get("tributary_catchup")).as("tributary_catchup").isEqualTo(1.0);
            assertThat(m.get("tributary_shard_behind_bytes{shard=\"" + other + "\"}")).as("tributary_shard_behind_bytes of %s",
                    other).isPositive();
            assertThat(daemon.logContains("| CATCHING UP (ETA ")).as("status line while behind, in %s", daemon.logFile())
                    .isTrue();
            sleepUntilNanos(downAt + SHARD_DOWN.toNanos());
            shard.start();
            long upAt = System.nanoTime();
            run.load.resumeShard(STOPPED_SHARD);
            mon.log("%s started again after %d s", name, (upAt - downAt) / 1_000_000_000L);
            double caughtUpSeconds = awaitCaughtUp(run, Duration.ofSeconds(90)) / 1000.0;
            assertThat(streaming(daemon.metrics(), name)).as("tributary_reader_streaming of %s", name).isEqualTo(1.0);
            assertThat(health(daemon).path("components").path("shards").path("status").asText())
                    .as("shard readers' health once caught up").isEqualTo("UP");
            mon.log("%s streaming again and every shard's delay under 1 s %.1f s after it came back", name, caughtUpSeconds);
            awaitCatchUpHealth(daemon, "UP", Duration.ofSeconds(15));

            // the load goes on for 2 minutes in all, and at least 20 s after the last fault
            sleepUntilNanos(Math.max(t0 + SteadyLoadEndToEndIT.LOAD.toNanos(), System.nanoTime() + 20_000_000_000L));
            List<UnionComparison.Result> results = run.finish(Duration.ofMinutes(2));
            Map<String, String> status = run.replica.status();
            double seconds = (run.loadStoppedMillis() - run.loadStartedMillis()) / 1000.0;
            System.out.printf(Locale.ROOT, "E2E faults: %d transactions (%d XA) in %.0f s with a kill -9 of the daemon at %d s"
                    + " (restarted, caught up %.1f s after the kill) and %s down for %d s from %d s; global stream caught up %.1f s after the shard came back; replica:"
                    + " IO %s, SQL %s, Last_Error '%s', Last_IO_Error '%s'; equal on %d tables%n", run.load.commits(),
                    run.load.xaCommits(), seconds, KILL_AT_MILLIS / 1000, killCaughtUpAfterSeconds, name, SHARD_DOWN.toSeconds(),
                    SHARD_STOP_AT_MILLIS / 1000, caughtUpSeconds, status.get("Slave_IO_Running"),
                    status.get("Slave_SQL_Running"), status.get("Last_Error"), status.get("Last_IO_Error"), results.size());
            assertThat(results).as("logical tables compared").hasSize(4).allSatisfy(r -> assertThat(r.equal())
                    .as("%s", r).isTrue());
            assertThat(mon.samples()).as("replica applier errors over the run").allSatisfy(s ->
                    assertThat(s.replicaSqlError()).as("at %d ms", s.elapsedMillis()).isNull());
            assertThat(status.get("Slave_IO_Running")).isEqualTo("Yes");
            assertThat(status.get("Slave_SQL_Running")).isEqualTo("Yes");
            assertThat(status.get("Last_Error")).as("Last_Error").isEmpty();
            assertThat(status.get("Last_SQL_Errno")).as("Last_SQL_Errno").isEqualTo("0");
        }
    }

    /** What the restarted daemon logged about its recovery (the torn tail it cut, the checkpoints). */
    private static String recoveryLines(DaemonProcess daemon) throws Exception {
        return java.nio.file.Files.readAllLines(daemon.logFile(), java.nio.charset.StandardCharsets.ISO_8859_1).stream()
                .filter(l -> l.contains("TributaryRuntime") && l.contains("recovery:")).map(l -> l.substring(l.indexOf("recovery:"))).toList().toString();
    }

    private static void awaitReplicaStreaming(EndToEndRun run, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, String> status = Map.of();
        while (System.nanoTime() < deadline) {
            status = run.replica.status();
            assertThat(TributaryReplica.sqlError(status)).as("replica applier error").isNull();
            if ("Yes".equals(status.get("Slave_IO_Running")) && "Yes".equals(status.get("Slave_SQL_Running"))
                    && String.valueOf(status.get("Slave_IO_State")).startsWith("Waiting for master to send event")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the replica did not reconnect within " + timeout + ": " + status);
    }

    /**
     * Milliseconds until every shard's heartbeat delay is under 1 s. While it is not, every 10 s the daemon's
     * merge thread stack is printed (what the pipeline is busy with).
     */
    private static long awaitCaughtUp(EndToEndRun run, Duration timeout) throws Exception {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long nextDump = start + 10_000_000_000L;
        Map<String, Double> m = Map.of();
        while (System.nanoTime() < deadline) {
            m = run.daemon.metrics();
            boolean caughtUp = true;
            int shards = 0;
            for (Map.Entry<String, Double> e : m.entrySet()) {
                if (e.getKey().startsWith("tributary_delay_milliseconds{")) {
                    shards++;
                    caughtUp &= !e.getValue().isNaN() && e.getValue() < 1000;
                }
            }
            if (caughtUp && shards == run.shards.size()) {
                return (System.nanoTime() - start) / 1_000_000;
            }
            if (System.nanoTime() > nextDump) {
                nextDump += 10_000_000_000L;
                run.monitor.log("still catching up; status %s; merge thread:%n%s", lastStatusLine(run.daemon),
                        mergeThreadStack(run.daemon));
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the daemon did not catch up within " + timeout + "; metrics "
                + m.entrySet().stream().filter(e -> e.getKey().startsWith("tributary_delay_milliseconds")
                        || e.getKey().startsWith("tributary_reader")).toList() + "; daemon log ends with:\n" + run.daemon.tail(30));
    }

    private static String lastStatusLine(DaemonProcess daemon) throws Exception {
        List<String> lines = java.nio.file.Files.readAllLines(daemon.logFile(), java.nio.charset.StandardCharsets.ISO_8859_1);
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).contains("status: ")) {
                return lines.get(i).substring(lines.get(i).indexOf("status: "));
            }
        }
        return "(none yet)";
    }

    /** The daemon's merge thread as {@code jcmd <pid> Thread.print} shows it (top frames). */
    private static String mergeThreadStack(DaemonProcess daemon) {
        try {
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(daemon.pid()), "Thread.print")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
            int at = out.indexOf("\"merge-");
            if (at < 0) {
                return "(no merge thread in the dump)";
            }
            List<String> lines = out.substring(at).lines().limit(25).toList();
            return String.join("\n", lines);
        } catch (Exception e) {
            return "(jcmd failed: " + e + ")";
        }
    }

    private static double streaming(Map<String, Double> metrics, String shard) {
        for (Map.Entry<String, Double> e : metrics.entrySet()) {
            if (e.getKey().startsWith("tributary_reader_streaming{") && e.getKey().contains("shard=\"" + shard + "\"")) {
                return e.getValue();
            }
        }
        return Double.NaN;
    }

    /** Waits until the catchUp health component says {@code status} (it is polled every 2 s). */
    private static void awaitCatchUpHealth(DaemonProcess daemon, String status, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode catchUp = null;
        while (System.nanoTime() < deadline) {
            catchUp = health(daemon).path("components").path("catchUp");
            if (catchUp.path("status").asText().equals(status)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("catchUp health not " + status + " within " + timeout + ": " + catchUp);
    }

    private static JsonNode health(DaemonProcess daemon) throws Exception {
        return JSON.readTree(daemon.get("/actuator/health"));
    }

    private static void sleepUntil(long t0, long elapsedMillis) throws InterruptedException {
        sleepUntilNanos(t0 + elapsedMillis * 1_000_000);
    }

    private static void sleepUntilNanos(long at) throws InterruptedException {
        long wait = at - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
    }
}
