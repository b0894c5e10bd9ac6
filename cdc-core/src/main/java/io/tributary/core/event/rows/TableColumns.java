package io.tributary.core.event.rows;

import io.tributary.core.event.ColumnType;
import java.util.List;

/**
 * The ordered columns of one table as its TABLE_MAP event describes them, with the table's name for
 * messages.
 *
 * @param tableName {@code db.table} (or any label), used in error messages; never null
 */
public record TableColumns(String tableName, List<ColumnDefinition> columns) {

    public TableColumns {
        tableName = tableName == null ? "<unknown table>" : tableName;
        columns = List.copyOf(columns);
    }

    public int size() {
        return columns.size();
    }

    public ColumnDefinition get(int index) {
        return columns.get(index);
    }

    /** Number of JSON columns: the width of the partial-JSON bitmap of PARTIAL_UPDATE_ROWS after images. */
    public int jsonColumnCount() {
        int n = 0;
        for (ColumnDefinition c : columns) {
            if (c.type() == ColumnType.JSON) {
                n++;
            }
        }
        return n;
    }
}
