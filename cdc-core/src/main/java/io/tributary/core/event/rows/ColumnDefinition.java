package io.tributary.core.event.rows;

import io.tributary.core.event.ColumnType;
import java.util.List;
import java.util.Objects;

/**
 * One column of a TABLE_MAP event, as the row image decoder needs it.
 *
 * <p>{@code metadata} is the column's TABLE_MAP metadata folded into one int, exactly as
 * {@link io.tributary.core.event.TableMapEvent#metadata()} holds it ({@link TableColumns#of} passes it on
 * unchanged):
 * <ul>
 *   <li>NEWDECIMAL: {@code precision << 8 | scale}</li>
 *   <li>STRING, VAR_STRING, ENUM, SET: {@code byte0 << 8 | byte1} as written; byte0 is the real type
 *       (STRING, ENUM or SET) with bits 4-5 possibly cleared to carry bits 8-9 of a CHAR length over 255,
 *       byte1 is the low length byte, or for ENUM/SET the value size in bytes</li>
 *   <li>VARCHAR: the maximum length in bytes</li>
 *   <li>BIT: {@code bytes << 8 | bits % 8}</li>
 *   <li>BLOB, GEOMETRY, JSON, VECTOR: the number of length bytes (1-4)</li>
 *   <li>FLOAT, DOUBLE: the value size (4 or 8)</li>
 *   <li>TIMESTAMP2, DATETIME2, TIME2: the fractional seconds precision (0-6)</li>
 *   <li>TYPED_ARRAY: {@code element_type << 16 | element metadata} (never in a row image)</li>
 *   <li>every other type: 0</li>
 * </ul>
 *
 * @param type       the type code from the TABLE_MAP event
 * @param metadata   as above
 * @param unsigned   from the SIGNEDNESS optional metadata (false when absent)
 * @param charset    collation id from the charset optional metadata, or -1 when unknown
 * @param name       column name, or {@code null} when the TABLE_MAP carried none
 * @param enumValues ENUM member names, or {@code null}
 * @param setValues  SET member names, or {@code null}
 */
public record ColumnDefinition(ColumnType type, int metadata, boolean unsigned, int charset, String name,
                               List<String> enumValues, List<String> setValues) {

    /** Collation id meaning "unknown". */
    public static final int UNKNOWN_CHARSET = -1;

    public ColumnDefinition {
        Objects.requireNonNull(type, "type");
        enumValues = enumValues == null ? null : List.copyOf(enumValues);
        setValues = setValues == null ? null : List.copyOf(setValues);
    }

    /** A column with only what every TABLE_MAP carries: type and metadata. */
    public static ColumnDefinition of(ColumnType type, int metadata) {
        return new ColumnDefinition(type, metadata, false, UNKNOWN_CHARSET, null, null, null);
    }

    /** The same column with optional-metadata facts added. */
    public ColumnDefinition with(boolean unsigned, int charset, String name) {
        return new ColumnDefinition(type, metadata, unsigned, charset, name, enumValues, setValues);
    }

    /** The same column with ENUM/SET member names. */
    public ColumnDefinition withValues(List<String> enumValues, List<String> setValues) {
        return new ColumnDefinition(type, metadata, unsigned, charset, name, enumValues, setValues);
    }

    /**
     * The type the value is stored as. MySQL writes ENUM and SET columns as STRING with the real type in
     * the first metadata byte; this returns ENUM or SET for those, {@link #type} otherwise.
     */
    public ColumnType storedType() {
        if (type == ColumnType.STRING && metadata >= 256) {
            int byte0 = metadata >>> 8;
            if ((byte0 & 0x30) == 0x30) {
                if (byte0 == ColumnType.ENUM.code()) {
                    return ColumnType.ENUM;
                }
                if (byte0 == ColumnType.SET.code()) {
                    return ColumnType.SET;
                }
            }
        }
        return type;
    }

    /**
     * For STRING (CHAR/BINARY) and VAR_STRING: the maximum length in bytes, decoding the {@code >255} encoding; for
     * ENUM/SET stored as STRING: the value size in bytes.
     */
    public int stringLength() {
        if (metadata < 256) {
            return metadata;
        }
        int byte0 = metadata >>> 8;
        int byte1 = metadata & 0xFF;
        if ((byte0 & 0x30) != 0x30) {
            return byte1 | (((byte0 & 0x30) ^ 0x30) << 4);
        }
        return byte1;
    }

    /** A short label for messages: {@code `name`} or {@code @n}. */
    String label(int index) {
        return name != null ? "`" + name + "`" : "@" + (index + 1);
    }
}
