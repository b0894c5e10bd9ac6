package io.tributary.core.event.rows;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;

/**
 * One decoded row image: a value per table column, for the columns the image holds.
 *
 * <p>{@link #get(int)} returns {@code null} both for SQL NULL and for a column the image does not hold;
 * {@link #isPresent(int)} tells them apart. Value types are listed on {@link RowImageDecoder}. Immutable;
 * byte[] values are shared, callers must not change them.
 */
public final class Row {
    private final TableColumns table;
    private final BitSet present;
    private final Object[] values;

    Row(TableColumns table, BitSet present, Object[] values) {
        this.table = table;
        this.present = (BitSet) present.clone();
        this.values = values;
    }

    public TableColumns table() {
        return table;
    }

    /** Number of columns of the table (not only the present ones). */
    public int columnCount() {
        return values.length;
    }

    /** Whether the image holds column {@code index} (0-based). */
    public boolean isPresent(int index) {
        return present.get(index);
    }

    /** Whether the image holds column {@code index} and it is SQL NULL. */
    public boolean isNull(int index) {
        return present.get(index) && values[index] == null;
    }

    /** The value of column {@code index} (0-based); {@code null} for SQL NULL or an absent column. */
    public Object get(int index) {
        return values[index];
    }

    /** All values in column order ({@code null} for SQL NULL and absent columns). */
    public List<Object> values() {
        return Collections.unmodifiableList(new ArrayList<>(java.util.Arrays.asList(values)));
    }

    /**
     * The image as {@code mariadb-binlog --verbose} prints it: one line {@code ###   @N=value} per present
     * column, joined by {@code \n}, no trailing newline. Raw bytes of strings are kept (decoded as UTF-8
     * for this String; use {@link #toVerboseBytes()} for exact bytes).
     */
    public String toVerboseString() {
        return new String(toVerboseBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** {@link #toVerboseString()} as the exact bytes {@code mariadb-binlog} writes. */
    public byte[] toVerboseBytes() {
        return VerboseFormat.render(this);
    }

    /** Equal when the table name, the present columns and every value (arrays by content) are equal. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Row other && other.table.tableName().equals(table.tableName())
                && other.present.equals(present) && java.util.Arrays.deepEquals(other.values, values);
    }

    @Override
    public int hashCode() {
        return 31 * present.hashCode() + java.util.Arrays.deepHashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(table.tableName()).append('{');
        boolean first = true;
        for (int i = 0; i < values.length; i++) {
            if (!present.get(i)) {
                continue;
            }
            if (!first) {
                sb.append(", ");
            }
            first = false;
            sb.append(table.get(i).label(i)).append('=');
            Object v = values[i];
            sb.append(v instanceof byte[] bytes ? "0x" + java.util.HexFormat.of().formatHex(bytes) : String.valueOf(v));
        }
        return sb.append('}').toString();
    }
}
