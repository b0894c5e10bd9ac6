package io.tributary.test.bench;

import io.tributary.test.daemon.DaemonProcess;
import java.util.Map;

/**
 * Scrapes a daemon's {@code /actuator/prometheus} every half second on its own thread: the latest sample,
 * the peaks since {@link #resetPeaks} (heap in use, RocksDB spill store size, shard delay), and the current
 * events per second for the progress line.
 */
final class DaemonSampler implements AutoCloseable {

    private final DaemonProcess daemon;
    private final Thread thread;
    private volatile boolean closed;
    private volatile Map<String, Double> last = Map.of();
    private volatile double heapPeak;
    private volatile double rocksPeak;
    private volatile double delayPeakMs;
    private final java.util.List<Double> delays = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    private volatile double currentEps = Double.NaN;
    private volatile String lastError = "";

    DaemonSampler(DaemonProcess daemon) {
        this.daemon = daemon;
        this.thread = new Thread(this::loop, "bench-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        double prevEvents = Double.NaN;
        long prevAt = 0;
        while (!closed) {
            try {
                Map<String, Double> m = daemon.metrics();
                long now = System.nanoTime();
                last = m;
                heapPeak = Math.max(heapPeak, heap(m));
                rocksPeak = Math.max(rocksPeak, DaemonProcess.sum(m, "tributary_spill_store_bytes"));
                double delay = maxOf(m, "tributary_delay_milliseconds");
                if (!Double.isNaN(delay)) {
                    delayPeakMs = Math.max(delayPeakMs, delay);
                    delays.add(delay);
                }
                double ev = DaemonProcess.sum(m, "tributary_binlog_events_total");
                if (!Double.isNaN(prevEvents)) {
                    currentEps = (ev - prevEvents) / ((now - prevAt) / 1e9);
                }
                prevEvents = ev;
                prevAt = now;
            } catch (Exception e) {
                lastError = e.toString();
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static double heap(Map<String, Double> m) {
        double s = 0;
        for (Map.Entry<String, Double> e : m.entrySet()) {
            if (e.getKey().startsWith("jvm_memory_used_bytes{") && e.getKey().contains("area=\"heap\"")) {
                s += e.getValue();
            }
        }
        return s;
    }

    /** The largest value of any series of {@code name} (any labels); NaN when none has a value. */
    static double maxOf(Map<String, Double> m, String name) {
        double max = Double.NaN;
        for (Map.Entry<String, Double> e : m.entrySet()) {
            String k = e.getKey();
            if ((k.equals(name) || k.startsWith(name + "{")) && !e.getValue().isNaN()) {
                max = Double.isNaN(max) ? e.getValue() : Math.max(max, e.getValue());
            }
        }
        return max;
    }

    /** Quantile {@code q} (0..1) of the delay samples since the reset (ms); NaN without samples. */
    double delayQuantileMs(double q) {
        double[] d;
        synchronized (delays) {
            d = delays.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        }
        if (d.length == 0) {
            return Double.NaN;
        }
        return d[Math.min(d.length - 1, (int) Math.ceil(q * d.length) - 1 < 0 ? 0 : (int) Math.ceil(q * d.length) - 1)];
    }

    void resetPeaks() {
        delays.clear();
        heapPeak = 0;
        rocksPeak = 0;
        delayPeakMs = 0;
    }

    Map<String, Double> last() {
        return last;
    }

    double heapPeak() {
        return heapPeak;
    }

    double rocksPeak() {
        return rocksPeak;
    }

    /** Largest sampled shard delay gauge since the reset (ms). */
    double delayPeakMs() {
        return delayPeakMs;
    }

    double currentEps() {
        return currentEps;
    }

    String lastError() {
        return lastError;
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.interrupt();
        thread.join(5000);
    }
}
