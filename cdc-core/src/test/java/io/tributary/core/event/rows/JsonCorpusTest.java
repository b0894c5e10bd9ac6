package io.tributary.core.event.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.shyiko.mysql.binlog.BinaryLogFileReader;
import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.json.JsonBinary;
import io.tributary.core.event.ColumnType;
import java.io.ByteArrayInputStream;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Every JSON value of the corpus files that hold MySQL JSON columns, decoded by us and by
 * mysql-binlog-connector-java's {@code JsonBinary} (an independent implementation), must give the same
 * JSON text once insignificant whitespace is removed; VECTOR values must be whole float32 arrays.
 */
class JsonCorpusTest {
    private static final Path BINLOGS = RowImageCorpusTest.sharedDir().resolve("testdata/binlog");
    private static final List<String> JSON_FILES = List.of("mysql-8.0/rmc__json.binlog.000001",
            "mysql-8.x-9.x/rmc__json-opaque.binlog");

    @Test
    void shouldDecodeEveryJsonValueAsTheIndependentDecoderDoes() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(BINLOGS), BINLOGS + " not found; skipping");
        int compared = 0;
        for (String name : JSON_FILES) {
            byte[] data = CorpusRowsEvents.readBinlog(BINLOGS.resolve(name));
            List<String> ours = new ArrayList<>();
            CorpusRowsEvents w = CorpusRowsEvents.of(name, data);
            RowsEventDecoder rowsDecoder = new RowsEventDecoder(name);
            for (CorpusRowsEvents.Item e : w.rowsEvents()) {
                if (e.layout() == RowsImageLayout.PARTIAL_UPDATE) {
                    continue;
                }
                for (RowChange c : rowsDecoder.decode(e.event(), e.map())) {
                    for (Row r : new Row[] {c.before(), c.after()}) {
                        if (r == null) {
                            continue;
                        }
                        for (int i = 0; i < r.columnCount(); i++) {
                            if (r.isPresent(i) && e.table().get(i).type() == ColumnType.JSON) {
                                ours.add(r.get(i) == null ? "NULL" : compact(r.get(i).toString()));
                            }
                        }
                    }
                }
            }
            List<String> theirs = peerJsonValues(data);
            assertEquals(theirs.size(), ours.size(), name + ": number of JSON values");
            List<String> diffs = new ArrayList<>();
            for (int i = 0; i < ours.size(); i++) {
                // MySQL prints opaque values as "base64:typeNN:<data>" and temporal values with 6 fractional
                // digits (the manual's JSON_ARRAY(CURTIME()) example shows "11:30:24.000000"); the peer prints
                // only the data and drops a zero fraction
                String mine = ours.get(i).replaceAll("\"base64:type\\d+:", "\"")
                        .replaceAll("(\\d\\d:\\d\\d:\\d\\d)\\.000000\"", "$1\"");
                if (!mine.equals(theirs.get(i))) {
                    diffs.add("value " + i + ": ours " + ours.get(i) + " | peer " + theirs.get(i));
                }
            }
            assertTrue(diffs.isEmpty(), name + ":\n" + String.join("\n", diffs));
            compared += ours.size();
        }
        System.out.println("JSON values compared with mysql-binlog-connector-java: " + compared);
        assertTrue(compared >= 5, "the JSON corpus files hold several JSON values; compared " + compared);
    }

    @Test
    void shouldDecodeVectorsAsWholeFloat32Arrays() throws Exception {
        Path file = BINLOGS.resolve("mysql-8.x-9.x/rmc__vector.binlog");
        Assumptions.assumeTrue(Files.isRegularFile(file), file + " not found; skipping");
        CorpusRowsEvents w = CorpusRowsEvents.read(file);
        RowsEventDecoder rowsDecoder = new RowsEventDecoder(w.file());
        int vectors = 0;
        for (CorpusRowsEvents.Item e : w.rowsEvents()) {
            for (RowChange c : rowsDecoder.decode(e.event(), e.map())) {
                Row r = c.after() != null ? c.after() : c.before();
                for (int i = 0; i < r.columnCount(); i++) {
                    if (e.table().get(i).type() == ColumnType.VECTOR && r.get(i) != null) {
                        byte[] v = (byte[]) r.get(i);
                        assertEquals(0, v.length % 4, "a VECTOR is float32 values");
                        for (int k = 0; k < v.length; k += 4) {
                            float f = java.nio.ByteBuffer.wrap(v, k, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getFloat();
                            assertTrue(Float.isFinite(f), "vector element " + k / 4 + " is finite: " + f);
                        }
                        vectors++;
                    }
                }
            }
        }
        assertTrue(vectors > 0, "the file holds VECTOR values");
        System.out.println("VECTOR values decoded: " + vectors);
    }

    private static List<String> peerJsonValues(byte[] data) throws Exception {
        List<String> out = new ArrayList<>();
        EventDeserializer ed = new EventDeserializer();
        try (BinaryLogFileReader reader = new BinaryLogFileReader(new ByteArrayInputStream(data), ed)) {
            for (Event ev; (ev = reader.readEvent()) != null; ) {
                EventData d = ev.getData();
                List<Serializable[]> rows = new ArrayList<>();
                if (d instanceof WriteRowsEventData wr) {
                    rows.addAll(wr.getRows());
                } else if (d instanceof DeleteRowsEventData dr) {
                    rows.addAll(dr.getRows());
                } else if (d instanceof UpdateRowsEventData ur && ur.getClass() == UpdateRowsEventData.class) {
                    for (Map.Entry<Serializable[], Serializable[]> row : ur.getRows()) {
                        rows.add(row.getKey());
                        rows.add(row.getValue());
                    }
                }
                // in these two files the only byte[] columns are the JSON ones (the others are INT and VARCHAR)
                for (Serializable[] row : rows) {
                    for (Serializable v : row) {
                        if (v instanceof byte[] b) {
                            out.add(compact(JsonBinary.parseAsString(b)));
                        }
                    }
                }
            }
        }
        return out;
    }

    /** JSON text without whitespace outside string literals. */
    static String compact(String json) {
        StringBuilder sb = new StringBuilder();
        boolean inString = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                sb.append(c);
                if (c == '\\' && i + 1 < json.length()) {
                    sb.append(json.charAt(++i));
                } else if (c == '"') {
                    inString = false;
                }
            } else if (!Character.isWhitespace(c)) {
                sb.append(c);
                inString = c == '"';
            }
        }
        return sb.toString();
    }
}
