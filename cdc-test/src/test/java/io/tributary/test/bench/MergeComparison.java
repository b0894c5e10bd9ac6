package io.tributary.test.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;

/**
 * Puts side by side the {@link MergeBenchmark} runs of two (or more) builds started in alternation (each JVM's
 * output in a file of its own), so that code before and after a change is read on the same machine in the same
 * minutes: per shard count and build, every measured round sorted, the median events/s and MB/s, the median
 * events per CPU-second of the stage's threads, the ratio of the medians to the first build's, and a PNG with
 * the medians as bars and the slowest and fastest round as a second and third bar.
 *
 * <p>Run: {@code ./mvnw -q -Pbench -pl cdc-test -am process-test-classes
 * -Dbench.main=io.tributary.test.bench.MergeComparison -Dbench.args="--out=docs/benchmarks/merge-compare.png
 * before=/tmp/ab/run1-base-*.log after=/tmp/ab/run1-new-*.log"} (a {@code label=glob} per build, in the order to
 * show; the glob is matched against the file names of its folder).
 */
public final class MergeComparison {

    /** One measured round: a table row of {@link MergeBenchmark}'s output. */
    record Round(int shards, double eventsPerSecond, double megabytesPerSecond, double eventsPerCpuSecond) {
    }

    private MergeComparison() {
    }

    public static void main(String[] args) throws IOException {
        Path out = null;
        Map<String, List<Path>> builds = new LinkedHashMap<>();
        for (String arg : args) {
            if (arg.startsWith("--out=")) {
                out = Path.of(arg.substring(6));
            } else if (arg.contains("=")) {
                String label = arg.substring(0, arg.indexOf('='));
                builds.put(label, files(arg.substring(arg.indexOf('=') + 1)));
            } else if (!arg.isBlank()) {
                throw new IllegalArgumentException("Unknown argument " + arg + ": expected --out=FILE.png or label=glob");
            }
        }
        if (builds.isEmpty()) {
            throw new IllegalArgumentException("No build given: pass label=glob for each, e.g. before=/tmp/ab/base-*.log");
        }
        Map<String, List<Round>> rounds = new LinkedHashMap<>();
        for (Map.Entry<String, List<Path>> b : builds.entrySet()) {
            List<Round> all = new ArrayList<>();
            for (Path f : b.getValue()) {
                all.addAll(parse(Files.readAllLines(f)));
            }
            if (all.isEmpty()) {
                throw new IllegalArgumentException("No MergeBenchmark rounds in " + b.getValue() + " (build " + b.getKey() + ")");
            }
            rounds.put(b.getKey(), all);
        }
        print(rounds, builds, System.out);
        if (out != null) {
            plot(rounds, out);
            System.out.println("Plot: " + out);
        }
    }

    private static List<Path> files(String glob) throws IOException {
        Path pattern = Path.of(glob);
        Path dir = pattern.getParent() == null ? Path.of(".") : pattern.getParent();
        var matcher = dir.getFileSystem().getPathMatcher("glob:" + pattern.getFileName());
        try (var list = Files.list(dir)) {
            List<Path> found = list.filter(p -> matcher.matches(p.getFileName())).sorted().toList();
            if (found.isEmpty()) {
                throw new IllegalArgumentException("No file matches " + glob);
            }
            return found;
        }
    }

    /** The measured rounds of one MergeBenchmark output (rows {@code | shards | on | events | MB | txns | ev/s | ...}). */
    static List<Round> parse(List<String> lines) {
        List<Round> rounds = new ArrayList<>();
        for (String line : lines) {
            if (!line.startsWith("| ") || !Character.isDigit(line.charAt(2))) {
                continue;
            }
            String[] cells = line.split("\\|");
            // cells: "", shards, layout, events in, MB in, transactions, events/s, MB/s, events/CPU-s, ...
            rounds.add(new Round(Integer.parseInt(cells[1].strip()), number(cells[6]), number(cells[7]), number(cells[8])));
        }
        return rounds;
    }

    private static double number(String cell) {
        return Double.parseDouble(cell.strip().replace(",", ""));
    }

    static double median(List<Double> values) {
        List<Double> s = values.stream().sorted().toList();
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static Map<Integer, List<Round>> byShards(List<Round> rounds) {
        Map<Integer, List<Round>> m = new TreeMap<>();
        for (Round r : rounds) {
            m.computeIfAbsent(r.shards(), k -> new ArrayList<>()).add(r);
        }
        return m;
    }

    private static void print(Map<String, List<Round>> rounds, Map<String, List<Path>> builds, PrintStream out) {
        out.println("| shards | build | JVMs | events/s, every round (sorted) | median | MB/s (median) | events/CPU-s (median)"
                + " | median vs " + rounds.keySet().iterator().next() + " |");
        out.println("|---:|---|---:|---|---:|---:|---:|---:|");
        Map<Integer, Double> first = new TreeMap<>();
        for (Map.Entry<String, List<Round>> b : rounds.entrySet()) {
            for (Map.Entry<Integer, List<Round>> s : byShards(b.getValue()).entrySet()) {
                List<Double> eps = s.getValue().stream().map(Round::eventsPerSecond).sorted().toList();
                double med = median(eps);
                first.putIfAbsent(s.getKey(), med);
                out.printf(Locale.ROOT, "| %d | %s | %d | %s | %.2f M | %.0f | %.2f M | %.2fx |%n", s.getKey(), b.getKey(),
                        builds.get(b.getKey()).size(),
                        String.join(", ", eps.stream().map(v -> String.format(Locale.ROOT, "%.2f", v / 1e6)).toList()) + " M",
                        med / 1e6, median(s.getValue().stream().map(Round::megabytesPerSecond).toList()),
                        median(s.getValue().stream().map(Round::eventsPerCpuSecond).toList()) / 1e6, med / first.get(s.getKey()));
            }
        }
    }

    private static void plot(Map<String, List<Round>> rounds, Path file) throws IOException {
        CategoryChart chart = BenchCharts.bars(
                "Merge + write of recorded OLTP streams (MergeBenchmark), builds alternating; goal 2.5 M events/s", "shards",
                "million events per second", 1200, "#,##0.00");
        java.awt.Color[] hues = {new java.awt.Color(0x9E9E9E), new java.awt.Color(0x1E88E5), new java.awt.Color(0xE53935),
            new java.awt.Color(0x43A047)};
        int build = 0;
        for (Map.Entry<String, List<Round>> b : rounds.entrySet()) {
            java.awt.Color hue = hues[build++ % hues.length];
            java.awt.Color pale = new java.awt.Color((hue.getRed() + 2 * 255) / 3, (hue.getGreen() + 2 * 255) / 3,
                    (hue.getBlue() + 2 * 255) / 3);
            List<String> x = new ArrayList<>();
            List<Double> med = new ArrayList<>();
            List<Double> low = new ArrayList<>();
            List<Double> high = new ArrayList<>();
            for (Map.Entry<Integer, List<Round>> s : byShards(b.getValue()).entrySet()) {
                List<Double> eps = s.getValue().stream().map(r -> r.eventsPerSecond() / 1e6).sorted().toList();
                x.add(s.getKey() + " shards");
                med.add(median(eps));
                low.add(eps.get(0));
                high.add(eps.get(eps.size() - 1));
            }
            chart.addSeries(b.getKey() + ": slowest round", x, low).setFillColor(pale);
            chart.addSeries(b.getKey() + ": median", x, med).setFillColor(hue);
            chart.addSeries(b.getKey() + ": fastest round", x, high).setFillColor(pale);
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
