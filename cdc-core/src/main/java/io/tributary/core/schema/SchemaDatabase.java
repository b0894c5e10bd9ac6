package io.tributary.core.schema;

import java.util.Objects;

/**
 * A logical database: its name and defaults (what {@code SHOW CREATE DATABASE} prints).
 *
 * @param name      the logical name
 * @param charset   default character set of its tables
 * @param collation default collation of its tables
 */
public record SchemaDatabase(String name, String charset, String collation) {
    public SchemaDatabase {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(charset, "charset");
        Objects.requireNonNull(collation, "collation");
    }
}
