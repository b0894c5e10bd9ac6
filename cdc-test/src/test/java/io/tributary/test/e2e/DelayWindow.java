package io.tributary.test.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The commit delay histogram of one stretch of a run: the difference between the daemon's scrape at (or just
 * before) {@code fromMillis} and the one at (or just after) {@code toMillis}, elapsed run time.
 */
record DelayWindow(long fromMillis, long toMillis, DelayHistogram histogram) {

    /**
     * Consecutive windows of {@code length} covering {@code fromMillis..toMillis}, over scraped samples in time
     * order. A window starts at the last sample at or before its start; a remainder shorter than half a window
     * joins the window before it (a p99 over a few dozen transactions would be their maximum).
     */
    static List<DelayWindow> over(List<RunMonitor.Sample> scraped, long fromMillis, long toMillis, Duration length) {
        List<RunMonitor.Sample> bounds = new ArrayList<>();
        for (RunMonitor.Sample s : scraped) {
            if (s.elapsedMillis() <= fromMillis) {
                bounds.clear();
                bounds.add(s);
            } else if (bounds.isEmpty()) {
                throw new IllegalArgumentException("no scrape at or before " + fromMillis + " ms");
            } else if (s.elapsedMillis() >= toMillis
                    || s.elapsedMillis() >= bounds.get(bounds.size() - 1).elapsedMillis() + length.toMillis()) {
                bounds.add(s);
                if (s.elapsedMillis() >= toMillis) {
                    break;
                }
            }
        }
        int n = bounds.size();
        if (n >= 3 && bounds.get(n - 1).elapsedMillis() - bounds.get(n - 2).elapsedMillis() < length.toMillis() / 2) {
            bounds.remove(n - 2);
        }
        List<DelayWindow> out = new ArrayList<>();
        for (int i = 1; i < bounds.size(); i++) {
            RunMonitor.Sample from = bounds.get(i - 1);
            RunMonitor.Sample to = bounds.get(i);
            out.add(new DelayWindow(from.elapsedMillis(), to.elapsedMillis(), to.delays().since(from.delays())));
        }
        return out;
    }

    /** One window over all of {@code fromMillis..toMillis} (a length no window start can reach before the end). */
    static DelayWindow whole(List<RunMonitor.Sample> scraped, long fromMillis, long toMillis) {
        return over(scraped, fromMillis, toMillis, Duration.ofMillis(toMillis + 1)).get(0);
    }

    double p99() {
        return histogram.quantile(0.99);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%.1f-%.1f s: %.0f shard transactions, %.0f over 1 s, p50 %.3f s, p99 %.3f s",
                fromMillis / 1000.0, toMillis / 1000.0, histogram.count(), histogram.slowerThan(1.0),
                histogram.quantile(0.5), p99());
    }
}
