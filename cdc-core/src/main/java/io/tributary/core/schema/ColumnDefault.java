package io.tributary.core.schema;

import java.util.Objects;

/**
 * A column's {@code DEFAULT}: {@code NULL}, a literal value (kept unquoted: {@code 5}, {@code x}, {@code 1.50}) or
 * an expression ({@code current_timestamp(3)}, kept in MariaDB's lower-case spelling and rendered per flavor).
 */
public record ColumnDefault(Kind kind, String text) {

    /** What the default is. */
    public enum Kind {
        NULL, LITERAL, EXPRESSION
    }

    public static final ColumnDefault NULL = new ColumnDefault(Kind.NULL, "NULL");

    public ColumnDefault {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(text, "text");
    }

    public static ColumnDefault literal(String value) {
        return new ColumnDefault(Kind.LITERAL, value);
    }

    public static ColumnDefault expression(String sql) {
        return new ColumnDefault(Kind.EXPRESSION, sql);
    }
}
