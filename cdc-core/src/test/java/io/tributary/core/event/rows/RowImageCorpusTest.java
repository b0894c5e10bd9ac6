package io.tributary.core.event.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.ColumnType;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Decodes every row of every rows event in the real binlog corpus ({@code ../shared/testdata/binlog},
 * see its {@code SOURCES.md}), read with {@link io.tributary.core.event.BinlogEventDecoder} and decoded
 * with {@link RowsEventDecoder} against each event's TABLE_MAP, and, where {@code mariadb-binlog} can print
 * the file, compares every value with what it prints.
 */
class RowImageCorpusTest {
    private static final Path CORPUS = sharedDir().resolve("testdata").resolve("binlog");
    private static final Path MARIADB_BINLOG = Path.of("/usr/bin/mariadb-binlog");

    private final RowImageDecoder decoder = new RowImageDecoder();

    /**
     * {@code tributary.shared.dir} when surefire sets it; otherwise the {@code shared} directory beside the
     * first ancestor of the working directory that has one (the parent pom's {@code systemPropertyValues}
     * is ignored by surefire 3, so the property is currently not set).
     */
    static Path sharedDir() {
        String prop = System.getProperty("tributary.shared.dir");
        if (prop != null && !prop.isBlank()) {
            return Path.of(prop);
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolveSibling("shared");
            if (Files.isDirectory(candidate.resolve("testdata"))) {
                return candidate;
            }
        }
        return Path.of("../shared");
    }

