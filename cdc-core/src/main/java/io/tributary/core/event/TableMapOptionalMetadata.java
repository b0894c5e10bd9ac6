package io.tributary.core.event;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The optional metadata at the end of a TABLE_MAP event ({@code binlog_row_metadata=MINIMAL|FULL}): a
 * sequence of {@code type(1) length(packed) value} fields ({@code Optional_metadata_field_type} in MySQL's
 * {@code rows_event.h}): 1 SIGNEDNESS, 2 DEFAULT_CHARSET, 3 COLUMN_CHARSET, 4 COLUMN_NAME, 5 SET_STR_VALUE,
 * 6 ENUM_STR_VALUE, 7 GEOMETRY_TYPE, 8 SIMPLE_PRIMARY_KEY, 9 PRIMARY_KEY_WITH_PREFIX,
 * 10 ENUM_AND_SET_DEFAULT_CHARSET, 11 ENUM_AND_SET_COLUMN_CHARSET, 12 COLUMN_VISIBILITY, and MySQL 9's
 * 13 VECTOR_DIMENSIONALITY.
 *
 * <p>Everything here is keyed by column index in the table map, although the wire format counts only the
 * numeric, character, enum/set or geometry columns per field. The servers disagree on two types: MariaDB
 * (10.5+, {@code Binlog_type_info}) counts YEAR among the numeric columns (its {@code Field_year} is a
 * {@code Field_tiny}) and GEOMETRY among the character columns (its {@code Field_geom} is a
 * {@code Field_blob} with the binary charset); MySQL ({@code is_numeric_type}, {@code is_character_type})
 * counts neither. Unknown field types are skipped by length and listed in {@code unknownFieldTypes}.
 *
 * @param unsignedColumns       numeric columns declared UNSIGNED (null when SIGNEDNESS is absent)
 * @param defaultCharset        DEFAULT_CHARSET's default collation, or null
 * @param columnCharsets        collation per character column (from DEFAULT_CHARSET or COLUMN_CHARSET)
 * @param columnNames           names of all columns, empty when absent
 * @param setValues             permitted values per SET column
 * @param enumValues            permitted values per ENUM column
 * @param geometryTypes         geometry subtype per GEOMETRY column
 * @param primaryKey            primary key columns with prefix lengths (0 = whole column)
 * @param enumSetDefaultCharset ENUM_AND_SET_DEFAULT_CHARSET's default collation, or null
 * @param enumSetColumnCharsets collation per ENUM/SET column
 * @param visibleColumns        visible columns (null when COLUMN_VISIBILITY is absent)
 * @param vectorDimensions      dimensions per VECTOR column
 * @param unknownFieldTypes     field type codes this decoder does not know
 */
