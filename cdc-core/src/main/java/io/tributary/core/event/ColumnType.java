package io.tributary.core.event;

/**
 * MySQL column types as written in TABLE_MAP events ({@code enum_field_types} in MySQL's
 * {@code include/field_types.h}), with the number of metadata bytes each type carries in the
 * TABLE_MAP metadata block.
 *
 * <p>Wire names keep MySQL's spelling without the {@code MYSQL_TYPE_} prefix.
 */
public enum ColumnType {
    /** Pre-5.0 DECIMAL; carries no TABLE_MAP metadata (MySQL's Table_map_log_event column type table). */
    DECIMAL(0, 0),
    TINY(1, 0),
    SHORT(2, 0),
    LONG(3, 0),
    FLOAT(4, 1),
    DOUBLE(5, 1),
    NULL(6, 0),
    TIMESTAMP(7, 0),
    LONGLONG(8, 0),
    INT24(9, 0),
    DATE(10, 0),
    TIME(11, 0),
    DATETIME(12, 0),
    YEAR(13, 0),
    NEWDATE(14, 0),
    VARCHAR(15, 2),
    BIT(16, 2),
    TIMESTAMP2(17, 1),
    DATETIME2(18, 1),
    TIME2(19, 1),
    /** Only in MySQL's internal multi-valued index images; metadata is the element type plus its metadata. */
    TYPED_ARRAY(20, -1),
    /** MySQL 9 VECTOR; metadata is the length-bytes count. */
    VECTOR(242, 1),
    INVALID(243, 0),
    BOOL(244, 0),
    JSON(245, 1),
    NEWDECIMAL(246, 2),
    ENUM(247, 2),
    SET(248, 2),
    TINY_BLOB(249, 1),
    MEDIUM_BLOB(250, 1),
    LONG_BLOB(251, 1),
    BLOB(252, 1),
    VAR_STRING(253, 2),
    STRING(254, 2),
    GEOMETRY(255, 1);

    private static final ColumnType[] BY_CODE = new ColumnType[256];

    static {
        for (ColumnType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final int metadataBytes;

    ColumnType(int code, int metadataBytes) {
        this.code = code;
        this.metadataBytes = metadataBytes;
    }

    /** The type code as written on the wire (0-255). */
    public int code() {
        return code;
    }

    /**
     * Bytes of TABLE_MAP metadata this type carries; -1 for {@link #TYPED_ARRAY}, whose length depends on
     * the element type that follows.
     */
    public int metadataBytes() {
        return metadataBytes;
    }

    /** Bytes of a row image's value of this integer type (TINY 1 .. LONGLONG 8); 0 for every other type. */
    public int integerBytes() {
        return switch (this) {
            case TINY -> 1;
            case SHORT -> 2;
            case INT24 -> 3;
            case LONG -> 4;
            case LONGLONG -> 8;
            default -> 0;
        };
    }

    /** The type for a wire code, or {@code null} when MySQL defines no such type. */
    public static ColumnType ofCode(int code) {
        return code >= 0 && code < 256 ? BY_CODE[code] : null;
    }
}
