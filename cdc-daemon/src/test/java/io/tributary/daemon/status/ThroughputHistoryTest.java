package io.tributary.daemon.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.daemon.status.DaemonStatus.Sample;
import io.tributary.storage.binlog.WriteCounters;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The status page's throughput ring: rates over the time actually elapsed, oldest first, the oldest dropped. */
class ThroughputHistoryTest {

    private static final long SECOND = 1_000_000_000L;

    private static WriteCounters counters(long transactions, long events, long rows, long bytes) {
        return new WriteCounters(transactions, events, rows, bytes, 0);
    }

    @Test
    void shouldRecordRatesOverTheElapsedTimeFromTheSecondCallOn() {
        ThroughputHistory h = new ThroughputHistory(5);
        h.record(counters(0, 0, 0, 0), 0, 1000);
        assertThat(h.samples()).as("one reading is no rate yet").isEmpty();

        h.record(counters(10, 50, 20, 4096), 2 * SECOND, 3000); // 2 s later

        assertThat(h.samples()).containsExactly(new Sample(3000, 25.0, 10.0, 2048.0, 5.0));
    }

    @Test
    void shouldKeepTheNewestSamplesOldestFirst() {
        ThroughputHistory h = new ThroughputHistory(3);
        for (int i = 0; i <= 5; i++) {
            h.record(counters(i * i, 0, 0, 0), i * SECOND, 1000L * i);
        }

        List<Sample> samples = h.samples();

        assertThat(samples).extracting(Sample::time).containsExactly(3000L, 4000L, 5000L);
        assertThat(samples).extracting(Sample::tps).containsExactly(5.0, 7.0, 9.0);
    }

    @Test
    void shouldGiveZeroWhenACounterWentBack() {
        ThroughputHistory h = new ThroughputHistory(3);
        h.record(counters(100, 100, 100, 100), 0, 0);
        h.record(counters(1, 1, 1, 1), SECOND, 1000);

        assertThat(h.samples()).containsExactly(new Sample(1000, 0, 0, 0, 0));
    }

    @Test
    void shouldRefuseARingTooSmallToDrawALine() {
        assertThatThrownBy(() -> new ThroughputHistory(1)).hasMessageContaining("at least 2");
    }
}
