package io.tributary.test.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.junit.WithShards;
import io.tributary.test.load.OltpWriteOnlyLoad;
import io.tributary.test.shard.ShardCluster;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end, steady: 4 MariaDB shards, the daemon as its own process, a MariaDB replica subscribed to it by
 * GTID throughout, and a sysbench-like {@code oltp_write_only} load ({@link OltpWriteOnlyLoad}: 8 client
 * threads, 20 % of the transactions XA over 2-4 shards) for 2 minutes. At the end the replica's logical tables
 * equal the union of the shards' physical tables ({@code CHECKSUM TABLE}), and the commit delay p99 stayed
 * under 1 s throughout: in every {@link #WINDOW} of the load, read off the daemon's histogram
 * ({@code tributary_commit_delay_seconds_bucket}, scraped every 2 s) as a dashboard reads it;
 * {@code mariadb-binlog --read-from-remote-server} reads the whole stream from the dump port.
 *
 * <p>The load is paced ({@code -Dtributary.e2e.rate}, default 100 transactions/s over all threads): on the 2-core
 * CI machine the shards, the replica, the load and the daemon share the cores (with other builds), and flat out
 * the shards alone saturate them. {@code -Dtributary.e2e.seconds} changes the duration.
 */
@WithShards(count = 4)
class SteadyLoadEndToEndIT {

    static final Duration LOAD = Duration.ofSeconds(Long.getLong("tributary.e2e.seconds", 120));
    static final double RATE = Double.parseDouble(System.getProperty("tributary.e2e.rate", "100"));
    static final double MAX_P99_SECONDS = 1.0;
    /** The delay p99 is asserted over each such window of the load, from the first second on. */
    static final Duration WINDOW = Duration.ofSeconds(10);
    private static final Path TOOL = Path.of("/usr/bin/mariadb-binlog");

    static OltpWriteOnlyLoad.Options loadOptions(long seed) {
        return new OltpWriteOnlyLoad.Options("sbtest", 4, 1000, 8, RATE, 0.2, seed);
    }

    @Test
    void theReplicaEqualsTheUnionOfTheShardsAndDelayP99StaysUnderOneSecond(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        try (EndToEndRun run = EndToEndRun.start("steady", shards, loadOptions(42), dir)) {
            run.startLoad();
            Thread.sleep(LOAD.toMillis());
            List<UnionComparison.Result> results = run.finish(Duration.ofMinutes(2));
            double cpu = run.daemon.cpuSeconds();
            List<RunMonitor.Sample> during = run.monitor.samples(run.loadStartedMillis(), run.loadStoppedMillis());

            assertThat(results).as("logical tables compared").hasSize(4).allSatisfy(r -> assertThat(r.equal())
                    .as("%s", r).isTrue());
            assertThat(run.load.xaCommits()).as("XA transactions committed").isPositive();
            assertThat(run.monitor.samples()).as("replica applier errors").allSatisfy(s ->
                    assertThat(s.replicaSqlError()).as("at %d ms", s.elapsedMillis()).isNull());

            List<RunMonitor.Sample> scraped = run.monitor.samples().stream().filter(RunMonitor.Sample::scraped).toList();
            // From the load's start until the daemon has caught up after it (finish waited for that).
            long caughtUp = scraped.get(scraped.size() - 1).elapsedMillis();
            List<DelayWindow> windows = DelayWindow.over(scraped, run.loadStartedMillis(), caughtUp, WINDOW);
            DelayWindow whole = DelayWindow.whole(scraped, run.loadStartedMillis(), caughtUp);
            double heartbeatMax = during.stream().filter(RunMonitor.Sample::scraped)
                    .mapToDouble(RunMonitor.Sample::maxHeartbeatDelay).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
            double seconds = (run.loadStoppedMillis() - run.loadStartedMillis()) / 1000.0;
            DelayWindow worst = windows.stream().max(java.util.Comparator.comparingDouble(DelayWindow::p99)).orElseThrow();
            System.out.printf(Locale.ROOT, "E2E steady: %d transactions (%d single-shard, %d XA over 2-4 shards, %d aborted)"
                    + " in %.0f s = %.0f TPS on 4 shards; commit delay over the whole load: p50 %.3f s, p99 %.3f s (%.0f"
                    + " shard transactions, %.0f over 1 s); worst %d s window: p99 %.3f s at %s; heartbeat delay max %.0f"
                    + " ms; daemon CPU %.1f s, peak RSS %d MB; replica equal on %d tables%n", run.load.commits(),
                    run.load.singleShardCommits(), run.load.xaCommits(), run.load.aborted(), seconds,
                    run.load.commits() / seconds, whole.histogram().quantile(0.5), whole.p99(), whole.histogram().count(),
                    whole.histogram().slowerThan(MAX_P99_SECONDS), WINDOW.toSeconds(), worst.p99(), worst, heartbeatMax,
                    cpu, run.daemon.rssPeakBytes() >> 20, results.size());
            windows.forEach(w -> run.monitor.log("delay window %s", w));
            assertThat(windows.size()).as("%d s delay windows over %s of load", WINDOW.toSeconds(), LOAD)
                    .isGreaterThanOrEqualTo((int) (LOAD.toSeconds() / WINDOW.toSeconds()) - 1);
            assertThat(windows).as("every %d s window of the load: commit delay p99 under %.0f s, i.e. at most 1 %% of"
                    + " the shard transactions made durable in it took longer", WINDOW.toSeconds(), MAX_P99_SECONDS)
                    .allSatisfy(w -> assertThat(w.histogram().slowerThan(MAX_P99_SECONDS))
                            .as("%s", w).isLessThanOrEqualTo(0.01 * w.histogram().count()));

            readWithMariaDbBinlog(run);
        }
    }

    /**
     * {@code mariadb-binlog --read-from-remote-server --to-last-log} from the dump port: exits 0, prints one GTID
     * per global transaction up to the daemon's position, with row events under the logical names.
     */
    private static void readWithMariaDbBinlog(EndToEndRun run) throws Exception {
        if (!Files.isExecutable(TOOL)) {
            System.out.println("SKIPPING the mariadb-binlog check: " + TOOL + " is not installed");
            return;
        }
        String global = TributaryReplica.globalGtidPosition(run.daemon);
        long lastSeq = Long.parseLong(global.substring(global.lastIndexOf('-') + 1));
        List<String> cmd = List.of(TOOL.toString(), "--no-defaults", "--read-from-remote-server", "--host=127.0.0.1",
                "--port=" + run.daemon.dumpPort(), "--user=" + DaemonProcess.DUMP_USER,
                "--password=" + DaemonProcess.DUMP_PASSWORD, "--to-last-log", "--verbose", "binlog.000001");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        long gtids = 0;
        long updates = 0;
        long lastGtid = -1;
        boolean physicalNames = false;
        List<String> tail = new ArrayList<>();
        String prefix = "GTID 0-1-";
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                int at = line.indexOf(prefix);
                if (at >= 0) {
                    gtids++;
                    String seq = line.substring(at + prefix.length()).split("\\D", 2)[0];
                    lastGtid = Long.parseLong(seq);
                } else if (line.startsWith("### UPDATE `sbtest`.`sbtest")) {
                    updates++;
                } else if (line.contains("`sbtest_") || line.contains("__cdc")) {
                    physicalNames = true;
                }
                tail.add(line);
                if (tail.size() > 20) {
                    tail.remove(0);
                }
            }
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("mariadb-binlog finished").isTrue();
        assertThat(p.exitValue()).as("mariadb-binlog exit status; output ends with:\n%s", String.join("\n", tail)).isZero();
        assertThat(gtids).as("GTIDs mariadb-binlog printed").isEqualTo(lastSeq);
        assertThat(lastGtid).as("last GTID printed").isEqualTo(lastSeq);
        assertThat(updates).as("row updates of the logical tables printed").isGreaterThan(run.load.commits());
        assertThat(physicalNames).as("physical or heartbeat names in the stream").isFalse();
        run.monitor.log("mariadb-binlog --read-from-remote-server read %d transactions (GTID 0-1-1 .. 0-1-%d), %d row updates",
                gtids, lastGtid, updates);
    }
}
