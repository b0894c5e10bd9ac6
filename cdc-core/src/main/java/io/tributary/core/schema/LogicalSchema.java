package io.tributary.core.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Every logical database and table the global binlog has, at one global position: what {@code SHOW DATABASES},
 * {@code SHOW CREATE TABLE} and {@code information_schema} answer on the dump port. Built from the shards at the
 * daemon's first start and moved by each DDL statement written ({@link SchemaDdl}); one value per global position
 * (immutable, so versions share their tables).
 *
 * @param charset   the server default character set (of a {@code CREATE DATABASE} without one)
 * @param collation the server default collation
 * @param databases by name
 * @param tables    by database and table name
 */
public record LogicalSchema(String charset, String collation, NavigableMap<String, SchemaDatabase> databases,
        NavigableMap<TableName, SchemaTable> tables) {

    /** System schemas a server has that are not part of the logical schema (nor the daemon's own). */
    public static final List<String> SYSTEM_DATABASES = List.of("information_schema", "mysql", "performance_schema",
            "sys", "__cdc__");

    public LogicalSchema {
        Objects.requireNonNull(charset, "charset");
        Objects.requireNonNull(collation, "collation");
        databases = Collections.unmodifiableNavigableMap(new TreeMap<>(databases));
        tables = Collections.unmodifiableNavigableMap(new TreeMap<>(tables));
    }

    /** Nothing known yet, with the server defaults. */
    public static LogicalSchema empty(String charset, String collation) {
        return new LogicalSchema(charset, collation, new TreeMap<>(), new TreeMap<>());
    }

    public Optional<SchemaDatabase> database(String name) {
        return Optional.ofNullable(databases.get(name));
    }

    public Optional<SchemaTable> table(TableName name) {
        return Optional.ofNullable(tables.get(name));
    }

    /** The tables of one database, by name. */
    public List<SchemaTable> tablesOf(String database) {
        return new ArrayList<>(tables.subMap(new TableName(database, ""), true, new TableName(database + "\0", ""), false)
                .values());
    }

    public LogicalSchema withDatabase(SchemaDatabase db) {
        TreeMap<String, SchemaDatabase> d = new TreeMap<>(databases);
        d.put(db.name(), db);
        return new LogicalSchema(charset, collation, d, tables);
    }

    /** Without the database and its tables. */
    public LogicalSchema withoutDatabase(String name) {
        TreeMap<String, SchemaDatabase> d = new TreeMap<>(databases);
        d.remove(name);
        TreeMap<TableName, SchemaTable> t = new TreeMap<>(tables);
        t.keySet().removeIf(k -> k.database().equals(name));
        return new LogicalSchema(charset, collation, d, t);
    }

    /** With the table (replacing one of the same name); its database is created with the server defaults if absent. */
    public LogicalSchema withTable(SchemaTable table) {
        TreeMap<TableName, SchemaTable> t = new TreeMap<>(tables);
        t.put(table.name(), table);
        TreeMap<String, SchemaDatabase> d = new TreeMap<>(databases);
        d.putIfAbsent(table.name().database(), new SchemaDatabase(table.name().database(), charset, collation));
        return new LogicalSchema(charset, collation, d, t);
    }

    public LogicalSchema withoutTable(TableName name) {
        TreeMap<TableName, SchemaTable> t = new TreeMap<>(tables);
        t.remove(name);
        return new LogicalSchema(charset, collation, databases, t);
    }

    @Override
    public String toString() {
        return "LogicalSchema[" + databases.size() + " databases, " + tables.size() + " tables]";
    }

    /** Equality of content, for tests and checks. */
    public boolean sameAs(LogicalSchema o) {
        return Map.copyOf(databases).equals(Map.copyOf(o.databases)) && Map.copyOf(tables).equals(Map.copyOf(o.tables));
    }
}
