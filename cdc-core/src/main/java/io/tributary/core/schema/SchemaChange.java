package io.tributary.core.schema;

import java.util.Objects;
import java.util.Set;

/**
 * What one DDL statement written to the global binlog did to the logical schema: the statement, the schema after
 * it, and the tables and databases it created, changed or dropped. It travels with its global transaction
 * ({@code GlobalTransaction#schemaChange()}) to the writer, which stores it in the schema history before the
 * checkpoint that covers the transaction.
 *
 * @param database  the statement's default database (logical), or empty
 * @param sql       the statement as written (logical names)
 * @param after     the schema after it
 * @param tables    tables created, altered, renamed (both names) or dropped
 * @param databases databases created, altered or dropped
 */
public record SchemaChange(String database, String sql, LogicalSchema after, Set<TableName> tables, Set<String> databases) {
    public SchemaChange {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(after, "after");
        tables = Set.copyOf(tables);
        databases = Set.copyOf(databases);
    }
}
