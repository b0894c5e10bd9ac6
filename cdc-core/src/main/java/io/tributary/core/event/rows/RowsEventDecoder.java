package io.tributary.core.event.rows;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.EventType;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes the rows events of one binlog stream, as {@link io.tributary.core.event.BinlogEventDecoder} yields
 * them, into {@link RowChange}s of typed column values: the glue between the event codec and
 * {@link RowImageDecoder}.
 *
 * <p>Accepted: WRITE/UPDATE/DELETE_ROWS v1 (23-25) and v2 (30-32), PARTIAL_UPDATE_ROWS (39) and MariaDB's
 * compressed rows events once the event decoder has expanded them ({@code DecoderOptions.expand()}, the
 * default; they then carry the plain type code). The event's body must have been decoded (not the
 * headers-only relay mode). Refused with a {@link RowDecodeException}: compressed events left compressed,
 * the pre-GA 5.1 row events (20-22, whose images predate the v1 format), a rows event whose table id or
 * column count does not match its TABLE_MAP.
 *
 * <p>Two ways to use it: {@link #decode(BinlogEvent, TableMapEvent)} when the caller keeps the table maps,
 * or {@link #remember(TableMapEvent)} for each TABLE_MAP and {@link #decode(BinlogEvent)} for each rows
 * event, which looks the map up by table id. Like the server, the remembered maps are forgotten after the
 * rows event that ends a statement ({@code STMT_END_F}), since every statement maps its tables again; this
 * bounds the memory to one statement's tables.
 *
 * <p>Every error names the source, the event's offset (and inner offset for events expanded from a
 * TRANSACTION_PAYLOAD), the event type and the table, then what the row image decoder found, e.g.
 * {@code "mysql-bin.000003 at offset 4711 [UPDATE_ROWS_V2(31) event]: table shop.orders column `note`
 * (VARCHAR, metadata 200) at offset 12: VARCHAR value claims 300 bytes at offset 13, 20 left"}.
 *
 * <p>Not thread-safe: one instance belongs to the thread that reads the stream. Results share no state
 * with it.
 */
public final class RowsEventDecoder {

    private final String sourceName;
    private final RowImageDecoder images = new RowImageDecoder();
    private final Map<Long, TableMapEvent> tableMaps = new HashMap<>();
    private TableMapEvent lastMap;
    private TableColumns lastColumns;

    /**
     * @param sourceName named in every error (file name, or shard and file), as for the event decoder
     */
    public RowsEventDecoder(String sourceName) {
        this.sourceName = sourceName;
    }

    public String sourceName() {
        return sourceName;
    }

    /** How the row images of a rows event type follow each other, or {@code null} for other types. */
    public static RowsImageLayout layoutOf(EventType type) {
        if (type == null) {
            return null;
        }
        return switch (type) {
            case WRITE_ROWS_V1, WRITE_ROWS_V2 -> RowsImageLayout.WRITE;
            case UPDATE_ROWS_V1, UPDATE_ROWS_V2 -> RowsImageLayout.UPDATE;
            case DELETE_ROWS_V1, DELETE_ROWS_V2 -> RowsImageLayout.DELETE;
            case PARTIAL_UPDATE_ROWS -> RowsImageLayout.PARTIAL_UPDATE;
            default -> null;
        };
    }

    /** Keeps a TABLE_MAP for the rows events that follow it; a later map with the same id replaces it. */
    public void remember(TableMapEvent tableMap) {
        tableMaps.put(tableMap.tableId(), tableMap);
    }

    /** The remembered TABLE_MAP for a table id, or {@code null}. */
    public TableMapEvent tableMap(long tableId) {
        return tableMaps.get(tableId);
    }

    /**
     * Decodes a rows event against the remembered TABLE_MAP of its table id; forgets all remembered maps
     * when the event ends its statement.
     *
     * @throws RowDecodeException when no TABLE_MAP with the event's table id was remembered, or as
     *                            {@link #decode(BinlogEvent, TableMapEvent)}
     */
    public List<RowChange> decode(BinlogEvent event) {
        RowsEvent rows = rowsBody(event);
        TableMapEvent map = tableMaps.get(rows.tableId());
        if (map == null) {
            throw fail(event, "no TABLE_MAP for table id " + rows.tableId() + " precedes this rows event in the"
                    + " statement (remembered ids: " + tableMaps.keySet() + ")", null);
        }
        List<RowChange> changes = decode(event, rows, map);
        if (rows.isStatementEnd()) {
            tableMaps.clear();
        }
        return changes;
    }

    /**
     * Decodes every row of a rows event against its table's TABLE_MAP.
     *
     * @param event    a rows event with its body decoded
     * @param tableMap the TABLE_MAP with the event's table id
     * @return one change per row, in the event's order: INSERT after image, DELETE before image, UPDATE both
     * @throws RowDecodeException naming source, offset, event type and table when the event is not a
     *                            decodable rows event, does not match the map, or its images are malformed
     */
    public List<RowChange> decode(BinlogEvent event, TableMapEvent tableMap) {
        return decode(event, rowsBody(event), tableMap);
    }

    /** The columns of a TABLE_MAP, built once for the map last used. */
    public TableColumns columns(TableMapEvent tableMap) {
        if (tableMap != lastMap) {
            lastColumns = TableColumns.of(tableMap);
            lastMap = tableMap;
        }
        return lastColumns;
    }

    private List<RowChange> decode(BinlogEvent event, RowsEvent rows, TableMapEvent map) {
        String table = map.database() + "." + map.table();
        if (rows.tableId() != map.tableId()) {
            throw fail(event, "table id " + rows.tableId() + " does not match the TABLE_MAP given, which maps id "
                    + map.tableId() + " to " + table, null);
        }
        if (rows.columnCount() > map.columnCount()) {
            throw fail(event, "table " + table + ": the rows event has " + rows.columnCount()
                    + " columns, its TABLE_MAP only " + map.columnCount(), null);
        }
        try {
            return images.decodeRows(columns(map), layoutOf(event.type()), rows.columnsPresent(),
                    rows.columnsPresentAfter(), rows.buffer(), rows.rowsOffset(), rows.rowsLength());
        } catch (RowDecodeException e) {
            throw fail(event, e.getMessage(), e);
        }
    }

    private RowsEvent rowsBody(BinlogEvent event) {
        EventType type = event.type();
        if (layoutOf(type) == null) {
            String why = type != null && type.isMariaCompressed()
                    ? "a compressed rows event: read the stream with DecoderOptions.expand() to decode its rows"
                    : type != null && type.isRows()
                    ? "a pre-GA 5.1 rows event, whose row images predate the v1 format: not decoded"
                    : "not a rows event";
            throw fail(event, why, null);
        }
        if (!(event.body() instanceof RowsEvent rows)) {
            throw fail(event, "the event body was not decoded (headers-only mode): decode bodies to get rows", null);
        }
        return rows;
    }

    private RowDecodeException fail(BinlogEvent event, String problem, Throwable cause) {
        return new RowDecodeException(sourceName + " at offset " + event.offset()
                + (event.isFromPayload() ? " (inner offset " + event.innerOffset() + ")" : "")
                + " [" + EventType.nameOf(event.header().typeCode()) + " event]: " + problem, cause);
    }
}
