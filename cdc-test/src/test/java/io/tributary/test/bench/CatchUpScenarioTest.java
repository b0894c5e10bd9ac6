package io.tributary.test.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The catch-up scenario's second-half rate: what a longer backlog runs at once the JVM is warm. */
class CatchUpScenarioTest {

    @Test
    void shouldMeasureTheSecondHalfOnlyInShardMegabytes() {
        // 10 MB/s of global binlog for the first 4 s (a cold JVM), then 40 MB/s until 8 s; first output at 0 s
        List<double[]> points = List.of(new double[] {0, 0}, new double[] {2, 20}, new double[] {4, 40},
                new double[] {5, 80}, new double[] {6, 120}, new double[] {8, 200}, new double[] {9, 200});
        // shard binlogs 1.5x the global one (statement text and heartbeats dropped)
        assertThat(CatchUpScenario.secondHalfRate(points, 0, 8, 1.5)).isCloseTo(60.0, within(1e-9));
    }

    @Test
    void shouldSayNotKnownWhenTheSamplesDoNotSpanTheSecondHalf() {
        List<double[]> points = List.of(new double[] {0, 0}, new double[] {1, 10});
        assertThat(CatchUpScenario.secondHalfRate(points, 0, 8, 1.0)).isNaN();
    }

    @Test
    void shouldCompareThePeerByTheMediansOfItsRounds() {
        List<CatchUpScenario.Result> base = List.of(result(100, 120, 500, 20), result(90, 110, 500, 22),
                result(300, 130, 500, 21));
        List<CatchUpScenario.Result> peer = List.of(result(120, 150, 500, 18), result(110, 140, 500, 19),
                result(10, 145, 500, 17));
        assertThat(CatchUpScenario.median(base, CatchUpScenario.Result::rate)).isEqualTo(100);
        assertThat(CatchUpScenario.compare("4 shards", base, peer))
                .contains("medians of 3 round(s): rate 100.0 MB/s (20% of the raw read), second half 120.0 MB/s,"
                        + " daemon CPU 21.0 s")
                .contains("peer rate 110.0 MB/s (22% of the raw read), second half 145.0 MB/s, daemon CPU 18.0 s")
                .contains("peer / base: rate 1.10, second half 1.21, daemon CPU 0.86");
        assertThat(CatchUpScenario.compare("4 shards", base, List.of())).doesNotContain("peer");
    }

    @Test
    void shouldTakeThePeerAndTheRoundsFromTheCommandLine() throws IOException {
        BenchOptions o = BenchOptions.parse("--catchup-rounds=3", "--catchup-peer-jvm=-XX:+UseParallelGC;-Xss1m");
        assertThat(o.catchupRounds()).isEqualTo(3);
        assertThat(o.catchupPeer()).isTrue();
        assertThat(o.catchupPeerJvm()).containsExactly("-XX:+UseParallelGC", "-Xss1m");
        assertThat(BenchOptions.parse().catchupPeer()).isFalse();
        BenchOptions d = BenchOptions.parse("--catchup-daemon=binlog.sync=commit",
                "--catchup-peer-daemon=binlog.sync=interval;binlog.sync.interval=10ms");
        assertThat(d.catchupPeer()).isTrue();
        assertThat(d.catchupPeerDaemon()).containsEntry("binlog.sync", "interval")
                .containsEntry("binlog.sync.interval", "10ms");
        assertThat(d.catchupDaemon()).containsEntry("binlog.sync", "commit");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--catchup-peer-daemon=nokey"))
                .hasMessageContaining("Invalid value nokey for --catchup-peer-daemon");
        BenchOptions j = BenchOptions.parse("--catchup-peer-java=" + System.getProperty("java.home"));
        assertThat(j.catchupPeer()).isTrue();
        assertThat(j.peerDescription()).isEqualTo("peer daemon on the Java runtime in " + System.getProperty("java.home"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--catchup-peer-java=/tmp"))
                .hasMessageContaining("no bin/java under it");
        assertThat(BenchOptions.parse().catchupJar()).isNull();
        Path jar = Files.createTempFile("tributary", ".jar");
        try {
            assertThat(BenchOptions.parse("--catchup-jar=" + jar).catchupJar()).isEqualTo(jar.toAbsolutePath());
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--catchup-jar=" + jar,
                    "--catchup-peer-classes=" + System.getProperty("java.io.tmpdir")))
                    .hasMessageContaining("takes no class path");
        } finally {
            Files.delete(jar);
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--catchup-jar=/no/such.jar"))
                .hasMessageContaining("Invalid value /no/such.jar for --catchup-jar: no such jar");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--catchup-jar=/tmp"))
                .hasMessageContaining("for --catchup-jar");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--catchup-rounds=0"))
                .hasMessageContaining("--catchup-rounds");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--catchup-peer-classes=/no/such"))
                .hasMessageContaining("/no/such is neither a directory nor a file");
    }

    private static CatchUpScenario.Result result(double rate, double warm, double raw, double cpu) {
        return new CatchUpScenario.Result(null, null, "", rate, warm, raw, cpu);
    }
}
