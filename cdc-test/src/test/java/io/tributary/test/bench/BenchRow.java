package io.tributary.test.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One measured point of a scenario: the load, what the daemon wrote per second over the window, the delay,
 * what it cost. Figures not measured for a scenario are NaN (written empty in the CSV, "-" in the tables).
 *
 * @param scenario         import, oltp, large, blob, fanout, pipeline
 * @param load             the load as people read it ("8 tables", "16 clients", "1024 MB XA")
 * @param loadValue        the load's number, the x axis of the plots
 * @param variant          series within a scenario (for large transactions "XA/FORCE"); "" if none
 * @param seconds          length of the measured window
 * @param eps              global binlog events written per second
 * @param dmlEps           of those, row events per second
 * @param bps              global binlog bytes written per second
 * @param tps              global transactions written per second
 * @param fpm              global binlog files started per minute
 * @param delayP50Ms       shard commit to durable global binlog, median (ms)
 * @param delayP99Ms       the same, 99th percentile (ms)
 * @param delayMaxMs       the same, the largest seen (ms)
 * @param cpuSecondsPerGb  daemon CPU seconds per GB the shards wrote to their binlogs in the window
 * @param heapPeakBytes    daemon heap in use, the largest sample
 * @param rssPeakBytes     daemon resident set peak (VmHWM) at the window's end
 * @param rocksPeakBytes   RocksDB spill store size, the largest sample
 * @param durableSeconds   large transactions: last shard commit returned to the transaction durable in the
 *                         global binlog
 * @param shardBytes       bytes the shards wrote to their binlogs in the window
 * @param clientTps        transactions per second the load's clients committed on the shards
 * @param note             anything a reader must know about this row (failures, skipped parts)
 */
public record BenchRow(String scenario, String load, double loadValue, String variant, double seconds, double eps,
        double dmlEps, double bps, double tps, double fpm, double delayP50Ms, double delayP99Ms, double delayMaxMs,
        double cpuSecondsPerGb, double heapPeakBytes, double rssPeakBytes, double rocksPeakBytes, double durableSeconds,
        double shardBytes, double clientTps, String note) {

    public static final List<String> CSV_HEADER = List.of("scenario", "load", "load_value", "variant", "seconds", "eps",
            "dml_eps", "bps", "tps", "fpm", "delay_p50_ms", "delay_p99_ms", "delay_max_ms", "cpu_s_per_gb", "heap_peak_bytes",
            "rss_peak_bytes", "rocksdb_peak_bytes", "durable_after_commit_s", "shard_binlog_bytes", "client_tps", "note");

    /** A row for a point that could not be measured: only the load and why. */
    public static BenchRow failed(String scenario, String load, double loadValue, String variant, String why) {
        double n = Double.NaN;
        return new BenchRow(scenario, load, loadValue, variant, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, why);
    }

    /** The same row with another note. */
    public BenchRow withNote(String text) {
        return new BenchRow(scenario, load, loadValue, variant, seconds, eps, dmlEps, bps, tps, fpm, delayP50Ms, delayP99Ms,
                delayMaxMs, cpuSecondsPerGb, heapPeakBytes, rssPeakBytes, rocksPeakBytes, durableSeconds, shardBytes,
                clientTps, text);
    }

    public boolean measured() {
        return !Double.isNaN(eps) || !Double.isNaN(durableSeconds);
    }

    public List<String> csvFields() {
        List<String> f = new ArrayList<>();
        f.add(scenario);
        f.add(load);
        f.add(num(loadValue));
        f.add(variant);
        for (double d : new double[] {seconds, eps, dmlEps, bps, tps, fpm, delayP50Ms, delayP99Ms, delayMaxMs,
                cpuSecondsPerGb, heapPeakBytes, rssPeakBytes, rocksPeakBytes, durableSeconds, shardBytes, clientTps}) {
            f.add(num(d));
        }
        f.add(note);
        return f;
    }

    private static String num(double d) {
        if (Double.isNaN(d)) {
            return "";
        }
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : String.format(Locale.ROOT, "%.3f", d);
    }
}
