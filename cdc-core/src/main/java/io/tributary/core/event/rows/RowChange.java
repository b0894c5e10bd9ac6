package io.tributary.core.event.rows;

/**
 * One row of a rows event: INSERT has only {@code after}, DELETE only {@code before}, UPDATE both.
 */
public record RowChange(Row before, Row after) {
    @Override
    public String toString() {
        return before == null ? "INSERT " + after : after == null ? "DELETE " + before : "UPDATE " + before + " -> " + after;
    }
}
