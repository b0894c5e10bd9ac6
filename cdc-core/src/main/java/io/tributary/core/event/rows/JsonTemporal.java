package io.tributary.core.event.rows;

/**
 * A DATE, TIME, DATETIME or TIMESTAMP stored inside a binary JSON document (an opaque value holding the
 * packed 8-byte form). MySQL prints it as a JSON string: {@code "2015-01-15"},
 * {@code "23:24:25.000000"}, {@code "2015-01-15 23:24:25.000000"}.
 *
 * @param fieldType the MySQL column type code (10 DATE, 11 TIME, 12 DATETIME, 7 TIMESTAMP)
 * @param text      the value as MySQL prints it, without quotes
 */
public record JsonTemporal(int fieldType, String text) {
    @Override
    public String toString() {
        return text;
    }
}