public record TableMapOptionalMetadata(BitSet unsignedColumns, Integer defaultCharset, Map<Integer, Integer> columnCharsets,
        List<String> columnNames, Map<Integer, List<String>> setValues, Map<Integer, List<String>> enumValues,
        Map<Integer, Integer> geometryTypes, List<PrimaryKeyPart> primaryKey, Integer enumSetDefaultCharset,
        Map<Integer, Integer> enumSetColumnCharsets, BitSet visibleColumns, Map<Integer, Integer> vectorDimensions,
        List<Integer> unknownFieldTypes) {

    /** One primary key column; {@code prefixLength} 0 means the whole column. */
    public record PrimaryKeyPart(int column, int prefixLength) {
    }

    public TableMapOptionalMetadata {
        unsignedColumns = unsignedColumns == null ? null : (BitSet) unsignedColumns.clone();
        visibleColumns = visibleColumns == null ? null : (BitSet) visibleColumns.clone();
        columnCharsets = Map.copyOf(columnCharsets);
        columnNames = List.copyOf(columnNames);
        setValues = Map.copyOf(setValues);
        enumValues = Map.copyOf(enumValues);
        geometryTypes = Map.copyOf(geometryTypes);
        primaryKey = List.copyOf(primaryKey);
        enumSetColumnCharsets = Map.copyOf(enumSetColumnCharsets);
        vectorDimensions = Map.copyOf(vectorDimensions);
        unknownFieldTypes = List.copyOf(unknownFieldTypes);
    }

    @Override
    public BitSet unsignedColumns() {
        return unsignedColumns == null ? null : (BitSet) unsignedColumns.clone();
    }

    @Override
    public BitSet visibleColumns() {
        return visibleColumns == null ? null : (BitSet) visibleColumns.clone();
    }

    public boolean isEmpty() {
        return unsignedColumns == null && defaultCharset == null && columnCharsets.isEmpty() && columnNames.isEmpty()
                && setValues.isEmpty() && enumValues.isEmpty() && geometryTypes.isEmpty() && primaryKey.isEmpty()
                && enumSetDefaultCharset == null && enumSetColumnCharsets.isEmpty() && visibleColumns == null
                && vectorDimensions.isEmpty()
                && unknownFieldTypes.isEmpty();
    }

    /** None: what a TABLE_MAP without optional metadata carries. */
    public static final TableMapOptionalMetadata EMPTY = new TableMapOptionalMetadata(null, null, Map.of(), List.of(), Map.of(),
            Map.of(), Map.of(), List.of(), null, Map.of(), null, Map.of(), List.of());

    static TableMapOptionalMetadata read(EventReader r, List<ColumnType> types, List<Integer> metadata,
            boolean mariaDb) {
        if (!r.hasRemaining()) {
            return EMPTY;
        }
        ColumnGroups g = new ColumnGroups(types, metadata, mariaDb);
        BitSet unsigned = null;
        Integer defaultCharset = null;
        Map<Integer, Integer> charsets = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        Map<Integer, List<String>> sets = new LinkedHashMap<>();
        Map<Integer, List<String>> enums = new LinkedHashMap<>();
        Map<Integer, Integer> geometry = new LinkedHashMap<>();
        List<PrimaryKeyPart> pk = new ArrayList<>();
        Integer enumSetDefault = null;
        Map<Integer, Integer> enumSetCharsets = new LinkedHashMap<>();
        BitSet visible = null;
        Map<Integer, Integer> vectors = new LinkedHashMap<>();
        List<Integer> unknown = new ArrayList<>();
        while (r.hasRemaining()) {
            int type = r.u8("optional metadata type");
            int length = r.packedLength("optional metadata length");
            EventReader v = r.slice(length, "optional metadata field " + type);
            switch (type) {
                case 1 -> unsigned = g.toColumns(v.bitmapMsbFirst(g.numeric.size(), "SIGNEDNESS"), g.numeric);
                case 2 -> defaultCharset = readDefaultCharset(v, g.character, charsets);
                case 3 -> readColumnCharsets(v, g.character, charsets);
                case 4 -> {
                    while (v.hasRemaining()) {
                        names.add(v.string(v.packedLength("column name length"), "column name"));
                    }
                }
                case 5 -> readStringValues(v, g.set, sets, "SET_STR_VALUE");
                case 6 -> readStringValues(v, g.enumeration, enums, "ENUM_STR_VALUE");
                case 7 -> {
                    for (int i = 0; v.hasRemaining(); i++) {
                        geometry.put(g.column(g.geometry, i, "GEOMETRY_TYPE"), (int) v.packed("geometry type"));
                    }
                }
                case 8 -> {
                    while (v.hasRemaining()) {
                        pk.add(new PrimaryKeyPart(g.checkColumn(v.packed("primary key column")), 0));
                    }
                }
                case 9 -> {
                    while (v.hasRemaining()) {
                        int column = g.checkColumn(v.packed("primary key column"));
                        pk.add(new PrimaryKeyPart(column, (int) v.packed("primary key prefix")));
                    }
                }
                case 10 -> enumSetDefault = readDefaultCharset(v, g.enumOrSet, enumSetCharsets);
                case 11 -> readColumnCharsets(v, g.enumOrSet, enumSetCharsets);
                case 12 -> visible = v.bitmapMsbFirst(types.size(), "COLUMN_VISIBILITY");
                case 13 -> {
                    for (int i = 0; v.hasRemaining(); i++) {
                        vectors.put(g.column(g.vector, i, "VECTOR_DIMENSIONALITY"), (int) v.packed("vector dimensions"));
                    }
                }
                default -> {
                    unknown.add(type);
                    v.skip(v.remaining(), "unknown optional metadata");
                }
            }
            if (v.hasRemaining()) {
                throw new MalformedEventException("optional metadata field " + type + ": declared " + length
                        + " bytes, used " + v.position());
            }
        }
        return new TableMapOptionalMetadata(unsigned, defaultCharset, charsets, names, sets, enums, geometry, pk,
                enumSetDefault, enumSetCharsets, visible, vectors, unknown);
    }

    /**
     * Writes the fields whose column grouping differs between MySQL and MariaDB (SIGNEDNESS, and
     * DEFAULT_CHARSET or COLUMN_CHARSET) for a reader of the given flavor, as {@code type length value}
     * fields. The values are kept per column, so they can be written in either grouping.
     */
    void writeGroupedFields(io.netty.buffer.ByteBuf out, List<ColumnType> types, List<Integer> metadata,
            boolean mariaDb) {
        ColumnGroups g = new ColumnGroups(types, metadata, mariaDb);
        signedness(out, g);
        if ((defaultCharset != null || !columnCharsets.isEmpty()) && !g.character.isEmpty()) {
            io.netty.buffer.ByteBuf v = io.netty.buffer.Unpooled.buffer();
            if (defaultCharset != null) {
                BinlogEventEncoder.writePacked(v, defaultCharset);
                for (int i = 0; i < g.character.size(); i++) {
                    int collation = collation(g.character.get(i), types);
                    if (collation != defaultCharset) {
                        BinlogEventEncoder.writePacked(v, i);
                        BinlogEventEncoder.writePacked(v, collation);
                    }
                }
                field(out, 2, v);
            } else {
                for (int column : g.character) {
                    BinlogEventEncoder.writePacked(v, collation(column, types));
                }
                field(out, 3, v);
            }
        }
    }

    /**
     * These fields as a server writes them after a TABLE_MAP's null bitmap ({@code init_metadata_fields} of MySQL
     * and MariaDB): SIGNEDNESS, DEFAULT_CHARSET or COLUMN_CHARSET, GEOMETRY_TYPE (what {@code
     * binlog_row_metadata=MINIMAL} writes), then COLUMN_NAME, ENUM_AND_SET_DEFAULT_CHARSET or
     * ENUM_AND_SET_COLUMN_CHARSET, SET_STR_VALUE, ENUM_STR_VALUE, SIMPLE_PRIMARY_KEY or PRIMARY_KEY_WITH_PREFIX and
     * COLUMN_VISIBILITY ({@code FULL}), each where this value has it and the table has columns of its kind. Of the
     * two charset forms the server writes DEFAULT_* (the most used collation, ties to the lowest id, and the
     * columns that differ) unless one collation per column is shorter, counting a byte per number:
     * {@code n < 1 + (n - most) * 2}.
     *
     * @param mariaDb the grouping of YEAR and GEOMETRY columns (see above)
     */
    public byte[] toBytes(List<ColumnType> types, List<Integer> metadata, boolean mariaDb) {
        ColumnGroups g = new ColumnGroups(types, metadata, mariaDb);
        io.netty.buffer.ByteBuf out = io.netty.buffer.Unpooled.buffer();
        signedness(out, g);
        charsets(out, g.character, columnCharsets, 2, 3);
        if (!geometryTypes.isEmpty() && !g.geometry.isEmpty()) {
            io.netty.buffer.ByteBuf v = io.netty.buffer.Unpooled.buffer();
            g.geometry.forEach(c -> BinlogEventEncoder.writePacked(v, geometryTypes.getOrDefault(c, 0)));
            field(out, 7, v);
        }
        if (!columnNames.isEmpty()) {
            io.netty.buffer.ByteBuf v = io.netty.buffer.Unpooled.buffer();
            columnNames.forEach(n -> string(v, n));
            field(out, 4, v);
        }
        charsets(out, g.enumOrSet, enumSetColumnCharsets, 10, 11);
        strings(out, 5, g.set, setValues);
        strings(out, 6, g.enumeration, enumValues);
        if (!primaryKey.isEmpty()) {
            boolean prefixed = primaryKey.stream().anyMatch(p -> p.prefixLength() != 0);
            io.netty.buffer.ByteBuf v = io.netty.buffer.Unpooled.buffer();
            for (PrimaryKeyPart p : primaryKey) {
                BinlogEventEncoder.writePacked(v, p.column());
                if (prefixed) {
                    BinlogEventEncoder.writePacked(v, p.prefixLength());
                }
            }
            field(out, prefixed ? 9 : 8, v);
        }
        if (visibleColumns != null) {
            byte[] bits = new byte[(types.size() + 7) / 8];
            for (int i = 0; i < types.size(); i++) {
                if (visibleColumns.get(i)) {
                    bits[i / 8] |= (byte) (0x80 >>> (i % 8));
                }
            }
            field(out, 12, io.netty.buffer.Unpooled.wrappedBuffer(bits));
        }
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return bytes;
    }

    /** SIGNEDNESS: a bit per numeric column of the grouping, most significant first, set where it is unsigned. */
    private void signedness(io.netty.buffer.ByteBuf out, ColumnGroups g) {
        if (unsignedColumns == null || g.numeric.isEmpty()) {
            return;
        }
        byte[] bits = new byte[(g.numeric.size() + 7) / 8];
        for (int i = 0; i < g.numeric.size(); i++) {
            if (unsignedColumns.get(g.numeric.get(i))) {
                bits[i / 8] |= (byte) (0x80 >>> (i % 8));
            }
        }
        field(out, 1, io.netty.buffer.Unpooled.wrappedBuffer(bits));
    }

    private static void charsets(io.netty.buffer.ByteBuf out, List<Integer> group, Map<Integer, Integer> collations,
            int defaultType, int columnType) {
        if (collations.isEmpty() || group.isEmpty()) {
            return;
        }
        java.util.TreeMap<Integer, Integer> counts = new java.util.TreeMap<>();
        for (int c : group) {
            counts.merge(collations.getOrDefault(c, 63), 1, Integer::sum);
        }
        int most = 0;
        int mostCount = 0;
        for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
            if (e.getValue() > mostCount) {
                most = e.getKey();
                mostCount = e.getValue();
            }
        }
        io.netty.buffer.ByteBuf v = io.netty.buffer.Unpooled.buffer();
        if (group.size() >= 1 + (group.size() - mostCount) * 2) {
            BinlogEventEncoder.writePacked(v, most);
            for (int i = 0; i < group.size(); i++) {
                int collation = collations.getOrDefault(group.get(i), 63);
                if (collation != most) {
                    BinlogEventEncoder.writePacked(v, i);
                    BinlogEventEncoder.writePacked(v, collation);
                }
            }
            field(out, defaultType, v);
        } else {
            group.forEach(c -> BinlogEventEncoder.writePacked(v, collations.getOrDefault(c, 63)));
            field(out, columnType, v);
        }
    }

    private static void strings(io.netty.buffer.ByteBuf out, int type, List<Integer> group,
            Map<Integer, List<String>> values) {
        if (values.isEmpty() || group.isEmpty()) {
            return;
        }
        io.netty.buffer.ByteBuf v = io.netty.buffer.Unpooled.buffer();
        for (int c : group) {
            List<String> members = values.getOrDefault(c, List.of());
            BinlogEventEncoder.writePacked(v, members.size());
            members.forEach(m -> string(v, m));
        }
        field(out, type, v);
    }

    private static void string(io.netty.buffer.ByteBuf v, String s) {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        BinlogEventEncoder.writePacked(v, b.length);
        v.writeBytes(b);
    }

    /** A column's collation; GEOMETRY columns, which only MariaDB groups with the character ones, are binary. */
    private int collation(int column, List<ColumnType> types) {
        Integer c = columnCharsets.get(column);
        if (c != null) {
            return c;
        }
        return types.get(column) == ColumnType.GEOMETRY || defaultCharset == null ? 63 : defaultCharset;
    }

    private static void field(io.netty.buffer.ByteBuf out, int type, io.netty.buffer.ByteBuf value) {
        out.writeByte(type);
        BinlogEventEncoder.writePacked(out, value.readableBytes());
        out.writeBytes(value);
    }

    private static Integer readDefaultCharset(EventReader v, List<Integer> group, Map<Integer, Integer> out) {
        int dflt = (int) v.packed("default charset");
        for (int column : group) {
            out.put(column, dflt);
        }
        while (v.hasRemaining()) {
            long index = v.packed("charset column index");
            int collation = (int) v.packed("charset collation");
            if (index >= group.size()) {
                throw new MalformedEventException("charset column index " + index + " beyond the " + group.size()
                        + " columns it can apply to");
            }
            out.put(group.get((int) index), collation);
        }
        return dflt;
    }

    private static void readColumnCharsets(EventReader v, List<Integer> group, Map<Integer, Integer> out) {
        for (int i = 0; v.hasRemaining(); i++) {
            if (i >= group.size()) {
                throw new MalformedEventException("column charsets: more entries than the " + group.size()
                        + " columns they can apply to");
            }
            out.put(group.get(i), (int) v.packed("column collation"));
        }
    }

    private static void readStringValues(EventReader v, List<Integer> group, Map<Integer, List<String>> out, String what) {
        for (int i = 0; v.hasRemaining(); i++) {
            int column = new ColumnGroups.Lookup(group, what).column(i);
            int count = v.packedLength(what + " count");
            List<String> values = new ArrayList<>(count);
            for (int k = 0; k < count; k++) {
                values.add(v.string(v.packedLength(what + " length"), what));
            }
            out.put(column, values);
        }
    }

    /** Column indexes of each group the optional metadata counts separately. */
    private static final class ColumnGroups {
        final int columns;
        final List<Integer> numeric = new ArrayList<>();
        final List<Integer> character = new ArrayList<>();
        final List<Integer> enumeration = new ArrayList<>();
        final List<Integer> set = new ArrayList<>();
        final List<Integer> enumOrSet = new ArrayList<>();
        final List<Integer> geometry = new ArrayList<>();
        final List<Integer> vector = new ArrayList<>();

        ColumnGroups(List<ColumnType> types, List<Integer> metadata, boolean mariaDb) {
            columns = types.size();
            for (int i = 0; i < columns; i++) {
                ColumnType t = types.get(i);
                if (t == ColumnType.STRING) {
                    int real = metadata.get(i) >>> 8;
                    if (real == ColumnType.ENUM.code()) {
                        t = ColumnType.ENUM;
                    } else if (real == ColumnType.SET.code()) {
                        t = ColumnType.SET;
                    }
                }
                if (t == ColumnType.VECTOR) {
                    vector.add(i);
                }
                switch (t) {
                    case TINY, SHORT, INT24, LONG, LONGLONG, NEWDECIMAL, FLOAT, DOUBLE -> numeric.add(i);
                    // MySQL 9 counts VECTOR (a binary string) among the character columns.
                    case STRING, VAR_STRING, VARCHAR, BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, VECTOR -> character.add(i);
                    case ENUM -> {
                        enumeration.add(i);
                        enumOrSet.add(i);
                    }
                    case SET -> {
                        set.add(i);
                        enumOrSet.add(i);
                    }
                    case GEOMETRY -> {
                        geometry.add(i);
                        if (mariaDb) {
                            character.add(i);
                        }
                    }
                    case YEAR -> {
                        if (mariaDb) {
                            numeric.add(i);
                        }
                    }
                    default -> {
                    }
                }
            }
        }

        BitSet toColumns(BitSet byOrdinal, List<Integer> group) {
            BitSet out = new BitSet(columns);
            byOrdinal.stream().forEach(i -> out.set(group.get(i)));
            return out;
        }

        int column(List<Integer> group, int ordinal, String what) {
            return new Lookup(group, what).column(ordinal);
        }

        int checkColumn(long column) {
            if (column < 0 || column >= columns) {
                throw new MalformedEventException("primary key column " + column + " out of range 0.." + (columns - 1));
            }
            return (int) column;
        }

        record Lookup(List<Integer> group, String what) {
            int column(int ordinal) {
                if (ordinal >= group.size()) {
                    throw new MalformedEventException(what + ": more entries than the " + group.size()
                            + " columns of that kind");
                }
                return group.get(ordinal);
            }
        }
    }
}
