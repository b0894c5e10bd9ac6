package io.tributary.core.naming;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogEventEncoder;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Real table maps and rows events from the binlog corpus, re-encoded as if they came from physical shard
 * tables ({@code shop_03.orders_0007}) with chosen table ids. Two source tables are picked: {@code a}
 * (with a rows event that follows it) and {@code b}, whose column layout differs from {@code a}'s.
 */
final class PhysicalTables {

    final BinlogEvent tableMapA;
    final BinlogEvent rowsA;
    final BinlogEvent tableMapB;

    private PhysicalTables(BinlogEvent tableMapA, BinlogEvent rowsA, BinlogEvent tableMapB) {
        this.tableMapA = tableMapA;
        this.rowsA = rowsA;
        this.tableMapB = tableMapB;
    }

    static PhysicalTables load() {
        String shared = System.getProperty("tributary.shared.dir");
        Path dir = shared == null ? null : Path.of(shared, "testdata", "binlog");
        assumeTrue(dir != null && Files.isDirectory(dir), "binlog corpus not found: system property tributary.shared.dir is "
                + shared + ", expected <shared>/testdata/binlog; tests using real table maps skipped");
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(Files::isRegularFile).filter(p -> !p.toString().contains("malformed"))
                    .filter(p -> !p.getFileName().toString().endsWith(".md") && !p.getFileName().toString().endsWith(".gz"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path f : files) {
            try {
                BinlogEventDecoder d = new BinlogEventDecoder(f.toString(), Files.readAllBytes(f), DecoderOptions.FULL);
                BinlogEvent map = null;
                BinlogEvent a = null;
                BinlogEvent rows = null;
                while (d.hasNext()) {
                    BinlogEvent e = d.next();
                    if (e.type() == EventType.TABLE_MAP) {
                        if (a != null && !ColumnLayout.of(e.body(TableMapEvent.class))
                                .equals(ColumnLayout.of(a.body(TableMapEvent.class)))) {
                            return new PhysicalTables(a, rows, e);
                        }
                        map = e;
                    } else if (a == null && map != null && (e.type() == EventType.WRITE_ROWS_V2
                            || e.type() == EventType.WRITE_ROWS_V1) && e.body(RowsEvent.class).tableId()
                            == map.body(TableMapEvent.class).tableId()) {
                        a = map;
                        rows = e;
                    }
                }
            } catch (RuntimeException | IOException e) {
                // A file the decoder refuses is some other test's subject; look at the next one.
            }
        }
        throw new IllegalStateException("no corpus file holds two table maps with different layouts");
    }

    /** The table map {@code source} as shard table {@code db.table} under physical id {@code tableId}. */
    static BinlogEvent renamed(BinlogEvent source, long tableId, String db, String table) {
        BinlogEventEncoder enc = new BinlogEventEncoder(BinlogFlavor.MYSQL, 1);
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(BinlogEventDecoder.MAGIC);
        long pos = 4 + enc.formatDescription(out, 0);
        enc.tableMap(out, pos, source, tableId, db, table);
        return decodeLast(out);
    }

    /** The rows event {@code source} referring to physical id {@code tableId}. */
    static BinlogEvent rows(BinlogEvent source, long tableId) {
        BinlogEventEncoder enc = new BinlogEventEncoder(BinlogFlavor.MYSQL, 1);
        ByteBuf out = Unpooled.buffer();
        out.writeBytes(BinlogEventDecoder.MAGIC);
        long pos = 4 + enc.formatDescription(out, 0);
        enc.rows(out, pos, source, tableId);
        return decodeLast(out);
    }

    private static BinlogEvent decodeLast(ByteBuf out) {
        byte[] b = new byte[out.readableBytes()];
        out.readBytes(b);
        List<BinlogEvent> events = new ArrayList<>();
        new BinlogEventDecoder("renamed", b, DecoderOptions.FULL).forEachRemaining(events::add);
        return events.get(events.size() - 1);
    }
}
