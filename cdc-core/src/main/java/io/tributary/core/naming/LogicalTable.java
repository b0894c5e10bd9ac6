package io.tributary.core.naming;

import java.util.Objects;

/** A logical table: what the shards' physical tables are called in the global binlog. */
public record LogicalTable(String database, String table) {
    public LogicalTable {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(table, "table");
    }

    @Override
    public String toString() {
        return database + "." + table;
    }
}
