package io.tributary.test.e2e;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The daemon's {@code tributary_commit_delay_seconds} histogram at one scrape: per shard, the cumulative count
 * of shard transactions made durable within each bucket bound ({@code le}, seconds; the last is +Inf). The
 * difference of two scrapes is the histogram of a window, and its quantiles are read the way Prometheus's
 * {@code histogram_quantile} reads them, so the test sees what a user's dashboard shows.
 */
record DelayHistogram(Map<String, NavigableMap<Double, Double>> shards) {

    private static final String BUCKET = "tributary_commit_delay_seconds_bucket{";
    private static final Pattern LABELS = Pattern.compile("shard=\"([^\"]+)\".*le=\"([^\"]+)\"");

    static final DelayHistogram EMPTY = new DelayHistogram(Map.of());

    /** From a scrape ({@code DaemonProcess.metrics()}). */
    static DelayHistogram of(Map<String, Double> metrics) {
        Map<String, NavigableMap<Double, Double>> shards = new TreeMap<>();
        for (Map.Entry<String, Double> e : metrics.entrySet()) {
            if (!e.getKey().startsWith(BUCKET)) {
                continue;
            }
            Matcher m = LABELS.matcher(e.getKey());
            if (!m.find()) {
                throw new IllegalArgumentException("a delay bucket without shard or le label: " + e.getKey());
            }
            double le = m.group(2).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(2));
            shards.computeIfAbsent(m.group(1), s -> new TreeMap<>()).put(le, e.getValue());
        }
        return new DelayHistogram(shards);
    }

    /**
     * This scrape minus an earlier one: the window between them. A shard whose counts went down (the daemon
     * restarted) counts from zero, as Prometheus's {@code rate} does.
     */
    DelayHistogram since(DelayHistogram earlier) {
        Map<String, NavigableMap<Double, Double>> out = new TreeMap<>();
        shards.forEach((shard, now) -> {
            NavigableMap<Double, Double> before = earlier.shards.getOrDefault(shard, new TreeMap<>());
            boolean reset = now.entrySet().stream().anyMatch(b -> b.getValue() < before.getOrDefault(b.getKey(), 0.0));
            NavigableMap<Double, Double> d = new TreeMap<>();
            now.forEach((le, n) -> d.put(le, reset ? n : n - before.getOrDefault(le, 0.0)));
            out.put(shard, d);
        });
        return new DelayHistogram(out);
    }

    /** All shards added up, as {@code sum by (le)}. */
    NavigableMap<Double, Double> total() {
        NavigableMap<Double, Double> sum = new TreeMap<>();
        shards.values().forEach(b -> b.forEach((le, n) -> sum.merge(le, n, Double::sum)));
        return sum;
    }

    /** Shard transactions in the histogram (all shards). */
    double count() {
        NavigableMap<Double, Double> t = total();
        return t.isEmpty() ? 0 : t.lastEntry().getValue();
    }

    /** The {@code q} quantile of all shards together; NaN when empty. */
    double quantile(double q) {
        return quantile(q, total());
    }

    /** The {@code q} quantile of one shard; NaN when empty. */
    double quantile(double q, String shard) {
        return quantile(q, shards.getOrDefault(shard, new TreeMap<>()));
    }

    /**
     * Prometheus's rule: find the bucket holding rank {@code q * count}, interpolate linearly inside it (from 0
     * for the first bucket); a rank in the +Inf bucket answers the highest finite bound.
     */
    static double quantile(double q, NavigableMap<Double, Double> cumulative) {
        if (cumulative.isEmpty() || cumulative.lastEntry().getValue() <= 0) {
            return Double.NaN;
        }
        double rank = q * cumulative.lastEntry().getValue();
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> b : cumulative.entrySet()) {
            if (b.getValue() >= rank) {
                if (b.getKey().isInfinite()) {
                    return lowerBound;
                }
                double inBucket = b.getValue() - lowerCount;
                return inBucket <= 0 ? b.getKey() : lowerBound + (b.getKey() - lowerBound) * (rank - lowerCount) / inBucket;
            }
            lowerBound = b.getKey();
            lowerCount = b.getValue();
        }
        return lowerBound;
    }

    /** Shard transactions (all shards) whose delay exceeded {@code seconds}, which must be a bucket bound. */
    double slowerThan(double seconds) {
        NavigableMap<Double, Double> t = total();
        Double within = t.get(seconds);
        if (within == null) {
            throw new IllegalArgumentException(seconds + " s is not a bucket bound of " + t.keySet());
        }
        return count() - within;
    }
}
