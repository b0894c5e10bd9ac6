package io.tributary.core.event;

/**
 * Binlog event type codes written by MySQL 5.0 to 9.x ({@code Log_event_type} in
 * {@code libbinlogevents/include/binlog_event.h}) and MariaDB 10 to 12 ({@code sql/log_event.h}).
 *
 * <p>Codes never change meaning once assigned, except in the pre-GA 5.1/5.2 "a_drop" trees, which
 * {@link FormatDescription#canonicalTypeCode(int)} remaps. Names keep the servers' spelling without the
 * {@code _EVENT} suffix.
 */
public enum EventType {
    UNKNOWN(0),
    START_V3(1),
    QUERY(2),
    STOP(3),
    ROTATE(4),
    INTVAR(5),
    LOAD(6),
    SLAVE(7),
    CREATE_FILE(8),
    APPEND_BLOCK(9),
    EXEC_LOAD(10),
    DELETE_FILE(11),
    NEW_LOAD(12),
    RAND(13),
    USER_VAR(14),
    FORMAT_DESCRIPTION(15),
    XID(16),
    BEGIN_LOAD_QUERY(17),
    EXECUTE_LOAD_QUERY(18),
    TABLE_MAP(19),
    PRE_GA_WRITE_ROWS(20),
    PRE_GA_UPDATE_ROWS(21),
    PRE_GA_DELETE_ROWS(22),
    WRITE_ROWS_V1(23),
    UPDATE_ROWS_V1(24),
    DELETE_ROWS_V1(25),
    INCIDENT(26),
    HEARTBEAT(27),
    IGNORABLE(28),
    ROWS_QUERY(29),
    WRITE_ROWS_V2(30),
    UPDATE_ROWS_V2(31),
    DELETE_ROWS_V2(32),
    GTID(33),
    ANONYMOUS_GTID(34),
    PREVIOUS_GTIDS(35),
    TRANSACTION_CONTEXT(36),
    VIEW_CHANGE(37),
    XA_PREPARE_LOG(38),
    PARTIAL_UPDATE_ROWS(39),
    TRANSACTION_PAYLOAD(40),
    HEARTBEAT_V2(41),
    GTID_TAGGED(42),
    /** MariaDB: the statement behind the following row events. */
    ANNOTATE_ROWS(160),
    BINLOG_CHECKPOINT(161),
    /** MariaDB GTID (domain-server-sequence). */
    MARIA_GTID(162),
    GTID_LIST(163),
    START_ENCRYPTION(164),
    QUERY_COMPRESSED(165),
    WRITE_ROWS_COMPRESSED_V1(166),
    UPDATE_ROWS_COMPRESSED_V1(167),
    DELETE_ROWS_COMPRESSED_V1(168),
    WRITE_ROWS_COMPRESSED(169),
    UPDATE_ROWS_COMPRESSED(170),
    DELETE_ROWS_COMPRESSED(171),
    /** MariaDB 12.3 (MDEV-32570): a fragment of an oversized rows event. */
    PARTIAL_ROW_DATA(172);

    private static final EventType[] BY_CODE = new EventType[256];

    static {
        for (EventType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    EventType(int code) {
        this.code = code;
    }

    /** The type code as written in the event header (0-255). */
    public int code() {
        return code;
    }

    /** The type for a header code, or {@code null} when no server defines it (vendor or future types). */
    public static EventType ofCode(int code) {
        return code >= 0 && code < 256 ? BY_CODE[code] : null;
    }

    /** The type's name for a code, or {@code "UNKNOWN(<code>)"}; used in messages. */
    public static String nameOf(int code) {
        if (code >= 0 && code < 256) {
            return NAMES[code];
        }
        return computeName(code);
    }

    private static String computeName(int code) {
        EventType t = ofCode(code);
        return t == null || t == UNKNOWN ? "UNKNOWN(" + code + ")" : t.name() + "(" + code + ")";
    }

    /** {@link #nameOf} of every byte code, built once: the decoder asks for it on every event. */
    private static final String[] NAMES = new String[256];

    static {
        for (int c = 0; c < 256; c++) {
            NAMES[c] = computeName(c);
        }
    }

    /** Row events of every generation (pre-GA, v1, v2, partial JSON update, MariaDB compressed). */
    public boolean isRows() {
        return (code >= 20 && code <= 25) || (code >= 30 && code <= 32) || code == 39 || (code >= 166 && code <= 171);
    }

    /** Row events that carry a second (after-image) column bitmap. */
    public boolean isUpdateRows() {
        return this == PRE_GA_UPDATE_ROWS || this == UPDATE_ROWS_V1 || this == UPDATE_ROWS_V2 || this == PARTIAL_UPDATE_ROWS
                || this == UPDATE_ROWS_COMPRESSED_V1 || this == UPDATE_ROWS_COMPRESSED;
    }

    /** Row events with the v2 variable-length extra-data header. */
    public boolean isRowsV2() {
        return (code >= 30 && code <= 32) || code == 39 || (code >= 169 && code <= 171);
    }

    /** MariaDB's zlib-compressed query and row events (165-171). */
    public boolean isMariaCompressed() {
        return code >= 165 && code <= 171;
    }

    /** For a MariaDB compressed type, the plain type it expands to; otherwise this type. */
    public EventType uncompressed() {
        switch (this) {
            case QUERY_COMPRESSED: return QUERY;
            case WRITE_ROWS_COMPRESSED_V1: return WRITE_ROWS_V1;
            case UPDATE_ROWS_COMPRESSED_V1: return UPDATE_ROWS_V1;
            case DELETE_ROWS_COMPRESSED_V1: return DELETE_ROWS_V1;
            case WRITE_ROWS_COMPRESSED: return WRITE_ROWS_V2;
            case UPDATE_ROWS_COMPRESSED: return UPDATE_ROWS_V2;
            case DELETE_ROWS_COMPRESSED: return DELETE_ROWS_V2;
            default: return this;
        }
    }
}
