package io.tributary.core.event.rows;

/** The JSON {@code null} literal inside a {@link JsonDocument} tree (distinct from SQL NULL). */
public enum JsonNull {
    INSTANCE;

    @Override
    public String toString() {
        return "null";
    }
}
