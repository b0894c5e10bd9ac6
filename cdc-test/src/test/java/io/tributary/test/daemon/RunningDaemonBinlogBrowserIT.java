package io.tributary.test.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.daemon.cli.BinlogBrowser;
import io.tributary.test.junit.WithShards;
import io.tributary.test.load.SampleLoad;
import io.tributary.test.shard.ShardCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code binlog --url http://127.0.0.1:PORT} (issue 21) against a running daemon over 2 live shards: after the sample
 * load, it lists over the management port what {@code binlog DIR} lists from the daemon's directory: every file
 * (the daemon rotated several), the transactions per logical table and the checkpoint, with as many transactions as
 * the daemon reports written.
 */
@WithShards(count = 2)
class RunningDaemonBinlogBrowserIT {

    private static final Pattern LAST_SEQUENCE = Pattern.compile("\"lastSequence\":(\\d+)");

    record Result(int exitCode, String out, String err) {
    }

    private static Result browse(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = BinlogBrowser.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldListTheRunningDaemonsBinlogAsTheDirectoryFormDoes(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        try (SampleLoad load = new SampleLoad(shards.infos(), 5, 6);
                DaemonProcess daemon = DaemonProcess.builder(shards.infos(), dir).flavor("mariadb")
                        .property("binlog.file.size", "32KB").start()) {
            load.createSchema();
            for (int i = 0; i < 400; i++) {
                load.step();
            }
            long sequence = awaitQuiet(daemon);
            String url = "http://127.0.0.1:" + daemon.managementPort();

            Result remote = browse("--url", url);
            Result local = browse(dir.resolve("binlog").toString());

            assertThat(remote.exitCode()).as(remote.err()).isZero();
            assertThat(local.exitCode()).as(local.err()).isZero();
            List<String> remoteLines = remote.out().lines().toList();
            assertThat(remoteLines.get(0)).isEqualTo("Global binlog " + dir.resolve("binlog").toAbsolutePath()
                    + " (daemon at " + url + ")");
            // the same files, tables and checkpoint position; the checkpoint's shard positions may move with heartbeats
            assertThat(listing(remote.out())).isEqualTo(listing(local.out()));
            long files = remoteLines.stream().filter(l -> l.matches("binlog\\.\\d{6} .*")).count();
            assertThat(files).as("the daemon rotated at 32 KB:\n%s", remote.out()).isGreaterThan(2);
            assertThat(remote.out()).contains(" transactions\n").contains(files + " files, ")
                    .contains(" " + sequence + " transactions")
                    .contains("last transaction #" + sequence + " (0-1-" + sequence + ")");
            assertThat(remoteLines.stream().filter(l -> l.startsWith("shop")).toList()).as(remote.out())
                    .isNotEmpty();
            for (String shard : new String[] {"shard-0", "shard-1"}) {
                assertThat(remoteLines.stream().filter(l -> l.startsWith(shard + " ")).toList()).as(remote.out())
                        .hasSize(1);
            }
            System.out.println(remote.out());

            // a second call reads only the file being written again and gives the same
            Result again = browse(url + "/");
            assertThat(listing(again.out())).isEqualTo(listing(remote.out()));
        }
    }

    /** Waits until the daemon's last durable sequence stops moving for 3 s; returns it. */
    private static long awaitQuiet(DaemonProcess daemon) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        long last = -1;
        long stableSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            Matcher m = LAST_SEQUENCE.matcher(daemon.get("/actuator/health"));
            long seq = m.find() ? Long.parseLong(m.group(1)) : -1;
            if (seq != last) {
                last = seq;
                stableSince = System.nanoTime();
            } else if (seq > 0 && System.nanoTime() - stableSince > Duration.ofSeconds(3).toNanos()) {
                return seq;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the daemon kept writing for 2 minutes after the load stopped; last sequence " + last);
    }

    /** The output without its title and without the checkpoint's shard lines. */
    private static List<String> listing(String out) {
        return out.lines().skip(1).filter(l -> !l.matches("shard-\\d+ .*")).toList();
    }
}
