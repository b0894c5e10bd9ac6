package io.tributary.core.event.rows;

/**
 * An ENUM value: the 1-based index as stored (0 is the empty "error" value) and its name when the TABLE_MAP
 * optional metadata carried the value list.
 *
 * @param name {@code null} when names are unknown or the index is out of the list
 */
public record MysqlEnum(int index, String name) {
    @Override
    public String toString() {
        return name != null ? name : Integer.toString(index);
    }
}
