package io.tributary.core.event.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogEventEncoder;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.ColumnType;
import io.tributary.core.event.EventType;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.event.TableMapOptionalMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@link RowsReshaper} on the rows events of the binlog corpus (real servers' bytes, MySQL 5.1 to 9 and MariaDB):
 * every event of a table of integer and VARCHAR columns is rewritten with its second column dropped, each integer
 * widened to BIGINT, each VARCHAR to a maximum length past 255 bytes (so its length prefix grows to 2 bytes) and an
 * INT column with a constant added; the result, decoded against the new TABLE_MAP, must hold the same values
 * column for column (before and after images of updates alike) and the constant.
 */
class RowsReshaperTest {

    private static final Path CORPUS = RowImageCorpusTest.sharedDir().resolve("testdata").resolve("binlog");
    private static final Set<ColumnType> CONVERTED = Set.of(ColumnType.TINY, ColumnType.SHORT, ColumnType.INT24,
            ColumnType.LONG, ColumnType.LONGLONG, ColumnType.VARCHAR);
    private static final byte[] SEVEN = {7, 0, 0, 0};

    private final RowImageDecoder images = new RowImageDecoder();

    private static List<Path> corpusFiles() throws IOException {
        Assumptions.assumeTrue(Files.isDirectory(CORPUS), "binlog corpus not found at " + CORPUS.toAbsolutePath());
        try (Stream<Path> s = Files.walk(CORPUS)) {
            return s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().endsWith(".md"))
                    .filter(p -> !p.toString().contains("/malformed/")).sorted().toList();
        }
    }

    /** The map as a server without optional metadata writes it: all signed, strings as bytes. */
    private static TableMapEvent plain(TableMapEvent m) {
        return new TableMapEvent(m.tableId(), m.flags(), m.database(), m.table(), m.columnTypes(), m.metadata(),
                m.nullable(), TableMapOptionalMetadata.EMPTY);
    }

    private static boolean convertible(CorpusRowsEvents.Item item) {
        TableMapEvent m = item.map();
        if (m.columnCount() < 2 || item.layout() == RowsImageLayout.PARTIAL_UPDATE) {
            return false;
        }
        for (int i = 0; i < m.columnCount(); i++) {
            if (!CONVERTED.contains(m.columnTypes().get(i))) {
                return false;
            }
        }
        return true;
    }

    private static List<RowsReshaper.TargetColumn> targets(CorpusRowsEvents.Item item) {
        TableMapEvent m = item.map();
        List<RowsReshaper.TargetColumn> out = new ArrayList<>();
        for (int i = 0; i < m.columnCount(); i++) {
            if (i == 1) {
                continue; // dropped
            }
            ColumnType t = m.columnTypes().get(i);
            boolean unsigned = item.table().get(i).unsigned();
            if (t == ColumnType.VARCHAR) {
                out.add(new RowsReshaper.TargetColumn(new RowsReshaper.Widen(i, false), ColumnType.VARCHAR,
                        m.metadata().get(i) + 300, true));
            } else if (t == ColumnType.LONGLONG) {
                out.add(new RowsReshaper.TargetColumn(new RowsReshaper.Copy(i), t, 0, true));
            } else {
                out.add(new RowsReshaper.TargetColumn(new RowsReshaper.Widen(i, !unsigned), ColumnType.LONGLONG, 0, true));
            }
        }
        out.add(new RowsReshaper.TargetColumn(new RowsReshaper.Constant(SEVEN), ColumnType.LONG, 0, true));
        return out;
    }

    private List<RowChange> decode(BinlogEvent e, TableMapEvent map) {
        return new RowsEventDecoder("reshaped").decode(e, map);
    }

    @Test
    void shouldKeepEveryValueOfRealRowsEventsThroughDropWidenAndAdd() throws IOException {
        int events = 0;
        int rows = 0;
        Set<EventType> types = new java.util.TreeSet<>();
        for (Path file : corpusFiles()) {
            CorpusRowsEvents corpus = CorpusRowsEvents.read(file);
            for (CorpusRowsEvents.Item item : corpus.rowsEvents()) {
                if (!convertible(item)) {
                    continue;
                }
                List<RowChange> real;
                List<RowChange> bytes;
                try {
                    real = decode(item.event(), item.map());
                    bytes = decode(item.event(), plain(item.map()));
                } catch (RowDecodeException undecodable) {
                    continue; // the corpus test covers what does not decode
                }
                RowsReshaper reshaper = new RowsReshaper(item.map(), targets(item));
                BinlogEvent out = reshaper.rows(item.event());
                BinlogEvent map = reshaper.tableMap(item.event());
                assertThat(map.body()).isEqualTo(reshaper.targetMap());
                List<RowChange> got = decode(out, reshaper.targetMap());
                assertThat(got).as("%s@%d", file.getFileName(), item.offset()).hasSameSizeAs(real);
                for (int r = 0; r < got.size(); r++) {
                    String where = file.getFileName() + "@" + item.offset() + " row " + r;
                    compare(where, real.get(r).before(), bytes.get(r).before(), got.get(r).before(), item);
                    compare(where, real.get(r).after(), bytes.get(r).after(), got.get(r).after(), item);
                }
                events++;
                rows += got.size();
                types.add(item.type());
            }
        }
        assertThat(events).as("rows events of integer/VARCHAR tables in the corpus").isGreaterThan(50);
        assertThat(types).as("WRITE, UPDATE and DELETE").hasSizeGreaterThanOrEqualTo(3);
        assertThat(rows).isGreaterThanOrEqualTo(events);
    }

    private static void compare(String where, Row real, Row bytes, Row got, CorpusRowsEvents.Item item) {
        if (real == null) {
            assertThat(got).as(where).isNull();
            return;
        }
        TableMapEvent m = item.map();
        int j = 0;
        boolean full = real.table().size() == countPresent(real);
        for (int i = 0; i < m.columnCount(); i++) {
            if (i == 1) {
                continue;
            }
            assertThat(got.isPresent(j)).as("%s column %d present", where, i).isEqualTo(real.isPresent(i));
            Object expected = m.columnTypes().get(i) == ColumnType.VARCHAR ? bytes.get(i) : real.get(i);
            Object actual = got.get(j);
            if (expected instanceof byte[] b) {
                assertThat((byte[]) actual).as("%s column %d", where, i).isEqualTo(b);
            } else if (m.columnTypes().get(i) == ColumnType.LONGLONG) {
                assertThat(actual).as("%s column %d", where, i).isEqualTo(bytes.get(i));
            } else {
                assertThat(actual).as("%s column %d", where, i).isEqualTo(expected);
            }
            j++;
        }
        assertThat(got.isPresent(j)).as("%s: the added column is in full images only", where).isEqualTo(full);
        if (full) {
            assertThat(got.get(j)).as(where).isEqualTo(7L);
        }
    }

    private static int countPresent(Row r) {
        int n = 0;
        for (int i = 0; i < r.columnCount(); i++) {
            n += r.isPresent(i) ? 1 : 0;
        }
        return n;
    }

    @Test
    void shouldComeOutOfTheBinlogEncoderAsEventsThatDecodeToTheTargetLayout() throws IOException {
        CorpusRowsEvents.Item item = null;
        for (Path file : corpusFiles()) {
            for (CorpusRowsEvents.Item i : CorpusRowsEvents.read(file).rowsEvents()) {
                if (convertible(i) && i.layout() == RowsImageLayout.UPDATE) {
                    item = i;
                    break;
                }
            }
            if (item != null) {
                break;
            }
        }
        Assumptions.assumeTrue(item != null);
        List<String> names = new ArrayList<>();
        for (int j = 0; j < targets(item).size(); j++) {
            names.add("col_" + j);
        }
        RowsReshaper reshaper = new RowsReshaper(item.map(), targets(item), names);
        for (BinlogFlavor flavor : BinlogFlavor.values()) {
            BinlogEventEncoder encoder = new BinlogEventEncoder(flavor, 7);
            ByteBuf buf = Unpooled.buffer();
            buf.writeBytes(BinlogEventDecoder.MAGIC);
            encoder.formatDescription(buf, 0);
            encoder.tableMap(buf, buf.writerIndex(), reshaper.tableMap(item.event()), 42, "shop", "orders");
            encoder.rows(buf, buf.writerIndex(), reshaper.rows(item.event()), 42);
            BinlogEventDecoder decoder = new BinlogEventDecoder("global", ByteBufUtil.getBytes(buf));
            decoder.next();
            TableMapEvent map = decoder.next().body(TableMapEvent.class);
            assertThat(map.columnTypes()).isEqualTo(reshaper.targetMap().columnTypes());
            assertThat(map.metadata()).isEqualTo(reshaper.targetMap().metadata());
            assertThat(map.nullable()).isEqualTo(reshaper.targetMap().nullable());
            assertThat(map.optional().columnNames()).as("the COLUMN_NAME field").isEqualTo(names);
            assertThat(map.database() + "." + map.table()).isEqualTo("shop.orders");
            BinlogEvent rows = decoder.next();
            List<RowChange> got = decode(rows, map);
            assertThat(got).hasSameSizeAs(decode(item.event(), item.map()));
            assertThat(got.get(0).after().get(map.columnCount() - 1)).isEqualTo(7L);
            io.tributary.core.event.RowsEvent r = reshaper.rows(item.event()).body(io.tributary.core.event.RowsEvent.class);
            assertThat(rows.body()).as("%s: the row images as reshaped", flavor).isEqualTo(new io.tributary.core.event
                    .RowsEvent(42, r.flags(), r.extraData(), r.columnCount(), r.columnsPresent(), r.columnsPresentAfter(),
                    r.buffer(), r.rowsOffset(), r.rowsLength()));
        }
    }

    /**
     * A CURRENT_TIMESTAMP column gets the time the rows event is given: as a TIMESTAMP (seconds since the epoch) and as
     * a DATETIME in the given zone, truncated to the expression's digits, in every image.
     */
    @Test
    void shouldGiveARowTimeColumnTheRowsTimeTruncatedToItsDigits() throws IOException {
        CorpusRowsEvents.Item item = null;
        for (Path file : corpusFiles()) {
            for (CorpusRowsEvents.Item i : CorpusRowsEvents.read(file).rowsEvents()) {
                if (convertible(i) && i.layout() == RowsImageLayout.UPDATE) {
                    item = i;
                    break;
                }
            }
            if (item != null) {
                break;
            }
        }
        Assumptions.assumeTrue(item != null);
        java.time.ZoneId kolkata = java.time.ZoneId.of("Asia/Kolkata");
        RowsReshaper reshaper = new RowsReshaper(item.map(), List.of(
                new RowsReshaper.TargetColumn(new RowsReshaper.Copy(0), item.map().columnTypes().get(0),
                        item.map().metadata().get(0), true),
                new RowsReshaper.TargetColumn(new RowsReshaper.RowTime(null, 6, null, false), ColumnType.TIMESTAMP2, 6,
                        false),
                new RowsReshaper.TargetColumn(new RowsReshaper.RowTime(kolkata, 3, null, false), ColumnType.DATETIME2, 4,
                        true),
                new RowsReshaper.TargetColumn(new RowsReshaper.RowTime(null, 0, new RowsReshaper.Constant(null), true),
                        ColumnType.TIMESTAMP2, 0, true)));
        long micros = 1_700_000_000_123_456L;
        List<RowChange> got = decode(reshaper.rows(item.event(), micros), reshaper.targetMap());
        assertThat(got).isNotEmpty();
        for (RowChange change : got) {
            for (Row row : java.util.Arrays.asList(change.before(), change.after())) {
                assertThat(row.get(1)).isEqualTo(java.time.Instant.ofEpochSecond(1_700_000_000L, 123_456_000L));
                // 2023-11-14 22:13:20 UTC is 2023-11-15 03:43:20 in Kolkata (+05:30); .123456 to 3 digits, in 4
                assertThat(row.get(2)).isEqualTo(new MysqlDateTime(2023, 11, 15, 3, 43, 20, 123_000));
            }
            assertThat(change.before().get(3)).as("DEFAULT NULL ON UPDATE: NULL before").isNull();
            assertThat(change.after().get(3)).as("the row's time in the update").isEqualTo(
                    java.time.Instant.ofEpochSecond(1_700_000_000L));
        }
        TableMapEvent map = item.map();
        assertThatThrownBy(() -> new RowsReshaper(map, List.of(new RowsReshaper.TargetColumn(
                new RowsReshaper.RowTime(null, 0, null, false), ColumnType.DATETIME2, 0, true))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without a time zone");
    }

    @Test
    void shouldRefuseANarrowingAsAWidening() throws IOException {
        TableMapEvent map = new TableMapEvent(1, 1, "d", "t", List.of(ColumnType.LONGLONG, ColumnType.VARCHAR),
                List.of(0, 40), new java.util.BitSet(), TableMapOptionalMetadata.EMPTY);
        assertThatThrownBy(() -> new RowsReshaper(map, List.of(new RowsReshaper.TargetColumn(new RowsReshaper.Widen(0, true),
                ColumnType.LONG, 0, false)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot widen LONGLONG(metadata 0) to LONG(metadata 0)");
        assertThatThrownBy(() -> new RowsReshaper(map, List.of(new RowsReshaper.TargetColumn(new RowsReshaper.Widen(1, true),
                ColumnType.VARCHAR, 20, false)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot widen VARCHAR(metadata 40) to VARCHAR(metadata 20)");
    }
}
