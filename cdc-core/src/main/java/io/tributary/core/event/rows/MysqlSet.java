package io.tributary.core.event.rows;

import java.util.List;

/**
 * A SET value: the bitmask as stored (bit 0 = first member) and the member names when the TABLE_MAP
 * optional metadata carried the value list.
 *
 * @param names {@code null} when names are unknown, else the names of the set bits in member order
 */
public record MysqlSet(long bits, List<String> names) {
    public MysqlSet {
        names = names == null ? null : List.copyOf(names);
    }

    @Override
    public String toString() {
        return names != null ? String.join(",", names) : "0x" + Long.toHexString(bits);
    }
}
