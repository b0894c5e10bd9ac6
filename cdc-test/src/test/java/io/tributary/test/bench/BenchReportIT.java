package io.tributary.test.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/**
 * Smoke test of the benchmark runner: {@code BenchRunner --quick} against real shards and the daemon as a child
 * JVM, then the report is checked for completeness (not for its figures): every scenario has a measured row
 * for every load of the quick profile, the CSV parses, every plot is a PNG that decodes and the HTML shows it,
 * the OLTP ladder's saturation verdict is printed, the TPCC-like import's row names the rows loaded (the runner
 * measures it only if the tables hold as many rows as the loaders committed), and the run printed its progress.
 */
class BenchReportIT {

    @Test
    void quickRunWritesACompleteReport() throws Exception {
        Path out = Path.of("target", "bench-report-quick").toAbsolutePath();
        BenchRunner.deleteTree(out);
        BenchOptions o = BenchOptions.parse("--quick", "--out=" + out,
                "--work=" + Path.of("target", "bench-work-it").toAbsolutePath());
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(new TeeStream(System.out, log), true, StandardCharsets.UTF_8);
        BenchRunner.run(o, tee);
        String printed = log.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("[1/" + o.steps() + "]") && printed.contains("elapsed"),
                "the run shows its progress (step n/m, elapsed)");

        // the CSV: the header, then rows of exactly as many fields, numbers where numbers belong
        List<List<String>> csv = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve("results.csv"), StandardCharsets.UTF_8)) {
            csv.add(parseCsvLine(line));
        }
        assertEquals(BenchRow.CSV_HEADER, csv.get(0), "results.csv header");
        List<List<String>> rows = csv.subList(1, csv.size());
        for (List<String> r : rows) {
            assertEquals(BenchRow.CSV_HEADER.size(), r.size(), "fields in CSV row " + r);
            for (int i = 4; i < r.size() - 1; i++) {
                if (!r.get(i).isEmpty()) {
                    Double.parseDouble(r.get(i)); // throws if not a number
                }
            }
        }

        // every scenario, every load of the quick profile, measured (EPS, or time to durable for large ones)
        Set<String> measured = new HashSet<>();
        for (List<String> r : rows) {
            boolean hasFigure = !r.get(5).isEmpty() || !r.get(17).isEmpty();
            if (hasFigure) {
                measured.add(r.get(0) + "|" + r.get(1) + "|" + r.get(3));
            }
        }
        List<String> expected = new ArrayList<>();
        o.importTables().forEach(t -> expected.add("import|" + t + " tables|"));
        o.tpccWarehouses().forEach(w -> expected.add("tpcc|" + w + " warehouses|"));
        o.oltpClients().forEach(c -> expected.add("oltp|" + BenchRunner.clientsLabel(c) + "|"));
        for (String mode : o.largeModes()) {
            for (String kind : List.of("single", "XA")) {
                o.largeMb().forEach(mb -> expected.add("large|" + mb + " MB " + kind + "|" + kind + "/" + mode));
            }
        }
        o.blobClients().forEach(c -> expected.add("blob|" + BenchRunner.clientsLabel(c) + "|"));
        o.fanout().forEach(n -> expected.add("fanout|" + n + " subscribers|"));
        o.pipelineShards().forEach(n -> expected.add("pipeline|" + n + " shards|"));
        for (String e : expected) {
            assertTrue(measured.contains(e), "a measured row for " + e + "; the CSV holds " + rows);
        }

        // plots: EPS and delay per scenario (pipeline: EPS only), large-transaction time; valid PNGs, shown in the HTML
        String html = Files.readString(out.resolve("index.html"), StandardCharsets.UTF_8);
        String md = Files.readString(out.resolve("summary.md"), StandardCharsets.UTF_8);
        List<String> plots = List.of("import-eps.png", "import-delay.png", "tpcc-eps.png", "tpcc-delay.png", "oltp-eps.png", "oltp-delay.png", "blob-eps.png",
                "blob-delay.png", "fanout-eps.png", "fanout-delay.png", "pipeline-eps.png", "large-time.png");
        for (String p : plots) {
            Path f = out.resolve(p);
            assertTrue(Files.isRegularFile(f), p + " written");
            byte[] head = Files.readAllBytes(f);
            assertTrue(head.length > 8 && (head[0] & 0xFF) == 0x89 && head[1] == 'P' && head[2] == 'N' && head[3] == 'G',
                    p + " is a PNG");
            BufferedImage img = ImageIO.read(f.toFile());
            assertNotNull(img, p + " decodes");
            assertTrue(img.getWidth() >= 400 && img.getHeight() >= 300, p + " size " + img.getWidth() + "x" + img.getHeight());
            assertTrue(html.contains("src=\"" + p + "\""), "index.html shows " + p);
            assertTrue(md.contains("](" + p + ")"), "summary.md shows " + p);
        }
        for (String scenario : o.scenarios()) {
            String title = BenchReport.SCENARIOS.get(scenario);
            assertTrue(html.contains(title.replace("&", "&amp;")) && md.contains("## " + title), "a table for " + title);
        }
        assertTrue(md.contains("commit: ") && md.contains("disk sequential write"), "summary names the commit and the machine");
        assertTrue(md.contains("Saturation: ") && html.contains("<p>Saturation: ")
                && md.contains(Saturation.RULE), "the OLTP table is followed by the saturation verdict and its rule");
        // the TPCC-like import: its rows say how many rows the loaders wrote, and the shards' binlogs carried them
        for (List<String> r : rows) {
            if (r.get(0).equals("tpcc")) {
                assertTrue(r.get(r.size() - 1).matches(".*; [\\d,]+ rows in .*") && Double.parseDouble(r.get(18)) > 0,
                        "the tpcc row names the rows loaded and the shard binlog bytes: " + r);
            }
        }
    }

    /** One CSV line: commas separate, double quotes quote, "" is a quote. */
    static List<String> parseCsvLine(String line) {
        List<String> f = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quoted) {
                if (ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (ch == '"') {
                    quoted = false;
                } else {
                    cur.append(ch);
                }
            } else if (ch == '"') {
                quoted = true;
            } else if (ch == ',') {
                f.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        if (quoted) {
            throw new IllegalArgumentException("unterminated quote in CSV line: " + line);
        }
        f.add(cur.toString());
        return f;
    }

    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream a;
        private final java.io.OutputStream b;

        TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }

        @Override
        public void flush() throws java.io.IOException {
            a.flush();
            b.flush();
        }
    }
}
