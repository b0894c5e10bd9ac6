package io.tributary.test.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The comparison reads back what {@link MergeBenchmark} prints, and takes medians as a reader of the docs would. */
class MergeComparisonTest {

    @Test
    void readsTheBenchmarksRowsBackAndSkipsEverythingElse() {
        // 831 884 events, 134 MB in 0.25 s wall, 0.3 s of CPU of the stage's threads
        MergeBenchmark.Result r = new MergeBenchmark.Result(831_884, 134_000_000, 59_420, 250_000_000L, 300_000_000L,
                120_000_000L, 1L << 30, 3);
        List<String> output = List.of("Input per shard: mariadb-bin.000001, 207971 events, 33.6 MB",
                "| shards | append thread | events in | MB in | global transactions | events/s | MB/s | events/CPU-s |",
                "|---:|---|---:|---:|---:|---:|---:|---:|",
                MergeBenchmark.row(16, true, r),
                "12:00:00.000 INFO  [main] i.t.s.merge.MergeStage - merge stage closed after 59420 global transactions");
        List<MergeComparison.Round> rounds = MergeComparison.parse(output);
        assertThat(rounds).hasSize(1);
        MergeComparison.Round round = rounds.get(0);
        assertThat(round.shards()).isEqualTo(16);
        assertThat(round.eventsPerSecond()).isCloseTo(831_884 / 0.25, within(1.0));
        assertThat(round.megabytesPerSecond()).isCloseTo(134 / 0.25, within(0.1));
        assertThat(round.eventsPerCpuSecond()).isCloseTo(831_884 / 0.3, within(1.0));
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertThat(MergeComparison.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(MergeComparison.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    }
}
