package io.tributary.core.event.rows;

/**
 * One logical JSON diff of a PARTIAL_UPDATE_ROWS after image ({@code Json_diff} in MySQL's
 * {@code sql/json_diff.h}).
 *
 * @param operation what to do at {@code path}
 * @param path      a MySQL JSON path with member and array-cell legs only, e.g. {@code $.a[2]."b c"}
 * @param value     the new value for REPLACE/INSERT; {@code null} for REMOVE
 */
public record JsonDiff(Operation operation, String path, JsonDocument value) {

    /** {@code enum_json_diff_operation}: the wire code is the ordinal. */
    public enum Operation {
        REPLACE, INSERT, REMOVE
    }
}
