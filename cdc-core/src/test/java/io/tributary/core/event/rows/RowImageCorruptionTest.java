package io.tributary.core.event.rows;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Real rows events from the corpus, truncated at every length and with bytes flipped (fixed seed): the
 * decoder either decodes them or throws {@link RowDecodeException}; never another exception, never a hang.
 */
class RowImageCorruptionTest {
    private static final Path CORPUS = RowImageCorpusTest.sharedDir().resolve("testdata/binlog");
    private final RowImageDecoder decoder = new RowImageDecoder();

    private List<CorpusWalker.RowsEvent> sample() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), CORPUS + " not found; skipping");
        List<CorpusWalker.RowsEvent> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(CORPUS)) {
            for (Path p : s.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".md"))
                    .filter(p -> !p.toString().contains("/malformed/")).filter(p -> !p.toString().endsWith(".gz"))
                    .sorted().toList()) {
                CorpusWalker w = CorpusWalker.walk(p.getFileName().toString(), CorpusWalker.readBinlog(p));
                w.rowsEvents.stream().filter(e -> e.rowsLength() < 4096).limit(5).forEach(out::add);
            }
        }
        return out;
    }

    @Test
    void shouldFailCleanlyOnEveryTruncationAndOnFlippedBytes() throws Exception {
        List<CorpusWalker.RowsEvent> events = sample();
        Random random = new Random(20261121L);
        int cases = 0;
        int refused = 0;
        List<String> bad = new ArrayList<>();
        for (CorpusWalker.RowsEvent e : events) {
            for (int len = 0; len < e.rowsLength(); len++) {
                cases++;
                refused += attempt(e, e.body(), len, bad, "truncated to " + len);
            }
            for (int k = 0; k < 50; k++) {
                byte[] body = e.body().clone();
                int at = e.rowsOffset() + random.nextInt(Math.max(1, e.rowsLength()));
                if (e.rowsLength() == 0) {
                    break;
                }
                body[at] ^= (byte) (1 << random.nextInt(8));
                cases++;
                refused += attempt(e, body, e.rowsLength(), bad, "bit flipped at " + (at - e.rowsOffset()));
            }
        }
        System.out.printf("corruption: %d rows events, %d corrupted inputs, %d refused with RowDecodeException%n",
                events.size(), cases, refused);
        if (!bad.isEmpty()) {
            fail(bad.size() + " corrupted inputs escaped as other exceptions:\n"
                    + String.join("\n", bad.subList(0, Math.min(20, bad.size()))));
        }
        assertTrue(refused > cases / 2, "most corrupted inputs are refused: " + refused + " of " + cases);
    }

    private int attempt(CorpusWalker.RowsEvent e, byte[] body, int len, List<String> bad, String what) {
        try {
            decoder.decodeRows(e.table(), e.layout(), e.columns(), e.afterColumns(), body, e.rowsOffset(), len);
            return 0;
        } catch (RowDecodeException expected) {
            return 1;
        } catch (RuntimeException other) {
            bad.add(e.file() + "@" + e.offset() + " " + what + ": " + other);
            return 0;
        }
    }
}
