package io.tributary.core.event.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.RowsEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Uses the real PARTIAL_UPDATE_ROWS event of {@code mysql-8.0/rmc__json.binlog.000001} (MySQL 8.0.22,
 * table {@code t(id INT, json_col JSON, name VARCHAR AS (json_col->>'$.name'), age INT AS
 * (json_col->'$.age'))}). Its before images are MINIMAL (id only), so the event alone must be refused; with
 * the full rows taken from the file's earlier full-image events, the JSON diffs must rebuild values whose
 * {@code $.name} and {@code $.age} equal the generated columns the server wrote in the same after image.
 */
class PartialJsonCorpusTest {
    private static final Path FILE = RowImageCorpusTest.sharedDir()
            .resolve("testdata/binlog/mysql-8.0/rmc__json.binlog.000001");

    private final RowImageDecoder decoder = new RowImageDecoder();

    @Test
    void shouldRebuildFullJsonFromDiffsAndAgreeWithTheServersGeneratedColumns() throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(FILE), FILE + " not found; skipping");
        CorpusRowsEvents w = CorpusRowsEvents.read(FILE);
        RowsEventDecoder rowsDecoder = new RowsEventDecoder(w.file());
        Map<Long, Row> latestFullRow = new HashMap<>();
        CorpusRowsEvents.Item partial = null;
        for (CorpusRowsEvents.Item e : w.rowsEvents()) {
            if (e.layout() == RowsImageLayout.PARTIAL_UPDATE) {
                partial = e;
                break;
            }
            for (RowChange c : rowsDecoder.decode(e.event(), e.map())) {
                Row full = c.after() != null ? c.after() : c.before();
                latestFullRow.put((Long) full.get(0), full);
            }
        }
        assertNotNull(partial, "the file holds a PARTIAL_UPDATE_ROWS event");
        RowsEvent rows = partial.rows();
        assertFalse(rows.columnsPresent().get(1), "the event's before image is MINIMAL (no JSON column)");

        ByteBuf buf = Unpooled.wrappedBuffer(rows.rows());
        int rebuilt = 0;
        while (buf.isReadable()) {
            Row minimal = decoder.decodeImage(partial.table(), rows.columnsPresent(), buf);
            Row before = latestFullRow.get((Long) minimal.get(0));
            assertNotNull(before, "a full image of row id " + minimal.get(0) + " precedes the partial update");
            Row after = decoder.decodePartialAfterImage(partial.table(), rows.columnsPresentAfter(), buf, before);
            JsonDocument json = (JsonDocument) after.get(1);
            @SuppressWarnings("unchecked")
            Map<String, Object> object = (Map<String, Object>) json.root();
            assertEquals(after.get(3), object.get("age"), "rebuilt $.age equals the generated column age: " + json);
            Object name = after.get(2);
            assertEquals(name instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : name,
                    object.get("name"),
                    "rebuilt $.name equals the generated column name: " + json);
            assertTrue(!json.equals(before.get(1)), "the diff changed the document");
            rebuilt++;
        }
        assertTrue(rebuilt > 0);
        System.out.println("partial JSON rows rebuilt from diffs: " + rebuilt);
    }

    @Test
    void shouldRefusePartialUpdateWithoutBeforeJsonNamingTheTable() throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(FILE), FILE + " not found; skipping");
        CorpusRowsEvents w = CorpusRowsEvents.read(FILE);
        CorpusRowsEvents.Item partial = w.rowsEvents().stream()
                .filter(e -> e.layout() == RowsImageLayout.PARTIAL_UPDATE).findFirst().orElseThrow();
        RowDecodeException ex = org.junit.jupiter.api.Assertions.assertThrows(RowDecodeException.class,
                () -> new RowsEventDecoder(w.file()).decode(partial.event(), partial.map()));
        assertTrue(ex.getMessage().startsWith(w.file() + " at offset " + partial.offset() + " [PARTIAL_UPDATE_ROWS(39)"),
                ex.getMessage());
        assertTrue(ex.getMessage().contains("table mysql.t"), ex.getMessage());
        assertTrue(ex.getMessage().contains("before image"), ex.getMessage());
    }

}
