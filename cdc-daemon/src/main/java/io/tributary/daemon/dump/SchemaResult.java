package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.packet.ColumnDefinition;
import io.tributary.core.packet.TextResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A result set about the logical schema with the column metadata a server sends for it: each column's name and
 * original name in its {@code information_schema} table, type, length and flags as MariaDB 10.11 sends them
 * ({@code mariadb --column-type-info}); strings in {@code utf8mb3_general_ci} on MariaDB, {@code utf8mb4} on MySQL,
 * numbers binary. Immutable.
 *
 * @param schema  {@code information_schema}, or empty for computed columns ({@code SHOW CREATE TABLE})
 * @param table   the {@code information_schema} table the columns come from
 * @param columns the columns
 * @param rows    the rows, null for SQL NULL
 */
record SchemaResult(String schema, String table, List<Col> columns, List<List<String>> rows) {

    static final int VAR_STRING = 0xFD;
    static final int BLOB = 0xFC;
    static final int LONGLONG = 0x08;
    static final int LONG = 0x03;
    static final int DATETIME = 0x0C;
    static final int NOT_NULL = 1;
    static final int BLOB_FLAG = 16;
    static final int UNSIGNED = 32;
    static final int BINARY = 128;
    static final int NO_DEFAULT_VALUE = 4096;
    static final int NUM = 32768;
    private static final int UTF8MB3_GENERAL_CI = 33;
    private static final int UTF8MB4_0900_AI_CI = 255;
    private static final int BINARY_CHARSET = 63;

    /**
     * A column.
     *
     * @param name    as shown ({@code Tables_in_shop})
     * @param orgName its {@code information_schema} name ({@code TABLE_NAME}), or empty
     * @param type    the protocol type
     * @param length  the column length in bytes
     * @param flags   the column flags
     */
    record Col(String name, String orgName, int type, long length, int flags) {
        boolean isString() {
            return type == VAR_STRING || type == BLOB;
        }

        Col as(String shown) {
            return new Col(shown, orgName, type, length, flags);
        }
    }

    static Col str(String name, String orgName, long length, boolean notNull) {
        return new Col(name, orgName, VAR_STRING, length, (notNull ? NOT_NULL : 0) | NO_DEFAULT_VALUE);
    }

    static Col blob(String name, String orgName, long length, boolean notNull) {
        return new Col(name, orgName, BLOB, length, (notNull ? NOT_NULL : 0) | BLOB_FLAG | NO_DEFAULT_VALUE);
    }

    static Col num(String name, String orgName, long length, boolean notNull, boolean unsigned) {
        return new Col(name, orgName, LONGLONG, length, (notNull ? NOT_NULL : 0) | (unsigned ? UNSIGNED : 0)
                | NO_DEFAULT_VALUE | NUM);
    }

    static Col time(String name, String orgName) {
        return new Col(name, orgName, DATETIME, 19, BINARY | NO_DEFAULT_VALUE);
    }

    /** The wire form for the flavor. */
    TextResultSet toResultSet(BinlogFlavor flavor) {
        List<ColumnDefinition> defs = new ArrayList<>(columns.size());
        for (Col c : columns) {
            int charset = c.isString() ? (flavor.isMariaDb() ? UTF8MB3_GENERAL_CI : UTF8MB4_0900_AI_CI) : BINARY_CHARSET;
            long length = c.isString() && !flavor.isMariaDb() ? c.length() / 3 * 4 : c.length();
            defs.add(new ColumnDefinition("def", schema, table, table, c.name(), c.orgName(), charset, length, c.type(),
                    c.flags(), c.isString() && c.orgName().isEmpty() ? 39 : 0));
        }
        return new TextResultSet(defs, rows);
    }

    /** The rows as maps from column name (and original name) to value, for a {@code WHERE}. */
    List<Map<String, String>> rowMaps() {
        List<Map<String, String>> out = new ArrayList<>(rows.size());
        for (List<String> r : rows) {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                m.put(columns.get(i).name(), r.get(i));
                if (!columns.get(i).orgName().isEmpty()) {
                    m.putIfAbsent(columns.get(i).orgName(), r.get(i));
                }
            }
            out.add(m);
        }
        return out;
    }

    /** The rows that match. */
    SchemaResult filter(RowCondition condition) {
        if (condition == RowCondition.ALL) {
            return this;
        }
        List<List<String>> kept = new ArrayList<>();
        List<Map<String, String>> maps = rowMaps();
        for (int i = 0; i < rows.size(); i++) {
            if (condition.test(maps.get(i))) {
                kept.add(rows.get(i));
            }
        }
        return new SchemaResult(schema, table, columns, kept);
    }

    /** Only the first {@code n} columns. */
    SchemaResult firstColumns(int n) {
        List<List<String>> r = new ArrayList<>();
        for (List<String> row : rows) {
            r.add(row.subList(0, n));
        }
        return new SchemaResult(schema, table, columns.subList(0, n), r);
    }
}
