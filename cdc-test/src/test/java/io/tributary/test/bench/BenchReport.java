package io.tributary.test.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a run's report into one directory: {@code results.csv} (every row, every figure), {@code summary.md}
 * and {@code index.html} (the machine, then a table per scenario in the reference report's layout: scenario,
 * load, delay, EPS, BPS, then the other figures, and below it what the scenario found as a whole, e.g. where the
 * OLTP ladder saturated), and PNG plots made with XChart: per scenario EPS and delay
 * against load, and for large transactions the time from last shard commit to durable output against size,
 * one series per kind and persist mode.
 */
public final class BenchReport {

    /** Scenario ids in report order, with their titles. */
    public static final Map<String, String> SCENARIOS = new LinkedHashMap<>();

    static {
        SCENARIOS.put("import", "Import: parallel inserts into sharded tables (sysbench prepare-like)");
        SCENARIOS.put("tpcc", "TPCC-like import: the TPC-C tables loaded per warehouse, sharded by warehouse");
        SCENARIOS.put("oltp", "OLTP: oltp_write_only-like, rising clients");
        SCENARIOS.put("large", "Large transactions: single and XA over 4 shards, per persist mode");
        SCENARIOS.put("blob", "Blob: 512 KB rows, update load (game_blob)");
        SCENARIOS.put("fanout", "Fan-out: subscribers tailing the global binlog under OLTP load");
        SCENARIOS.put("pipeline", "Pipeline only: recorded shard binlogs through merge and write, no shards");
        SCENARIOS.put("catchup", "Catch-up: the daemon starts after an outage or over a history, beside a raw read");
    }

    private BenchReport() {
    }

    /** The plot files of a report with these rows (names relative to the report directory). */
    public static List<String> plotFiles(List<BenchRow> rows) {
        List<String> files = new ArrayList<>();
        for (String sc : SCENARIOS.keySet()) {
            List<BenchRow> rs = rows.stream().filter(r -> r.scenario().equals(sc) && r.measured()).toList();
            if (rs.isEmpty()) {
                continue;
            }
            if (sc.equals("large")) {
                files.add("large-time.png");
                continue;
            }
            if (sc.equals("catchup")) {
                files.add(CATCHUP_PLOT);
                continue;
            }
            files.add(sc + "-eps.png");
            if (rs.stream().anyMatch(r -> !Double.isNaN(r.delayP99Ms()))) {
                files.add(sc + "-delay.png");
            }
        }
        return files;
    }

    /** The catch-up scenario's plot: the global binlog position over time, one line per run. */
    static final String CATCHUP_PLOT = "catchup-position.png";

    /** @param findings per scenario id, what it found as a whole (a sentence printed below its table) */
    public static void write(Path dir, Machine machine, String profile, List<BenchRow> rows, Map<String, String> findings)
            throws IOException {
        write(dir, machine, profile, rows, findings, List.of());
    }

    /** @param traces the catch-up runs' positions over time ({@link #CATCHUP_PLOT}, and {@code catchup-position.csv}) */
    static void write(Path dir, Machine machine, String profile, List<BenchRow> rows, Map<String, String> findings,
            List<CatchUpScenario.Trace> traces) throws IOException {
        Files.createDirectories(dir);
        writeCsv(dir.resolve("results.csv"), rows);
        List<String> plots = new ArrayList<>(plotFiles(rows));
        if (traces.isEmpty()) {
            plots.remove(CATCHUP_PLOT);
        }
        for (String plot : plots) {
            if (plot.equals(CATCHUP_PLOT)) {
                catchupPlot(dir, traces);
            } else {
                plot(dir.resolve(plot), plot, rows);
            }
        }
        Files.writeString(dir.resolve("summary.md"), markdown(machine, profile, rows, findings, plots),
                StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("index.html"), html(machine, profile, rows, findings, plots), StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- CSV

    static void writeCsv(Path file, List<BenchRow> rows) throws IOException {
        StringBuilder b = new StringBuilder();
        b.append(String.join(",", BenchRow.CSV_HEADER)).append('\n');
        for (BenchRow r : rows) {
            List<String> f = r.csvFields();
            for (int i = 0; i < f.size(); i++) {
                b.append(i == 0 ? "" : ",").append(csvField(f.get(i)));
            }
            b.append('\n');
        }
        Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
    }

    private static String csvField(String s) {
        if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
            return "\"" + s.replace("\"", "\"\"").replace("\n", " ") + "\"";
        }
        return s;
    }

    // ---------------------------------------------------------------- tables

    private static final List<String> COLUMNS = List.of("scenario", "load", "delay p50 / p99 / max", "EPS", "BPS",
            "DML EPS", "TPS", "FPM", "CPU s per GB", "heap peak", "RSS peak", "RocksDB peak", "commit to durable",
            "shard TPS", "note");

    private static List<String> cells(BenchRow r) {
        List<String> c = new ArrayList<>();
        c.add(r.scenario());
        c.add(r.variant().isEmpty() ? r.load() : r.load() + ", " + r.variant().substring(r.variant().indexOf('/') + 1));
        c.add(Double.isNaN(r.delayP99Ms()) && Double.isNaN(r.delayMaxMs()) ? "-"
                : ms(r.delayP50Ms()) + " / " + ms(r.delayP99Ms()) + " / " + ms(r.delayMaxMs()));
        c.add(count(r.eps()));
        c.add(bytes(r.bps()) + (Double.isNaN(r.bps()) ? "" : "/s"));
        c.add(count(r.dmlEps()));
        c.add(count(r.tps()));
        c.add(Double.isNaN(r.fpm()) ? "-" : String.format(Locale.ROOT, "%.1f", r.fpm()));
        c.add(Double.isNaN(r.cpuSecondsPerGb()) ? "-" : String.format(Locale.ROOT, "%.1f", r.cpuSecondsPerGb()));
        c.add(bytes(r.heapPeakBytes()));
        c.add(bytes(r.rssPeakBytes()));
        c.add(bytes(r.rocksPeakBytes()));
        c.add(Double.isNaN(r.durableSeconds()) ? "-" : String.format(Locale.ROOT, "%.2f s", r.durableSeconds()));
        c.add(count(r.clientTps()));
        c.add(r.note().isEmpty() ? "" : r.note());
        return c;
    }

    static String ms(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return v >= 1000 ? String.format(Locale.ROOT, "%.2f s", v / 1000) : String.format(Locale.ROOT, "%.0f ms", v);
    }

    static String count(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.2f M", v / 1e6);
        }
        if (v >= 1e4) {
            return String.format(Locale.ROOT, "%.1f k", v / 1e3);
        }
        return String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.0f", v);
    }

