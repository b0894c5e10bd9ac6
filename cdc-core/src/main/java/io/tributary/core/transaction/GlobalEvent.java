package io.tributary.core.transaction;

import io.tributary.core.event.BinlogEvent;
import java.util.Objects;

/**
 * One event of a {@link GlobalTransaction}, as the merger hands it to the writer. Table maps and row
 * events carry their source event's bytes and what the merger decided about them (logical names, the
 * global table id); the writer makes header, {@code log_pos} and checksum anew at its own position with
 * {@link io.tributary.core.event.BinlogEventEncoder}, so nothing here depends on where it will be written.
 */
public sealed interface GlobalEvent {

    /** A source TABLE_MAP renamed to its logical table, under the global table id. */
    record TableMap(BinlogEvent source, long tableId, String database, String table) implements GlobalEvent {
        public TableMap {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(database, "database");
            Objects.requireNonNull(table, "table");
        }
    }

    /** A source rows event (v1 or v2, already expanded) under the global table id of its table map. */
    record Rows(BinlogEvent source, long tableId) implements GlobalEvent {
        public Rows {
            Objects.requireNonNull(source, "source");
        }
    }

    /**
     * A statement written as a QUERY event: DDL with logical names, written alone in its transaction.
     *
     * @param timestamp seconds since the epoch, for the event header
     */
    record Query(long timestamp, String database, String sql) implements GlobalEvent {
        public Query {
            Objects.requireNonNull(sql, "sql");
        }
    }
}
