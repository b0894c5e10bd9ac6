package io.tributary.test.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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
}
