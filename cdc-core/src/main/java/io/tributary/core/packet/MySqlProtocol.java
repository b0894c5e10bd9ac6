package io.tributary.core.packet;

/**
 * Wire constants of the MySQL protocol in one place: capability flags, command bytes, packet
 * headers, status flags and binlog dump flags. Names keep MySQL's spelling
 * ({@code include/mysql_com.h}, {@code include/my_command.h}).
 */
public final class MySqlProtocol {
    private MySqlProtocol() {
    }

    /** Largest payload of one physical packet; a payload of this length continues in the next packet. */
    public static final int MAX_PACKET_PAYLOAD = 0xFF_FFFF;
    /** Bytes of the physical packet header: 3-byte little-endian length, 1-byte sequence id. */
    public static final int PACKET_HEADER_BYTES = 4;
    /** Largest logical payload we accept by default (MySQL's upper bound for {@code max_allowed_packet}). */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 30;

    // Capability flags (CLIENT_*).
    public static final int CLIENT_LONG_PASSWORD = 1;
    public static final int CLIENT_FOUND_ROWS = 1 << 1;
    public static final int CLIENT_LONG_FLAG = 1 << 2;
    public static final int CLIENT_CONNECT_WITH_DB = 1 << 3;
    public static final int CLIENT_NO_SCHEMA = 1 << 4;
    public static final int CLIENT_COMPRESS = 1 << 5;
    public static final int CLIENT_ODBC = 1 << 6;
    public static final int CLIENT_LOCAL_FILES = 1 << 7;
    public static final int CLIENT_IGNORE_SPACE = 1 << 8;
    public static final int CLIENT_PROTOCOL_41 = 1 << 9;
    public static final int CLIENT_INTERACTIVE = 1 << 10;
    public static final int CLIENT_SSL = 1 << 11;
    public static final int CLIENT_IGNORE_SIGPIPE = 1 << 12;
    public static final int CLIENT_TRANSACTIONS = 1 << 13;
    public static final int CLIENT_RESERVED = 1 << 14;
    public static final int CLIENT_SECURE_CONNECTION = 1 << 15;
    public static final int CLIENT_MULTI_STATEMENTS = 1 << 16;
    public static final int CLIENT_MULTI_RESULTS = 1 << 17;
    public static final int CLIENT_PS_MULTI_RESULTS = 1 << 18;
    public static final int CLIENT_PLUGIN_AUTH = 1 << 19;
    public static final int CLIENT_CONNECT_ATTRS = 1 << 20;
    public static final int CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 1 << 21;
    public static final int CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS = 1 << 22;
    public static final int CLIENT_SESSION_TRACK = 1 << 23;
    public static final int CLIENT_DEPRECATE_EOF = 1 << 24;

    // Command bytes (COM_*).
    public static final int COM_SLEEP = 0x00;
    public static final int COM_QUIT = 0x01;
    public static final int COM_INIT_DB = 0x02;
    public static final int COM_QUERY = 0x03;
    public static final int COM_PING = 0x0E;
    public static final int COM_BINLOG_DUMP = 0x12;
    public static final int COM_REGISTER_SLAVE = 0x15;
    public static final int COM_BINLOG_DUMP_GTID = 0x1E;

    // First payload byte of response packets.
    public static final int OK_HEADER = 0x00;
    public static final int AUTH_MORE_DATA_HEADER = 0x01;
    public static final int LOCAL_INFILE_HEADER = 0xFB;
    public static final int EOF_HEADER = 0xFE;
    public static final int AUTH_SWITCH_HEADER = 0xFE;
    public static final int ERR_HEADER = 0xFF;
    /** An EOF packet is shorter than this; a longer 0xFE payload is an OK packet or a length-encoded row value. */
    public static final int EOF_MAX_PAYLOAD = 9;

    // Server status flags (SERVER_STATUS_*).
    public static final int SERVER_STATUS_IN_TRANS = 1;
    public static final int SERVER_STATUS_AUTOCOMMIT = 1 << 1;

    // COM_BINLOG_DUMP flags.
    /** Return EOF instead of waiting when the end of the binlog is reached. */
    public static final int BINLOG_DUMP_NON_BLOCK = 1;
    /** MariaDB: send ANNOTATE_ROWS events. */
    public static final int BINLOG_SEND_ANNOTATE_ROWS_EVENT = 2;
    /** COM_BINLOG_DUMP_GTID: the SID block carries the GTID set to start after. */
    public static final int BINLOG_THROUGH_GTID = 4;

    // Authentication.
    public static final String MYSQL_NATIVE_PASSWORD = "mysql_native_password";
    public static final String CACHING_SHA2_PASSWORD = "caching_sha2_password";
    public static final String MYSQL_CLEAR_PASSWORD = "mysql_clear_password";
    /** caching_sha2_password AuthMoreData: the scramble matched the server's cache. */
    public static final int CACHING_SHA2_FAST_AUTH_SUCCESS = 0x03;
    /** caching_sha2_password AuthMoreData: the server needs the password itself. */
    public static final int CACHING_SHA2_PERFORM_FULL_AUTH = 0x04;
    /** caching_sha2_password: client asks for the server's RSA public key. */
    public static final int CACHING_SHA2_REQUEST_PUBLIC_KEY = 0x02;

    /** utf8mb4_general_ci, understood by every server we talk to. */
    public static final int UTF8MB4_GENERAL_CI = 45;
}
