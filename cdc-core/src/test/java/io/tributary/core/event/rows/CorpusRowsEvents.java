package io.tributary.core.event.rows;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogFormatException;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * The rows events of one corpus file, read with {@link BinlogEventDecoder} (checksums verified, payloads
 * and MariaDB compressed events expanded), each paired with the last TABLE_MAP of its table id.
 *
 * <p>A file whose last event is torn (the corpus has such files, listed with their offsets in
 * {@code SOURCES.md} and checked by {@code BinlogCorpusTest}) yields the events before the tear;
 * {@code tornTailOffset} says where it is. Any other format error fails.
 *
 * @param rowsEvents     rows events with a decodable layout and a preceding TABLE_MAP
 * @param skipped        rows events left out, with the reason (pre-GA 5.1 row events, no TABLE_MAP)
 * @param tornTailOffset offset of an incomplete last event, or null
 */
record CorpusRowsEvents(String file, List<Item> rowsEvents, List<String> skipped, Long tornTailOffset) {

    /** One rows event and the TABLE_MAP it refers to. */
    record Item(String file, BinlogEvent event, TableMapEvent map, TableColumns table) {
        RowsEvent rows() {
            return event.body(RowsEvent.class);
        }

        RowsImageLayout layout() {
            return RowsEventDecoder.layoutOf(event.type());
        }

        EventType type() {
            return event.type();
        }

        long offset() {
            return event.offset();
        }
    }

    static byte[] readBinlog(Path file) throws IOException {
        if (file.toString().endsWith(".gz")) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
                return in.readAllBytes();
            }
        }
        return Files.readAllBytes(file);
    }

    static CorpusRowsEvents read(Path file) throws IOException {
        return of(file.getFileName().toString(), readBinlog(file));
    }

    static CorpusRowsEvents of(String fileName, byte[] data) {
        List<Item> items = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        Map<Long, TableMapEvent> maps = new HashMap<>();
        Map<TableMapEvent, TableColumns> columns = new IdentityHashMap<>();
        BinlogEventDecoder decoder = new BinlogEventDecoder(fileName, data);
        Long tornTail = null;
        while (true) {
            BinlogEvent e;
            try {
                if (!decoder.hasNext()) {
                    break;
                }
                e = decoder.next();
            } catch (BinlogFormatException f) {
                if (!f.problem().startsWith("truncated event header") && !f.problem().startsWith("length past the end")) {
                    throw f;
                }
                tornTail = f.offset();
                break;
            }
            if (e.body() instanceof TableMapEvent map) {
                maps.put(map.tableId(), map);
            } else if (e.type() != null && e.type().isRows()) {
                RowsEvent rows = e.body(RowsEvent.class);
                TableMapEvent map = maps.get(rows.tableId());
                if (RowsEventDecoder.layoutOf(e.type()) == null) {
                    skipped.add(fileName + "@" + e.offset() + ": " + e.type() + " is not decoded");
                } else if (map == null) {
                    skipped.add(fileName + "@" + e.offset() + ": rows event for unmapped table id " + rows.tableId());
                } else {
                    items.add(new Item(fileName, e, map, columns.computeIfAbsent(map, TableColumns::of)));
                }
            }
        }
        return new CorpusRowsEvents(fileName, List.copyOf(items), List.copyOf(skipped), tornTail);
    }
}
