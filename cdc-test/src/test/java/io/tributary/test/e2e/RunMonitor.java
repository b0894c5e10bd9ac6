package io.tributary.test.e2e;

import io.tributary.test.daemon.DaemonProcess;
import io.tributary.test.load.OltpWriteOnlyLoad;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Watches an end-to-end run every {@code periodMillis}: scrapes the daemon's {@code /actuator/prometheus}
 * (the commit delay histogram {@code tributary_commit_delay_seconds_bucket}, the heartbeat delay {@code
 * tributary_delay_milliseconds}, the global transactions), reads the replica's {@code SHOW SLAVE STATUS},
 * remembers every sample and prints a progress line every 10 s. A scrape that fails (the daemon is down on
 * purpose) is remembered as such.
 */
final class RunMonitor implements AutoCloseable {

    private static final Pattern SHARD = Pattern.compile("shard=\"([^\"]+)\"");

    /**
     * One sample. {@code delays} is the cumulative commit delay histogram, {@code heartbeatDelayMillis} per shard;
     * both empty when the scrape failed.
     */
    record Sample(long elapsedMillis, DelayHistogram delays, Map<String, Double> heartbeatDelayMillis,
            double globalTransactions, long loadCommits, String replicaSqlError, String replicaIoState) {
        boolean scraped() {
            return !heartbeatDelayMillis.isEmpty();
        }

        double maxHeartbeatDelay() {
            return heartbeatDelayMillis.values().stream().filter(v -> !v.isNaN()).mapToDouble(Double::doubleValue).max()
                    .orElse(Double.NaN);
        }
    }

    private final String name;
    private final DaemonProcess daemon;
    private final OltpWriteOnlyLoad load;
    private final TributaryReplica replica;
    private final long periodMillis;
    private final long started = System.nanoTime();
    private final List<Sample> samples = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    RunMonitor(String name, DaemonProcess daemon, OltpWriteOnlyLoad load, TributaryReplica replica, long periodMillis) {
        this.name = name;
        this.daemon = daemon;
        this.load = load;
        this.replica = replica;
        this.periodMillis = periodMillis;
        this.thread = new Thread(this::run, "e2e-monitor");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    long elapsedMillis() {
        return (System.nanoTime() - started) / 1_000_000;
    }

    List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** Samples from {@code fromMillis} to {@code toMillis} (elapsed). */
    List<Sample> samples(long fromMillis, long toMillis) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) {
            if (s.elapsedMillis() >= fromMillis && s.elapsedMillis() <= toMillis) {
                out.add(s);
            }
        }
        return out;
    }

    void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, "[%s %5.1fs] %s%n", name, elapsedMillis() / 1000.0, String.format(Locale.ROOT, format, args));
    }

    private void run() {
        long nextPrint = 0;
        Sample printed = null;
        while (running) {
            Sample s = sample();
            samples.add(s);
            if (s.elapsedMillis() >= nextPrint) {
                nextPrint = s.elapsedMillis() + 10_000;
                DelayHistogram window = s.delays().since(printed == null || !printed.scraped() ? DelayHistogram.EMPTY
                        : printed.delays());
                printed = s;
                log("load %d commits (%d XA, %d aborted) | global %.0f txns | commit delay since the last line: p50 %s"
                        + " p99 %s | heartbeat delay max %s | replica %s%s", load.commits(), load.xaCommits(),
                        load.aborted(), s.globalTransactions(),
                        s.scraped() ? String.format(Locale.ROOT, "%.3f s", window.quantile(0.5)) : "-",
                        s.scraped() ? String.format(Locale.ROOT, "%.3f s over %.0f", window.quantile(0.99), window.count())
                                : "(daemon down)",
                        s.scraped() ? String.format(Locale.ROOT, "%.0f ms", s.maxHeartbeatDelay()) : "-",
                        s.replicaIoState(), s.replicaSqlError() == null ? "" : " " + s.replicaSqlError());
            }
            try {
                Thread.sleep(periodMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private Sample sample() {
        long at = elapsedMillis();
        DelayHistogram delays = DelayHistogram.EMPTY;
        Map<String, Double> hb = new TreeMap<>();
        double txns = Double.NaN;
        try {
            Map<String, Double> m = daemon.metrics();
            for (Map.Entry<String, Double> e : m.entrySet()) {
                String k = e.getKey();
                if (k.startsWith("tributary_delay_milliseconds{")) {
                    hb.put(shard(k), e.getValue());
                }
            }
            txns = DaemonProcess.sum(m, "tributary_binlog_transactions_total");
            delays = DelayHistogram.of(m);
        } catch (Exception e) {
            delays = DelayHistogram.EMPTY;
            hb.clear();
        }
        String sqlError = null;
        String io = "?";
        try {
            Map<String, String> st = replica.status();
            sqlError = TributaryReplica.sqlError(st);
            io = "IO " + st.get("Slave_IO_Running") + "/SQL " + st.get("Slave_SQL_Running") + " at "
                    + replica.gtidSlavePos();
        } catch (Exception e) {
            io = "status unreadable: " + e.getMessage();
        }
        return new Sample(at, delays, hb, txns, load.commits(), sqlError, io);
    }

    private static String shard(String series) {
        Matcher m = SHARD.matcher(series);
        return m.find() ? m.group(1) : series;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(10_000);
    }
}