    private static List<Path> corpusFiles() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), "binlog corpus not found at " + CORPUS.toAbsolutePath()
                + " (set -Dtributary.shared.dir); skipping the corpus test");
        try (Stream<Path> s = Files.walk(CORPUS)) {
            return s.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().endsWith(".md"))
                    .filter(p -> !p.toString().contains("/malformed/"))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void shouldDecodeEveryRowOfEveryRowsEventAndConsumeEachImageExactly() throws IOException {
        int files = 0;
        int events = 0;
        int rows = 0;
        int refused = 0;
        long decodeNanos = 0;
        long decodedBytes = 0;
        List<String> failures = new ArrayList<>();
        for (Path file : corpusFiles()) {
            CorpusRowsEvents w = CorpusRowsEvents.read(file);
            if (!w.rowsEvents().isEmpty()) {
                files++;
            }
            RowsEventDecoder rowsDecoder = new RowsEventDecoder(w.file());
            for (CorpusRowsEvents.Item e : w.rowsEvents()) {
                RowsEvent body = e.rows();
                try {
                    long t0 = System.nanoTime();
                    List<RowChange> changes = rowsDecoder.decode(e.event(), e.map());
                    decodeNanos += System.nanoTime() - t0;
                    decodedBytes += body.rowsLength();
                    ByteBuf buf = Unpooled.wrappedBuffer(body.rows());
                    assertEquals(changes, decoder.decodeRows(e.table(), e.layout(), body.columnsPresent(),
                            body.columnsPresentAfter(), buf), "the ByteBuf path decodes the same rows");
                    assertEquals(0, buf.readableBytes(), "bytes left after the last row");
                    assertTrue(!changes.isEmpty(), "a rows event holds at least one row");
                    events++;
                    rows += changes.size();
                } catch (RowDecodeException ex) {
                    if (expectedRefusal(e, ex.getMessage())) {
                        refused++;
                        continue;
                    }
                    failures.add(e.file() + " event at " + e.offset() + " (type " + e.type() + ", " + e.table().tableName()
                            + "): " + ex.getMessage());
                } catch (RuntimeException | AssertionError ex) {
                    failures.add(e.file() + " event at " + e.offset() + " (type " + e.type() + ", " + e.table().tableName()
                            + "): " + ex.getMessage());
                }
            }
        }
        System.out.printf("corpus: %d files with rows events, %d rows events, %d rows decoded, %d events refused as"
                + " expected; %.1f MB of row images in %d ms (cold, one pass: a figure, not a benchmark)%n",
                files, events, rows, refused, decodedBytes / 1e6, decodeNanos / 1_000_000);
        if (!failures.isEmpty()) {
            fail(failures.size() + " rows events failed:\n" + String.join("\n", failures));
        }
        assertTrue(events > 100, "the corpus has well over 100 rows events; decoded " + events);
    }

    @Test
    void shouldPrintEveryValueExactlyAsMariadbBinlogDoes() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(MARIADB_BINLOG), MARIADB_BINLOG + " not installed; cannot compare");
        int comparedFiles = 0;
        int comparedLines = 0;
        java.util.Set<String> comparedTypes = new java.util.TreeSet<>();
        List<String> mismatches = new ArrayList<>();
        for (Path file : corpusFiles()) {
            byte[] data = CorpusRowsEvents.readBinlog(file);
            CorpusRowsEvents w = CorpusRowsEvents.of(file.getFileName().toString(), data);
            if (w.rowsEvents().isEmpty() || !w.skipped().isEmpty() || !comparable(w) || !decodable(w)) {
                continue;
            }
            List<String> ours = new ArrayList<>();
            RowsEventDecoder rowsDecoder = new RowsEventDecoder(w.file());
            for (CorpusRowsEvents.Item e : w.rowsEvents()) {
                for (RowChange c : rowsDecoder.decode(e.event(), e.map())) {
                    for (Row r : new Row[] {c.before(), c.after()}) {
                        if (r != null) {
                            ours.addAll(lines(r.toVerboseBytes()));
                        }
                    }
                }
            }
            List<String> theirs = mariadbBinlogValueLines(file, data);
            if (theirs == null) {
                continue;
            }
            comparedFiles++;
            comparedLines += theirs.size();
            for (CorpusRowsEvents.Item e : w.rowsEvents()) {
                for (ColumnDefinition c : e.table().columns()) {
                    comparedTypes.add(c.storedType() + (c.type() == ColumnType.TIME2 || c.type() == ColumnType.DATETIME2
                            || c.type() == ColumnType.TIMESTAMP2 ? "(" + c.metadata() + ")" : ""));
                }
            }
            if (!ours.equals(theirs)) {
                int n = Math.min(ours.size(), theirs.size());
                int i = 0;
                while (i < n && ours.get(i).equals(theirs.get(i))) {
                    i++;
                }
                mismatches.add(file.getFileName() + ": " + ours.size() + " lines ours, " + theirs.size()
                        + " mariadb-binlog; first difference at line " + i + ":\n  ours:   "
                        + (i < ours.size() ? ours.get(i) : "<none>") + "\n  theirs: " + (i < theirs.size() ? theirs.get(i) : "<none>"));
            }
        }
        System.out.printf("mariadb-binlog comparison: %d files, %d value lines, column types %s%n", comparedFiles,
                comparedLines, comparedTypes);
        if (!mismatches.isEmpty()) {
            fail(String.join("\n", mismatches));
        }
        assertTrue(comparedFiles >= 20, "expected at least 20 comparable corpus files, got " + comparedFiles);
    }

    /**
     * The two refusals the corpus is known to need, each checked against the event itself (and its
     * message against the event's file, offset and type): a
     * PARTIAL_UPDATE_ROWS whose before image lacks a JSON column (MINIMAL row image), and MariaDB 10.0
     * TIMESTAMP(3) columns whose fractional bytes the TABLE_MAP does not describe.
     */
    private static boolean expectedRefusal(CorpusRowsEvents.Item e, String message) {
        if (!message.startsWith(e.file() + " at offset " + e.offset() + " [" + EventType.nameOf(e.type().code()))) {
            return false;
        }
        if (e.layout() == RowsImageLayout.PARTIAL_UPDATE) {
            boolean jsonMissingFromBefore = false;
            for (int i = 0; i < e.table().size(); i++) {
                jsonMissingFromBefore |= e.table().get(i).type() == ColumnType.JSON && !e.rows().columnsPresent().get(i);
            }
            return jsonMissingFromBefore && message.contains("PARTIAL_UPDATE_ROWS on table " + e.table().tableName())
                    && message.contains("before image has no value");
        }
        boolean oldTemporal = e.table().columns().stream().anyMatch(c -> c.type() == ColumnType.TIMESTAMP);
        return oldTemporal && e.file().startsWith("tiflow__mariadb") && message.contains("old-format TIME/DATETIME/TIMESTAMP");
    }

    /** Files the first test reports as failing are not compared again here. */
    private static boolean decodable(CorpusRowsEvents w) {
        RowsEventDecoder rowsDecoder = new RowsEventDecoder(w.file());
        try {
            for (CorpusRowsEvents.Item e : w.rowsEvents()) {
                rowsDecoder.decode(e.event(), e.map());
            }
            return true;
        } catch (RowDecodeException ex) {
            return false;
        }
    }

    /** mariadb-binlog cannot print MySQL JSON/VECTOR columns nor expand TRANSACTION_PAYLOAD events. */
    private static boolean comparable(CorpusRowsEvents w) {
        for (CorpusRowsEvents.Item e : w.rowsEvents()) {
            for (ColumnDefinition c : e.table().columns()) {
                if (c.type() == ColumnType.JSON || c.type() == ColumnType.VECTOR) {
                    return false;
                }
            }
            if (e.type() == EventType.PARTIAL_UPDATE_ROWS) {
                return false;
            }
        }
        return true;
    }

    private static List<String> lines(byte[] verbose) {
        List<String> out = new ArrayList<>();
        for (String l : new String(verbose, StandardCharsets.ISO_8859_1).split("\n", -1)) {
            out.add(l);
        }
        return out;
    }

    /** mariadb-binlog warns about MySQL 8 collation ids it does not know (255+); that does not affect values. */
    private static boolean hasRealErrors(String stderr) {
        return stderr.lines().anyMatch(l -> !l.isBlank() && !l.contains("is not a compiled character set"));
    }

    /** The {@code ###   @N=} lines mariadb-binlog prints, or null when it reports an error for the file. */
    private static List<String> mariadbBinlogValueLines(Path file, byte[] data) throws Exception {
        Path input = file;
        Path temp = null;
        if (file.toString().endsWith(".gz")) {
            temp = Files.createTempFile("corpus", ".bin");
            Files.write(temp, data);
            input = temp;
        }
        try {
            Process p = new ProcessBuilder(MARIADB_BINLOG.toString(), "--verbose", "--base64-output=decode-rows",
                    "--skip-gtid-strict-mode", input.toString()).redirectErrorStream(false).start();
            byte[] out;
            byte[] err;
            try (InputStream o = p.getInputStream(); InputStream e = p.getErrorStream()) {
                ByteArrayOutputStream errBuf = new ByteArrayOutputStream();
                Thread t = new Thread(() -> {
                    try {
                        e.transferTo(errBuf);
                    } catch (IOException ignored) {
                        // the process ended; what was read is enough for the message
                    }
                }, "mariadb-binlog-stderr");
                t.start();
                out = o.readAllBytes();
                t.join(30_000);
                err = errBuf.toByteArray();
            }
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            if (p.exitValue() != 0 || hasRealErrors(new String(err, StandardCharsets.UTF_8))) {
                return null;
            }
            List<String> lines = new ArrayList<>();
            for (String l : new String(out, StandardCharsets.ISO_8859_1).split("\n")) {
                if (l.startsWith("###   @")) {
                    lines.add(l);
                }
            }
            return lines;
        } finally {
            if (temp != null) {
                Files.deleteIfExists(temp);
            }
        }
    }
}
