package io.tributary.daemon.status;

import io.tributary.daemon.status.DaemonStatus.Sample;
import io.tributary.storage.binlog.WriteCounters;
import java.util.ArrayList;
import java.util.List;

/**
 * The last {@link #capacity} throughput samples, one per sampling period, so that a freshly opened status page
 * draws minutes of history at once. Each sample holds the rates of the global binlog writer's counters over the
 * time actually elapsed since the previous one (as the status line computes them). A ring: the oldest sample goes
 * when a new one comes.
 *
 * <p>Written by one sampler thread, read by request threads: both synchronized on the history, once per period and
 * once per request (never on the data path).
 */
final class ThroughputHistory {

    private final Sample[] ring;
    private int next;
    private int size;
    private WriteCounters last;
    private long lastNanos;

    ThroughputHistory(int capacity) {
        if (capacity < 2) {
            throw new IllegalArgumentException("a throughput history needs at least 2 samples, not " + capacity);
        }
        this.ring = new Sample[capacity];
    }

    int capacity() {
        return ring.length;
    }

    /**
     * Takes the counters at {@code nanos} (monotonic) and {@code epochMillis}; from the second call on, adds the
     * rates since the previous call. A counter that went back (a writer reopened) gives rates of 0 for that period.
     */
    synchronized void record(WriteCounters now, long nanos, long epochMillis) {
        if (last != null) {
            double seconds = Math.max(1e-3, (nanos - lastNanos) / 1e9);
            ring[next] = new Sample(epochMillis, rate(now.events() - last.events(), seconds),
                    rate(now.rowsEvents() - last.rowsEvents(), seconds), rate(now.bytes() - last.bytes(), seconds),
                    rate(now.transactions() - last.transactions(), seconds));
            next = (next + 1) % ring.length;
            size = Math.min(size + 1, ring.length);
        }
        last = now;
        lastNanos = nanos;
    }

    private static double rate(long delta, double seconds) {
        return delta < 0 ? 0 : delta / seconds;
    }

    /** The samples, oldest first. */
    synchronized List<Sample> samples() {
        List<Sample> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(ring[(next - size + i + ring.length) % ring.length]);
        }
        return list;
    }
}
