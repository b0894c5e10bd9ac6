package io.tributary.core.schema;

import java.util.List;
import java.util.Objects;

/**
 * An index of a logical table.
 *
 * @param name    {@code PRIMARY} for the primary key
 * @param kind    what it is
 * @param columns its key parts, in order
 * @param comment its comment (unquoted), or null
 */
public record SchemaIndex(String name, Kind kind, List<Part> columns, String comment) {

    /** What an index is; the order is the order a server lists them in. */
    public enum Kind {
        PRIMARY, UNIQUE, KEY, FULLTEXT, SPATIAL
    }

    /**
     * A key part.
     *
     * @param column the column
     * @param length the prefix length, or null for the whole column
     */
    public record Part(String column, Integer length) {
        public Part {
            Objects.requireNonNull(column, "column");
        }
    }

    public static final String PRIMARY = "PRIMARY";

    public SchemaIndex {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        columns = List.copyOf(columns);
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("index " + name + " without columns");
        }
    }

    public boolean isUnique() {
        return kind == Kind.PRIMARY || kind == Kind.UNIQUE;
    }
}
