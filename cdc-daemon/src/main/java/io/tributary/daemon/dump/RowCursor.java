package io.tributary.daemon.dump;

import java.sql.SQLException;

/**
 * One shard's stream of rows for a {@code SELECT} over a logical table (one physical table's result set), read
 * forward once. A row is an array of values, {@code null} for SQL NULL. One thread.
 */
interface RowCursor {

    /** The next row, or null at the end. */
    byte[][] next() throws SQLException;

    /** Where the rows come from, for errors: {@code shard s1 (shop_01.orders_0002)}. */
    String source();
}
