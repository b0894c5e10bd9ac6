package io.tributary.core.event.rows;

import io.tributary.core.event.ColumnType;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.event.TableMapOptionalMetadata;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The ordered columns of one table as its TABLE_MAP event describes them, with the table's name for
 * messages. {@link #of(TableMapEvent)} builds it from a decoded {@link TableMapEvent}.
 *
 * @param tableName {@code db.table} (or any label), used in error messages; never null
 */
public record TableColumns(String tableName, List<ColumnDefinition> columns) {

    public TableColumns {
        tableName = tableName == null ? "<unknown table>" : tableName;
        columns = List.copyOf(columns);
    }

    /**
     * The columns a TABLE_MAP event describes: type and metadata as written (the metadata ints follow the
     * same convention, see {@link ColumnDefinition}), and from the optional metadata when the server wrote
     * it ({@code binlog_row_metadata=FULL}): UNSIGNED from SIGNEDNESS, the collation of character columns
     * (DEFAULT_CHARSET / COLUMN_CHARSET) and of ENUM/SET columns (ENUM_AND_SET_*_CHARSET), column names and
     * ENUM/SET member names. ENUM and SET columns written as STRING are recognized by
     * {@link TableMapEvent#realType(int)}. Without optional metadata columns are signed, their collation
     * unknown (strings stay bytes) and unnamed. The table name is {@code database.table}.
     */
    public static TableColumns of(TableMapEvent map) {
        TableMapOptionalMetadata optional = map.optional();
        BitSet unsigned = optional.unsignedColumns();
        List<String> names = optional.columnNames();
        List<ColumnDefinition> columns = new ArrayList<>(map.columnCount());
        for (int i = 0; i < map.columnCount(); i++) {
            ColumnType real = map.realType(i);
            boolean enumOrSet = real == ColumnType.ENUM || real == ColumnType.SET;
            Integer charset = enumOrSet ? optional.enumSetColumnCharsets().get(i) : optional.columnCharsets().get(i);
            ColumnDefinition column = ColumnDefinition.of(map.columnTypes().get(i), map.metadata().get(i)).with(
                    unsigned != null && unsigned.get(i), charset == null ? ColumnDefinition.UNKNOWN_CHARSET : charset,
                    i < names.size() ? names.get(i) : null);
            if (enumOrSet) {
                column = column.withValues(optional.enumValues().get(i), optional.setValues().get(i));
            }
            columns.add(column);
        }
        return new TableColumns(map.database() + "." + map.table(), columns);
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
