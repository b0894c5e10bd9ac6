package io.tributary.core.event;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * TABLE_MAP_EVENT (19): binds a table id to a table and its column layout for the row events that follow.
 * Post-header: {@code table_id(6)} (4 bytes when the FDE's post-header length is 6) {@code flags(2)};
 * body: {@code db_length(1) db NUL table_length(1) table NUL column_count(packed) column_types[n]
 * metadata_length(packed) metadata null_bitmap[(n+7)/8]} then the optional metadata TLVs (MySQL 8.0.1+,
 * MariaDB 10.5+ with {@code binlog_row_metadata}).
 *
 * <p>Per-column metadata, as ints: 1-byte types (FLOAT, DOUBLE, BLOBs, JSON, GEOMETRY: pack length;
 * TIME2/DATETIME2/TIMESTAMP2: fractional digits) hold that byte; VARCHAR and BIT hold the little-endian
 * uint16 (VARCHAR: max byte length; BIT: {@code bytes << 8 | bits}); NEWDECIMAL, STRING, VAR_STRING, ENUM
 * and SET hold {@code first << 8 | second} (precision/scale; real type/length); TYPED_ARRAY holds
 * {@code element_type << 16 | element metadata}; types without metadata hold 0.
 *
 * @param tableId      id the row events refer to
 * @param flags        table map flags
 * @param database     schema name
 * @param table        table name
 * @param columnTypes  column types as written (ENUM/SET columns usually appear as STRING; see metadata)
 * @param metadata     per-column metadata, see above
 * @param nullable     columns that may be NULL
 * @param optional     optional metadata, empty when the server wrote none
 */
public record TableMapEvent(long tableId, int flags, String database, String table, List<ColumnType> columnTypes,
        List<Integer> metadata, BitSet nullable, TableMapOptionalMetadata optional) implements EventBody {

    public TableMapEvent {
        columnTypes = List.copyOf(columnTypes);
        metadata = List.copyOf(metadata);
        nullable = (BitSet) nullable.clone();
    }

    @Override
    public BitSet nullable() {
        return (BitSet) nullable.clone();
    }

    public int columnCount() {
        return columnTypes.size();
    }

    /** The column's real type: ENUM/SET/STRING for a STRING column according to its metadata. */
    public ColumnType realType(int column) {
        ColumnType t = columnTypes.get(column);
        if (t == ColumnType.STRING) {
            int real = metadata.get(column) >>> 8;
            if (real == ColumnType.ENUM.code() || real == ColumnType.SET.code()) {
                return ColumnType.ofCode(real);
            }
        }
        return t;
    }

    /** @param mariaDb whether MariaDB wrote the event: it groups columns differently in the optional metadata */
    static TableMapEvent read(EventReader r, int postHeaderLength, boolean mariaDb) {
        long tableId = postHeaderLength == 6 ? r.u32("table_id") : r.uN(6, "table_id");
        int flags = r.u16("table map flags");
        r.skip(Math.max(0, postHeaderLength - (postHeaderLength == 6 ? 6 : 8)), "table map post-header");
        String db = r.string(r.u8("database name length"), "database name");
        r.skip(1, "database name terminator");
        String table = r.string(r.u8("table name length"), "table name");
        r.skip(1, "table name terminator");
        int columns = r.packedLength("column count");
        List<ColumnType> types = new ArrayList<>(columns);
        for (int i = 0; i < columns; i++) {
            int code = r.u8("column type");
            ColumnType t = ColumnType.ofCode(code);
            if (t == null) {
                throw new MalformedEventException("column " + i + ": unknown column type code " + code);
            }
            types.add(t);
        }
        if (!r.hasRemaining()) {
            // Pre-GA 5.1 servers wrote neither metadata nor null bitmap; mysqld reads them only if present.
            return new TableMapEvent(tableId, flags, db, table, types, java.util.Collections.nCopies(columns, 0),
                    new BitSet(), TableMapOptionalMetadata.EMPTY);
        }
        int metadataLength = r.packedLength("metadata length");
        EventReader m = r.slice(metadataLength, "column metadata");
        List<Integer> metadata = new ArrayList<>(columns);
        for (int i = 0; i < columns; i++) {
            metadata.add(readMetadata(types.get(i), m, i));
        }
        if (m.hasRemaining()) {
            throw new MalformedEventException("column metadata: declared " + metadataLength + " bytes, columns used "
                    + m.position());
        }
        BitSet nullable = r.bitmapLsbFirst(columns, "null bitmap");
        TableMapOptionalMetadata optional = TableMapOptionalMetadata.read(r, types, metadata, mariaDb);
        return new TableMapEvent(tableId, flags, db, table, types, metadata, nullable, optional);
    }

    private static int readMetadata(ColumnType type, EventReader m, int column) {
        String field = "metadata of column " + column;
        switch (type) {
            case VARCHAR, BIT:
                return m.u16(field);
            case NEWDECIMAL, STRING, VAR_STRING, ENUM, SET: {
                int first = m.u8(field);
                return first << 8 | m.u8(field);
            }
            case TYPED_ARRAY: {
                int elementCode = m.u8(field);
                ColumnType element = ColumnType.ofCode(elementCode);
                if (element == null || element == ColumnType.TYPED_ARRAY) {
                    throw new MalformedEventException(field + ": bad typed array element type " + elementCode);
                }
                return elementCode << 16 | readMetadata(element, m, column);
            }
            default:
                if (type.metadataBytes() == 1) {
                    return m.u8(field);
                }
                return (int) m.uN(type.metadataBytes(), field);
        }
    }

    @Override
    public String toString() {
        return "TableMapEvent[id=" + tableId + ", " + database + "." + table + ", columns=" + columnTypes
                + ", metadata=" + metadata + ", nullable=" + nullable + ", flags=" + flags
                + (optional.isEmpty() ? "" : ", " + optional) + "]";
    }
}
