package io.tributary.core.event;

/**
 * The statement behind the following row events: MySQL ROWS_QUERY (29, body {@code length(1) query},
 * where the length byte is truncated and ignored) and MariaDB ANNOTATE_ROWS (160, body = the query).
 *
 * @param query the original SQL text
 */
public record RowsQueryEvent(String query) implements EventBody {

    static RowsQueryEvent readRowsQuery(EventReader r) {
        r.skip(1, "rows query length");
        return new RowsQueryEvent(r.rest());
    }

    static RowsQueryEvent readAnnotateRows(EventReader r) {
        return new RowsQueryEvent(r.rest());
    }
}
