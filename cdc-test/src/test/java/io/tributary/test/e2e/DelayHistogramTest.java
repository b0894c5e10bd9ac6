package io.tributary.test.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The E2E test's reading of the delay histogram agrees with Prometheus's {@code histogram_quantile}. */
class DelayHistogramTest {

    private static Map<String, Double> scrape(String shard, double... cumulative) {
        String[] le = {"0.1", "0.25", "1.0", "+Inf"};
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < le.length; i++) {
            m.put("tributary_commit_delay_seconds_bucket{shard=\"" + shard + "\",le=\"" + le[i] + "\"}", cumulative[i]);
        }
        m.put("tributary_commit_delay_seconds_count{shard=\"" + shard + "\"}", cumulative[le.length - 1]);
        return m;
    }

    @Test
    void aWindowIsTheDifferenceOfTwoScrapesAndItsQuantilesInterpolateInsideTheBucket() {
        Map<String, Double> before = new LinkedHashMap<>(scrape("a", 10, 10, 10, 10));
        before.putAll(scrape("b", 0, 0, 0, 0));
        Map<String, Double> after = new LinkedHashMap<>(scrape("a", 60, 100, 110, 110));
        after.putAll(scrape("b", 50, 90, 100, 100));
        DelayHistogram window = DelayHistogram.of(after).since(DelayHistogram.of(before));

        assertThat(window.count()).isEqualTo(200);
        // 100 within 0.1 s, 180 within 0.25 s, 200 within 1 s: rank 100 (p50) is the top of the first bucket,
        // rank 198 (p99) is 18/20 of the way through 0.25..1.0 s.
        assertThat(window.quantile(0.5)).isCloseTo(0.1, within(1e-9));
        assertThat(window.quantile(0.99)).isCloseTo(0.25 + 0.75 * 18 / 20, within(1e-9));
        assertThat(window.slowerThan(0.25)).isEqualTo(20);
        assertThat(window.slowerThan(1.0)).isZero();
        assertThat(window.quantile(0.5, "b")).isCloseTo(0.1, within(1e-9));
    }

    @Test
    void aRankInTheInfiniteBucketAnswersTheHighestBoundAndARestartCountsFromZero() {
        DelayHistogram before = DelayHistogram.of(scrape("a", 100, 100, 100, 100));
        DelayHistogram restarted = DelayHistogram.of(scrape("a", 0, 0, 90, 100));
        DelayHistogram window = restarted.since(before);

        assertThat(window.count()).isEqualTo(100);
        assertThat(window.slowerThan(1.0)).isEqualTo(10);
        assertThat(window.quantile(0.99)).isEqualTo(1.0);
        assertThat(DelayHistogram.EMPTY.quantile(0.99)).isNaN();
    }

    @Test
    void windowsFollowEachOtherAndAShortRemainderJoinsTheLastWindow() {
        java.util.List<RunMonitor.Sample> samples = new java.util.ArrayList<>();
        for (long t = 0; t <= 24_000; t += 2_000) {
            double n = t / 100.0; // 20 transactions a sample, all within 0.1 s
            samples.add(new RunMonitor.Sample(t, DelayHistogram.of(scrape("a", n, n, n, n)), Map.of("a", 1.0), n, 0,
                    null, "ok"));
        }
        java.util.List<DelayWindow> windows = DelayWindow.over(samples, 1_000, 23_000, java.time.Duration.ofSeconds(10));

        assertThat(windows).extracting(DelayWindow::fromMillis, DelayWindow::toMillis).containsExactly(
                org.assertj.core.groups.Tuple.tuple(0L, 10_000L), org.assertj.core.groups.Tuple.tuple(10_000L, 24_000L));
        assertThat(windows.get(1).histogram().count()).isEqualTo(140);
    }
}
