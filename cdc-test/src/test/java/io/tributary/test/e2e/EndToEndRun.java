package io.tributary.test.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.load.OltpWriteOnlyLoad;
import io.tributary.test.shard.ShardCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One end-to-end run, the way a user runs Tributary: the daemon as its own process (MariaDB flavor) on the
 * shards, a MariaDB replica subscribed to its dump port from the start, the schema created and filled on the
 * shards while both watch (so the replica builds its tables from the global binlog), then an
 * {@link OltpWriteOnlyLoad}. {@link #finish} stops the load, waits until the daemon and then the replica
 * have caught up, and compares the replica's logical tables with the union of the shards' tables.
 */
final class EndToEndRun implements AutoCloseable {

    final ShardCluster shards;
    final OltpWriteOnlyLoad load;
    final DaemonProcess daemon;
    final TributaryReplica replica;
    final RunMonitor monitor;
    private final String name;
    private long loadStartedMillis;
    private long loadStoppedMillis;

    private EndToEndRun(String name, ShardCluster shards, OltpWriteOnlyLoad load, DaemonProcess daemon,
            TributaryReplica replica, RunMonitor monitor) {
        this.name = name;
        this.shards = shards;
        this.load = load;
        this.daemon = daemon;
        this.replica = replica;
        this.monitor = monitor;
    }

    static EndToEndRun start(String name, ShardCluster shards, OltpWriteOnlyLoad.Options options, Path dir)
            throws Exception {
        OltpWriteOnlyLoad load = new OltpWriteOnlyLoad(shards.infos(), options);
        DaemonProcess daemon = DaemonProcess.builder(shards.infos(), dir).flavor("mariadb")
                .property("logging.level.root", "WARN")
                .property("logging.level.io.tributary.status", "INFO")
                .property("logging.level.io.tributary.daemon.runtime", "INFO")
                .start();
        TributaryReplica replica = null;
        try {
            replica = TributaryReplica.start();
            replica.follow(daemon);
            RunMonitor monitor = new RunMonitor(name, daemon, load, replica, 2000);
            EndToEndRun run = new EndToEndRun(name, shards, load, daemon, replica, monitor);
            monitor.log("daemon pid %d (dump port %d, management port %d, log %s), replica %s", daemon.pid(),
                    daemon.dumpPort(), daemon.managementPort(), daemon.logFile(), replica.info());
            load.prepare();
            monitor.log("schema prepared on %d shards: %d tables x %d rows each", shards.size(), options.tables(),
                    options.tableSize());
            return run;
        } catch (Exception | Error e) {
            if (replica != null) {
                replica.close();
            }
            daemon.close();
            throw e;
        }
    }

    void startLoad() {
        loadStartedMillis = monitor.elapsedMillis();
        load.start();
        monitor.log("load started: %s", load.options());
    }

    long loadStartedMillis() {
        return loadStartedMillis;
    }

    /** Stops the load, waits for the daemon and the replica, compares; returns the comparison. */
    List<UnionComparison.Result> finish(Duration catchUpTimeout) throws Exception {
        load.stop();
        loadStoppedMillis = monitor.elapsedMillis();
        long stoppedAt = System.currentTimeMillis();
        monitor.log("load stopped: %d commits (%d single-shard, %d XA), %d aborted, %d connection errors",
                load.commits(), load.singleShardCommits(), load.xaCommits(), load.aborted(), load.connectionErrors());
        assertThat(load.failure()).as("load failure").isNull();
        awaitDaemonCaughtUp(stoppedAt, catchUpTimeout);
        String global = TributaryReplica.globalGtidPosition(daemon);
        monitor.log("daemon caught up: global binlog at GTID %s", global);
        Map<String, String> status = replica.awaitApplied(global, catchUpTimeout);
        monitor.log("replica caught up: gtid_slave_pos %s, Slave_IO_Running %s, Slave_SQL_Running %s", replica.gtidSlavePos(),
                status.get("Slave_IO_Running"), status.get("Slave_SQL_Running"));
        assertThat(TributaryReplica.globalGtidPosition(daemon)).as("global GTID position once caught up").isEqualTo(global);
        List<UnionComparison.Result> results = UnionComparison.compare(shards.infos(), load, replica);
        results.forEach(r -> monitor.log("%s", r));
        return results;
    }

    long loadStoppedMillis() {
        return loadStoppedMillis;
    }

    /**
     * Until every shard's heartbeat delay says the durable global binlog has passed {@code sinceMillis}: a
     * heartbeat is a cut, so everything the shard committed before then is in the global binlog.
     */
    void awaitDaemonCaughtUp(long sinceMillis, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Double> last = Map.of();
        while (System.nanoTime() < deadline) {
            long scrapeStart = System.currentTimeMillis();
            try {
                Map<String, Double> m = daemon.metrics();
                last = m;
                int behind = 0;
                int seen = 0;
                for (Map.Entry<String, Double> e : m.entrySet()) {
                    if (e.getKey().startsWith("tributary_delay_milliseconds{")) {
                        seen++;
                        double delay = e.getValue();
                        if (Double.isNaN(delay) || scrapeStart - delay <= sinceMillis) {
                            behind++;
                        }
                    }
                }
                if (seen == shards.size() && behind == 0) {
                    return;
                }
            } catch (java.io.IOException e) {
                // not up (yet)
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the daemon did not catch up with the shards within " + timeout + "; delays "
                + last.entrySet().stream().filter(e -> e.getKey().startsWith("tributary_delay")).toList() + "; its log ends with:\n"
                + daemon.tail(40));
    }

    @Override
    public void close() throws Exception {
        try {
            monitor.close();
            load.close();
        } finally {
            try {
                replica.close();
            } finally {
                daemon.close();
                keepLogs();
            }
        }
    }

    /** The daemon's logs outlive the temporary directory, under {@code target/e2e-logs/<run>}. */
    private void keepLogs() {
        Path to = Path.of("target", "e2e-logs", name).toAbsolutePath();
        try (java.util.stream.Stream<Path> logs = java.nio.file.Files.list(daemon.directory())) {
            java.nio.file.Files.createDirectories(to);
            for (Path log : logs.filter(p -> p.getFileName().toString().endsWith(".log")).toList()) {
                java.nio.file.Files.copy(log, to.resolve(log.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            System.out.println("daemon logs kept in " + to);
        } catch (java.io.IOException e) {
            System.out.println("could not keep the daemon logs in " + to + ": " + e);
        }
    }
}
