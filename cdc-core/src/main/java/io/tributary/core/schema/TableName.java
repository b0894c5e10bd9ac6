package io.tributary.core.schema;

import java.util.Objects;

/** A logical table's name in the logical schema: {@code shop.orders}. Case-sensitive, as on a Linux server. */
public record TableName(String database, String table) implements Comparable<TableName> {
    public TableName {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(table, "table");
    }

    @Override
    public int compareTo(TableName o) {
        int c = database.compareTo(o.database);
        return c != 0 ? c : table.compareTo(o.table);
    }

    @Override
    public String toString() {
        return database + "." + table;
    }
}
