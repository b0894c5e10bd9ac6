package io.tributary.core.event.rows;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.RowsEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Real rows events from the corpus, their row images truncated at every length and with bits flipped (fixed
 * seed), decoded through {@link RowsEventDecoder}: each either decodes or fails with a
 * {@link RowDecodeException} that names the file, the event's offset and its table; never another
 * exception, never a hang.
 */
class RowImageCorruptionTest {
    private static final Path CORPUS = RowImageCorpusTest.sharedDir().resolve("testdata/binlog");

    private List<CorpusRowsEvents.Item> sample() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), CORPUS + " not found; skipping");
        List<CorpusRowsEvents.Item> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(CORPUS)) {
            for (Path p : s.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".md"))
                    .filter(p -> !p.toString().contains("/malformed/")).filter(p -> !p.toString().endsWith(".gz"))
                    .sorted().toList()) {
                CorpusRowsEvents.read(p).rowsEvents().stream().filter(e -> e.rows().rowsLength() < 4096).limit(5)
                        .forEach(out::add);
            }
        }
        return out;
    }

    @Test
    void shouldFailCleanlyOnEveryTruncationAndOnFlippedBytes() throws Exception {
        List<CorpusRowsEvents.Item> events = sample();
        Random random = new Random(20261121L);
        int cases = 0;
        int refused = 0;
        List<String> bad = new ArrayList<>();
        for (CorpusRowsEvents.Item e : events) {
            byte[] images = rowImages(e);
            for (int len = 0; len < images.length; len++) {
                cases++;
                refused += attempt(e, images, len, bad, "truncated to " + len);
            }
            for (int k = 0; k < 50; k++) {
                int at = random.nextInt(Math.max(1, images.length));
                if (images.length == 0) {
                    break;
                }
                byte[] corrupt = images.clone();
                corrupt[at] ^= (byte) (1 << random.nextInt(8));
                cases++;
                refused += attempt(e, corrupt, images.length, bad, "bit flipped at " + at);
            }
        }
        System.out.printf("corruption: %d rows events, %d corrupted inputs, %d refused with RowDecodeException%n",
                events.size(), cases, refused);
        if (!bad.isEmpty()) {
            fail(bad.size() + " corrupted inputs escaped as other exceptions or unlocated errors:\n"
                    + String.join("\n", bad.subList(0, Math.min(20, bad.size()))));
        }
        assertTrue(refused > cases / 2, "most corrupted inputs are refused: " + refused + " of " + cases);
    }

    private static byte[] rowImages(CorpusRowsEvents.Item e) {
        RowsEvent r = e.rows();
        return java.util.Arrays.copyOfRange(r.buffer(), r.rowsOffset(), r.rowsOffset() + r.rowsLength());
    }

    /** Decodes the event with its row images replaced by the first {@code len} bytes of {@code images}. */
    private static int attempt(CorpusRowsEvents.Item e, byte[] images, int len, List<String> bad, String what) {
        RowsEvent r = e.rows();
        RowsEvent corruptRows = new RowsEvent(r.tableId(), r.flags(), r.extraData(), r.columnCount(), r.columnsPresent(),
                r.columnsPresentAfter(), images, 0, len);
        BinlogEvent original = e.event();
        BinlogEvent corrupt = new BinlogEvent(original.header(), original.offset(), original.innerOffset(),
                original.originalTypeCode(), original.buffer(), original.bufferOffset(), original.length(),
                original.checksumLength(), corruptRows);
        try {
            new RowsEventDecoder(e.file()).decode(corrupt, e.map());
            return 0;
        } catch (RowDecodeException expected) {
            String where = e.file() + " at offset " + e.offset();
            if (!expected.getMessage().startsWith(where) || !expected.getMessage().contains(e.table().tableName())) {
                bad.add(e.file() + "@" + e.offset() + " " + what + ": message lacks \"" + where + "\" or the table "
                        + e.table().tableName() + ": " + expected.getMessage());
            }
            return 1;
        } catch (RuntimeException other) {
            bad.add(e.file() + "@" + e.offset() + " " + what + ": " + other);
            return 0;
        }
    }
}