    static String bytes(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        if (v >= 1e9) {
            return String.format(Locale.ROOT, "%.2f GB", v / 1e9);
        }
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.1f MB", v / 1e6);
        }
        return String.format(Locale.ROOT, "%.0f kB", v / 1e3);
    }

    static String markdown(Machine m, String profile, List<BenchRow> rows, Map<String, String> findings,
            List<String> plots) {
        StringBuilder b = new StringBuilder();
        b.append("# Tributary benchmark report\n\n");
        b.append("- date: ").append(m.date()).append('\n');
        b.append("- profile: ").append(profile).append('\n');
        b.append("- machine: ").append(m.describe()).append('\n');
        b.append("- commit: ").append(m.commit()).append(m.dirty() ? " (with uncommitted changes)" : "").append("\n\n");
        b.append("Delay: how far the durable global binlog is behind the shards' commits (the daemon's"
                + " `tributary_delay_milliseconds`, largest shard, sampled every 0.5 s within the window: p50, p99, max). EPS/BPS/TPS/FPM: what the daemon wrote to the global binlog"
                + " per second (per minute for files) over the window. CPU s per GB: daemon CPU seconds per GB the shards"
                + " wrote to their own binlogs.\n\n");
        for (Map.Entry<String, String> sc : SCENARIOS.entrySet()) {
            List<BenchRow> rs = rows.stream().filter(r -> r.scenario().equals(sc.getKey())).toList();
            if (rs.isEmpty()) {
                continue;
            }
            b.append("## ").append(sc.getValue()).append("\n\n");
            b.append('|').append(String.join(" | ", COLUMNS)).append("|\n|");
            b.append("---|".repeat(COLUMNS.size())).append('\n');
            for (BenchRow r : rs) {
                b.append('|').append(String.join(" | ", cells(r).stream().map(s -> s.replace("|", "/")).toList()))
                        .append("|\n");
            }
            b.append('\n');
            if (findings.containsKey(sc.getKey())) {
                b.append(findings.get(sc.getKey())).append("\n\n");
            }
            for (String p : plots) {
                if (p.startsWith(sc.getKey() + "-")) {
                    b.append("![").append(p).append("](").append(p).append(")\n");
                }
            }
            b.append('\n');
        }
        return b.toString();
    }

    static String html(Machine m, String profile, List<BenchRow> rows, Map<String, String> findings, List<String> plots) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Tributary benchmark report</title>\n");
        b.append("<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;"
                + "margin-bottom:1em}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right;font-size:90%}"
                + "td:first-child,td:nth-child(2),td:last-child{text-align:left}th{background:#eee}img{margin:4px;"
                + "border:1px solid #ddd}</style></head><body>\n");
        b.append("<h1>Tributary benchmark report</h1>\n<ul>");
        b.append("<li>date: ").append(esc(m.date().toString())).append("</li>");
        b.append("<li>profile: ").append(esc(profile)).append("</li>");
        b.append("<li>machine: ").append(esc(m.describe())).append("</li>");
        b.append("<li>commit: ").append(esc(m.commit())).append(m.dirty() ? " (with uncommitted changes)" : "")
                .append("</li></ul>\n");
        b.append("<p>Delay: shard commit to durable global binlog. EPS/BPS/TPS/FPM: what the daemon wrote to the global"
                + " binlog. Raw figures: <a href=\"results.csv\">results.csv</a>; the same report in Markdown:"
                + " <a href=\"summary.md\">summary.md</a>.</p>\n");
        for (Map.Entry<String, String> sc : SCENARIOS.entrySet()) {
            List<BenchRow> rs = rows.stream().filter(r -> r.scenario().equals(sc.getKey())).toList();
            if (rs.isEmpty()) {
                continue;
            }
            b.append("<h2 id=\"").append(sc.getKey()).append("\">").append(esc(sc.getValue())).append("</h2>\n<table><tr>");
            for (String c : COLUMNS) {
                b.append("<th>").append(esc(c)).append("</th>");
            }
            b.append("</tr>\n");
            for (BenchRow r : rs) {
                b.append("<tr>");
                for (String c : cells(r)) {
                    b.append("<td>").append(esc(c)).append("</td>");
                }
                b.append("</tr>\n");
            }
            b.append("</table>\n");
            if (findings.containsKey(sc.getKey())) {
                b.append("<p>").append(esc(findings.get(sc.getKey()))).append("</p>\n");
            }
            b.append("<div>");
            for (String p : plots) {
                if (p.startsWith(sc.getKey() + "-")) {
                    b.append("<img src=\"").append(p).append("\" alt=\"").append(p).append("\" width=\"640\">");
                }
            }
            b.append("</div>\n");
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    // ---------------------------------------------------------------- plots

    private static void plot(Path file, String name, List<BenchRow> rows) throws IOException {
        String sc = name.substring(0, name.indexOf('-'));
        List<BenchRow> rs = rows.stream().filter(r -> r.scenario().equals(sc) && r.measured()).toList();
        String xTitle = switch (sc) {
            case "import" -> "sharded tables (one client each)";
            case "tpcc" -> "warehouses (one loader each)";
            case "oltp", "blob" -> "clients";
            case "fanout" -> "subscribers";
            case "pipeline" -> "shards replayed";
            default -> "transaction size (MB)";
        };
        XYChart chart;
        if (name.endsWith("-eps.png")) {
            chart = chart(SCENARIOS.get(sc) + ": events/s", xTitle, "events per second");
            series(chart, "EPS (all events)", rs, BenchRow::eps);
            series(chart, "DML EPS (row events)", rs, BenchRow::dmlEps);
        } else if (name.endsWith("-delay.png")) {
            chart = chart(SCENARIOS.get(sc) + ": delay", xTitle, "shard commit to durable (ms)");
            series(chart, "p50", rs, BenchRow::delayP50Ms);
            series(chart, "p99", rs, BenchRow::delayP99Ms);
            series(chart, "max", rs, BenchRow::delayMaxMs);
        } else {
            chart = chart("Large transactions: last shard commit to durable global binlog", xTitle, "seconds");
            Map<String, List<BenchRow>> byVariant = new LinkedHashMap<>();
            for (BenchRow r : rs) {
                byVariant.computeIfAbsent(r.variant(), k -> new ArrayList<>()).add(r);
            }
            for (Map.Entry<String, List<BenchRow>> e : byVariant.entrySet()) {
                series(chart, e.getKey(), e.getValue(), BenchRow::durableSeconds);
            }
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** The global binlog position (MB written) over the seconds since each catch-up's daemon started. */
    static void catchupPlot(Path dir, List<CatchUpScenario.Trace> traces) throws IOException {
        XYChart chart = chart("Catch-up: global binlog position over time", "seconds since the daemon started",
                "global binlog written (MB)");
        chart.getStyler().setMarkerSize(0);
        StringBuilder csv = new StringBuilder("run,seconds,global_mb,buffer_mb\n");
        for (CatchUpScenario.Trace t : traces) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (double[] p : t.points()) {
                xs.add(p[0]);
                ys.add(p[1]);
                csv.append(csvField(t.label())).append(',').append(String.format(Locale.ROOT, "%.3f,%.3f,%.3f%n", p[0],
                        p[1], p[2]));
            }
            if (!xs.isEmpty()) {
                chart.addSeries(t.label(), xs, ys).setMarker(SeriesMarkers.NONE);
            }
        }
        BitmapEncoder.saveBitmap(chart, dir.resolve(CATCHUP_PLOT).toString(), BitmapEncoder.BitmapFormat.PNG);
        Files.writeString(dir.resolve("catchup-position.csv"), csv.toString(), StandardCharsets.UTF_8);
    }

    private static XYChart chart(String title, String x, String y) {
        XYChart c = new XYChartBuilder().width(900).height(520).title(title).xAxisTitle(x).yAxisTitle(y).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS); // below the plot: never over a line
        c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setPlotGridLinesVisible(true);
        c.getStyler().setMarkerSize(8);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setDecimalPattern("#,##0.##");
        return c;
    }

    private static void series(XYChart chart, String name, List<BenchRow> rows, ToDoubleFunction<BenchRow> y) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (BenchRow r : rows.stream().sorted(java.util.Comparator.comparingDouble(BenchRow::loadValue)).toList()) {
            double v = y.applyAsDouble(r);
            if (!Double.isNaN(v) && !Double.isNaN(r.loadValue())) {
                xs.add(r.loadValue());
                ys.add(v);
            }
        }
        if (xs.isEmpty()) {
            return;
        }
        XYSeries s = chart.addSeries(name, xs, ys);
        s.setMarker(SeriesMarkers.CIRCLE);
    }
}
