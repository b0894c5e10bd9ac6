package io.tributary.test.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.test.junit.WithShards;
import io.tributary.test.load.SampleLoad;
import io.tributary.test.shard.ShardCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page of a running daemon, as a person sees it in a browser: the daemon runs over 2 live shards under
 * the sample load with {@code mariadb-binlog --read-from-remote-server --stop-never} connected to its dump port, and
 * Debian's Chromium (headless, started by the test) opens {@code /status}, runs its script against
 * {@code /status.json} and hands back the DOM (and a screenshot under {@code target/status-page.png} for a person to
 * look at). Skipped, with the reason, where Chromium or {@code mariadb-binlog} is not installed.
 */
@WithShards(count = 2)
class StatusPageIT {

    /** Debian's Chromium; {@code -Dtributary.chromium=PATH} names another (e.g. {@code chromium-browser}). */
    private static final Path CHROMIUM = Path.of(System.getProperty("tributary.chromium", "/usr/bin/chromium"));
    private static final Path MARIADB_BINLOG = Path.of("/usr/bin/mariadb-binlog");
    private static final Pattern SHARD_ROW = Pattern.compile("<tr data-shard=\"([^\"]+)\">(.*?)</tr>", Pattern.DOTALL);
    private static final Pattern SUBSCRIBER_ROW = Pattern.compile("<tr data-subscriber=\"(\\d+)\">(.*?)</tr>",
            Pattern.DOTALL);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldShowEveryShardTheThroughputAndTheSubscriberInARealBrowser(ShardCluster shards, @TempDir Path dir)
            throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), CHROMIUM + " is not installed (Debian package chromium; .ci/run"
                + " installs it)");
        assumeTrue(Files.isExecutable(MARIADB_BINLOG), MARIADB_BINLOG + " is not installed (Debian package"
                + " mariadb-client): it is the subscriber the page must list");
        AtomicBoolean loading = new AtomicBoolean(true);
        Process subscriber = null;
        try (SampleLoad load = new SampleLoad(shards.infos(), 21, 8)) {
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
            try (DaemonProcess daemon = DaemonProcess.builder(shards.infos(), dir).flavor("mariadb")
                    .property("cdc.status.interval", "1s").start()) {
                daemon.awaitTransactions(100, Duration.ofSeconds(90));
                subscriber = new ProcessBuilder(MARIADB_BINLOG.toString(), "--no-defaults", "--read-from-remote-server",
                        "--stop-never", "--host=127.0.0.1", "--port=" + daemon.dumpPort(),
                        "--user=" + DaemonProcess.DUMP_USER, "--password=" + DaemonProcess.DUMP_PASSWORD,
                        "--result-file=" + dir.resolve("subscriber.out"), "binlog.000001")
                        .redirectErrorStream(true).redirectOutput(dir.resolve("subscriber.log").toFile()).start();
                awaitSubscriber(daemon, Duration.ofSeconds(30));
                JsonNode before = awaitSamples(daemon, 15, Duration.ofSeconds(60)); // history before the page opens

                String dom = chromium(daemon, dir, "--dump-dom");
                JsonNode after = status(daemon);

                assertThat(dom).as("the script ran without an error shown").contains("id=\"error\"></span>");
                // every shard listed with its state and a numeric delay
                Map<String, String> rows = rows(SHARD_ROW, dom);
                List<String> names = new ArrayList<>();
                after.get("shards").forEach(s -> names.add(s.get("name").asText()));
                assertThat(names).containsExactly("shard-0", "shard-1");
                assertThat(rows.keySet()).as("shard rows of the page").containsExactlyElementsOf(names);
                for (String name : names) {
                    String row = rows.get(name);
                    assertThat(cell(row, "state")).as(row).isEqualTo("STREAMING");
                    assertThat(cell(row, "delay")).as("delay of %s: %s", name, row).matches("\\d+");
                    assertThat(Long.parseLong(cell(row, "delay"))).as(row).isBetween(0L, 10_000L);
                    assertThat(cell(row, "position")).as(row).isNotEqualTo("-");
                    // how far the global binlog is behind the shard's binlog, known once the shards were asked
                    assertThat(cell(row, "behind")).as("bytes behind %s: %s", name, row).matches("\\d+(\\.\\d)? (B|KB|MB)");
                }
                // sparklines drawn from minutes of history, with points that show the load
                for (String spark : new String[] {"eps", "bps", "tps"}) {
                    List<double[]> points = polyline(dom, spark);
                    assertThat(points.size()).as("points of the %s sparkline", spark).isGreaterThan(10);
                    assertThat(new HashSet<>(points.stream().map(p -> p[1]).toList())).as("%s: a line, not flat", spark)
                            .hasSizeGreaterThan(1);
                }
                JsonNode samples = after.get("throughput").get("samples");
                assertThat(polyline(dom, "tps").size()).as("one point per sample of status.json")
                        .isBetween(before.get("throughput").get("samples").size(), samples.size());
                double maxTps = 0;
                for (JsonNode s : samples) {
                    maxTps = Math.max(maxTps, s.get("tps").asDouble());
                }
                assertThat(maxTps).as("transactions per second under the load").isGreaterThan(1);
                // the subscriber, with its user and address, as status.json has it
                JsonNode subs = after.get("dump").get("subscribers");
                assertThat(subs).as("subscribers in %s", after).hasSize(1);
                JsonNode sub = subs.get(0);
                Map<String, String> subRows = rows(SUBSCRIBER_ROW, dom);
                assertThat(subRows).containsOnlyKeys(sub.get("id").asText());
                String row = subRows.get(sub.get("id").asText());
                assertThat(cell(row, "user")).isEqualTo(DaemonProcess.DUMP_USER);
                assertThat(cell(row, "address")).startsWith("127.0.0.1:").isEqualTo(sub.get("remoteAddress").asText());
                assertThat(cell(row, "sent")).matches("binlog\\.000001:\\d+");
                assertThat(cell(row, "behind-bytes")).matches("\\d+");
                assertThat(sub.get("behindBytes").asLong()).as("a tailing subscriber is close to the end")
                        .isBetween(0L, 4L << 20);
                // the global binlog and buffer, as status.json has them
                assertThat(text(dom, "binlog-file")).isEqualTo(after.get("globalBinlog").get("written").get("file").asText());
                assertThat(text(dom, "binlog-dir")).isEqualTo(dir.resolve("binlog").toAbsolutePath().toString());
                long pageSequence = Long.parseLong(text(dom, "binlog-seq").substring(1));
                assertThat(pageSequence).isBetween(before.get("globalBinlog").get("lastSequence").asLong(),
                        after.get("globalBinlog").get("lastSequence").asLong());
                assertThat(text(dom, "dump-subscribers")).isEqualTo("1");
                assertThat(text(dom, "version")).isEqualTo(after.get("version").asText());
                assertThat(text(dom, "buffer-memory")).contains(" of ");

                Path png = Path.of("target", "status-page.png").toAbsolutePath();
                Files.deleteIfExists(png);
                chromium(daemon, dir, "--screenshot=" + png, "--window-size=1280,1100");
                assertThat(png).as("screenshot for a person to look at").isNotEmptyFile();
            } finally {
                if (subscriber != null) {
                    subscriber.destroy();
                    subscriber.waitFor(10, TimeUnit.SECONDS);
                }
                loading.set(false);
                loader.join(10_000);
            }
        }
    }

    /** Polls /status.json until the subscriber is listed; returns that status. */
    private static JsonNode awaitSubscriber(DaemonProcess daemon, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode s = null;
        while (System.nanoTime() < deadline) {
            s = status(daemon);
            if (s.get("dump").get("subscribers").size() > 0) {
                return s;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no subscriber listed in /status.json within " + timeout + ": " + s);
    }

    /** Polls /status.json until its throughput history holds {@code n} samples; returns that status. */
    private static JsonNode awaitSamples(DaemonProcess daemon, int n, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode s = null;
        while (System.nanoTime() < deadline) {
            s = status(daemon);
            if (s.get("throughput").get("samples").size() >= n) {
                return s;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("fewer than " + n + " throughput samples in /status.json after " + timeout + ": " + s);
    }

    private static JsonNode status(DaemonProcess daemon) throws IOException, InterruptedException {
        return JSON.readTree(daemon.get("/status.json"));
    }

    /**
     * Runs headless Chromium on the daemon's /status with a fresh profile; its standard output. The virtual time
     * budget lets the page's script fetch status.json and render before the DOM is taken.
     */
    private static String chromium(DaemonProcess daemon, Path dir, String... output) throws Exception {
        Path profile = Files.createTempDirectory(dir, "chromium-profile");
        List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--virtual-time-budget=5000"));
        cmd.addAll(List.of(output));
        cmd.add("http://127.0.0.1:" + daemon.managementPort() + "/status");
        Path err = dir.resolve("chromium.err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("chromium finished").isTrue();
        assertThat(p.exitValue()).as("chromium's exit code; its errors: %s", Files.readString(err)).isZero();
        return new String(out, StandardCharsets.UTF_8);
    }

    private static Map<String, String> rows(Pattern rowPattern, String dom) {
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher m = rowPattern.matcher(dom);
        while (m.find()) {
            rows.put(m.group(1), m.group(2));
        }
        return rows;
    }

    /** The text of the row's cell of class {@code cls} (its first class). */
    private static String cell(String row, String cls) {
        Matcher m = Pattern.compile("<td class=\"" + Pattern.quote(cls) + "(?: [^\"]*)?\"[^>]*>([^<]*)</td>").matcher(row);
        assertThat(m.find()).as("cell %s in %s", cls, row).isTrue();
        return m.group(1).replace("&amp;", "&");
    }

    /** The text of the element with {@code id}. */
    private static String text(String dom, String id) {
        Matcher m = Pattern.compile("id=\"" + Pattern.quote(id) + "\"[^>]*>([^<]*)<").matcher(dom);
        assertThat(m.find()).as("element #%s", id).isTrue();
        return m.group(1);
    }

    /** The points of sparkline {@code name}'s polyline. */
    private static List<double[]> polyline(String dom, String name) {
        Matcher m = Pattern.compile("id=\"spark-" + name + "\"[^>]*>\\s*<polyline points=\"([^\"]*)\"").matcher(dom);
        assertThat(m.find()).as("sparkline %s", name).isTrue();
        List<double[]> points = new ArrayList<>();
        for (String xy : m.group(1).trim().split(" +")) {
            if (!xy.isEmpty()) {
                String[] c = xy.split(",");
                points.add(new double[] {Double.parseDouble(c[0]), Double.parseDouble(c[1])});
            }
        }
        return points;
    }
}
