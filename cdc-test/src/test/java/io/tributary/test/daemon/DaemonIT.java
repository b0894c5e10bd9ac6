package io.tributary.test.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.test.junit.WithShards;
import io.tributary.test.load.SampleLoad;
import io.tributary.test.shard.ShardCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon as users run it (a separate JVM started with its configuration) against 2 live shards under the
 * sample load: what an operator looks at — the metrics, the health, the status line — and a graceful restart
 * that resumes from the durable checkpoint and continues the GTID sequence.
 */
@WithShards(count = 2)
class DaemonIT {

    private static final Pattern LAST_SEQUENCE = Pattern.compile("\"lastSequence\":(\\d+)");

    @Test
    void shouldReportMetricsHealthAndStatusAndResumeAfterAGracefulRestart(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        AtomicBoolean loading = new AtomicBoolean(true);
        try (SampleLoad load = new SampleLoad(shards.infos(), 7, 8)) {
            load.createSchema();
            Thread loader = new Thread(() -> {
                try {
                    while (loading.get()) {
                        load.step();
                        Thread.sleep(5);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "sample-load");
            loader.start();
            long sequenceBeforeRestart;
            try (DaemonProcess daemon = DaemonProcess.builder(shards.infos(), dir).flavor("mariadb")
                    .property("cdc.status.interval", "1s").start()) {
                daemon.awaitTransactions(100, Duration.ofSeconds(90));
                Thread.sleep(2500); // a status line or two, a delay sample per shard

                Map<String, Double> m = daemon.metrics();
                assertThat(DaemonProcess.sum(m, "tributary_binlog_events_total")).isGreaterThan(300);
                assertThat(DaemonProcess.sum(m, "tributary_binlog_dml_events_total")).isGreaterThan(100);
                assertThat(DaemonProcess.sum(m, "tributary_binlog_bytes_total")).isGreaterThan(10_000);
                for (String shard : new String[] {"shard-0", "shard-1"}) {
                    Double delay = m.get("tributary_delay_milliseconds{shard=\"" + shard + "\"}");
                    assertThat(delay).as("delay of %s in %s", shard, m.keySet()).isNotNull().isBetween(0.0, 10_000.0);
                    assertThat(m.get("tributary_commit_delay_seconds_count{shard=\"" + shard + "\"}"))
                            .as("durable transactions of %s measured", shard).isGreaterThan(10);
                    assertThat(m.get("tributary_reader_streaming{shard=\"" + shard + "\"}")).isEqualTo(1.0);
                }
                assertThat(m).containsKeys("tributary_buffer_bytes{where=\"memory\"}", "tributary_spill_store_bytes",
                        "tributary_binlog_files_total");

                String health = daemon.get("/actuator/health");
                // UP, or CATCHING_UP where a loaded machine left it more than 5 s behind a shard (it serves either way)
                assertThat(health).containsPattern("^\\{\"status\":\"(UP|CATCHING_UP)\"").contains("\"shards\"",
                        "\"globalBinlog\"", "\"disk\"", "\"catchUp\"",
                        "\"shard-0\"", "STREAMING");
                assertThat(daemon.logContains("status: EPS")).as("status line in %s", daemon.logFile()).isTrue();
                Matcher budget = Pattern.compile("memory budget of a \\S+ heap: transaction buffer \\S+ \\(storage\\.memoryLimit\\),"
                        + " tail cache \\S+ \\(dump\\.cache\\.size\\), merge ring \\S+, reader read-ahead 2 x \\S+ \\(direct\\)")
                        .matcher(Files.readString(daemon.logFile()));
                assertThat(budget.find()).as("the memory budget's startup line in %s", daemon.logFile()).isTrue();
                assertThat(budget.find()).as("one memory budget line per start").isFalse();

                Matcher seq = LAST_SEQUENCE.matcher(health);
                assertThat(seq.find()).isTrue();
                assertThat(daemon.stop(Duration.ofSeconds(60))).as("exit code after SIGTERM").isIn(0, 143);
                assertThat(daemon.logContains("Tributary stopped: global binlog durable at")).isTrue();
                String stoppedLog = Files.readString(daemon.logFile());
                Matcher durable = Pattern.compile("Tributary stopped: global binlog durable at \\S+ seq=(\\d+)")
                        .matcher(stoppedLog);
                assertThat(durable.find()).as("durable sequence in the log").isTrue();
                sequenceBeforeRestart = Long.parseLong(durable.group(1));
                assertThat(sequenceBeforeRestart).isGreaterThanOrEqualTo(Long.parseLong(seq.group(1)));

                daemon.restart();
                assertThat(daemon.logContains("no checkpoint yet")).as("resumes from checkpoints").isFalse();
                daemon.awaitTransactions(20, Duration.ofSeconds(60));
                Matcher after = LAST_SEQUENCE.matcher(daemon.get("/actuator/health"));
                assertThat(after.find()).isTrue();
                assertThat(Long.parseLong(after.group(1))).as("GTID sequence continues")
                        .isGreaterThan(sequenceBeforeRestart + 19);
            } finally {
                loading.set(false);
                loader.join(10_000);
            }
        }
    }
}
