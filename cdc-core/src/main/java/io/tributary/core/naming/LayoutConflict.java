package io.tributary.core.naming;

/**
 * Physical tables of one logical table whose current column layouts differ: they are NOT merged. Each
 * layout keeps its own global table id, so rows still decode, and this report names both sides so the
 * daemon can surface it (log a warning, health detail, metric).
 *
 * @param table        the logical table
 * @param firstSource  shard and physical table with {@code firstLayout}, e.g. {@code shard-0 shop_00.orders_0000}
 * @param firstTableId the global table id of that layout
 * @param firstLayout  the layout it had when {@code source} was seen
 * @param source       shard and physical table with the differing layout
 * @param tableId      the global table id it was given instead
 * @param layout       the differing layout
 */
public record LayoutConflict(LogicalTable table, String firstSource, long firstTableId, ColumnLayout firstLayout,
        String source, long tableId, ColumnLayout layout) {

    /** A message for logs and health details. */
    public String message() {
        return "logical table " + table + ": " + source + " has columns " + layout + " but " + firstSource
                + " has " + firstLayout + "; not merged: kept as table id " + tableId + " beside table id " + firstTableId;
    }

    @Override
    public String toString() {
        return "LayoutConflict[" + message() + "]";
    }
}
