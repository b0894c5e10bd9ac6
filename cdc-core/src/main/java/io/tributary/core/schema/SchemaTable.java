package io.tributary.core.schema;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A logical table as the logical schema holds it: columns, indexes and table options. Immutable.
 *
 * @param name      database and table
 * @param columns   in order
 * @param indexes   in the order a server lists them (primary key, unique keys, other keys, full-text)
 * @param engine    the storage engine ({@code InnoDB})
 * @param charset   the table's default character set
 * @param collation the table's default collation
 * @param comment   the table comment (unquoted), or null
 * @param options   other table options as a server prints them ({@code ROW_FORMAT=DYNAMIC}), in order
 */
public record SchemaTable(TableName name, List<SchemaColumn> columns, List<SchemaIndex> indexes, String engine,
        String charset, String collation, String comment, List<String> options) {

    public SchemaTable {
        Objects.requireNonNull(name, "name");
        columns = List.copyOf(columns);
        indexes = List.copyOf(indexes);
        options = List.copyOf(options);
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(charset, "charset");
        Objects.requireNonNull(collation, "collation");
    }

    public Optional<SchemaColumn> column(String column) {
        return columns.stream().filter(c -> c.name().equalsIgnoreCase(column)).findFirst();
    }

    public Optional<SchemaIndex> primaryKey() {
        return indexes.stream().filter(i -> i.kind() == SchemaIndex.Kind.PRIMARY).findFirst();
    }

    public SchemaTable withName(TableName n) {
        return new SchemaTable(n, columns, indexes, engine, charset, collation, comment, options);
    }
}
