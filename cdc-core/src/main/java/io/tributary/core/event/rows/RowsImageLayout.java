package io.tributary.core.event.rows;

/**
 * How the row images of a rows event body follow each other.
 *
 * <ul>
 *   <li>{@link #WRITE}: one after image per row (WRITE_ROWS v0/v1/v2)</li>
 *   <li>{@link #DELETE}: one before image per row (DELETE_ROWS)</li>
 *   <li>{@link #UPDATE}: before image then after image per row (UPDATE_ROWS)</li>
 *   <li>{@link #PARTIAL_UPDATE}: as UPDATE, and each after image starts with {@code value_options}
 *       (length-encoded integer); when its bit 0 (PARTIAL_JSON_UPDATES) is set, a bitmap with one bit per
 *       JSON column of the table follows, and flagged JSON columns hold a JSON diff vector instead of a
 *       value (PARTIAL_UPDATE_ROWS, MySQL 8.0+)</li>
 * </ul>
 */
public enum RowsImageLayout {
    WRITE, DELETE, UPDATE, PARTIAL_UPDATE
}
