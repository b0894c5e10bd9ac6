package io.tributary.core.packet;

/**
 * The MySQL error codes Tributary sends or acts on, with their SQLSTATE and scope, mapped in one
 * place ({@code include/mysqld_error.h}, {@code include/sql_state.h}).
 *
 * <p>{@link Scope#CONNECTION} errors end the connection; {@link Scope#COMMAND} errors end one command.
 */
public enum MySqlError {
    ER_CON_COUNT_ERROR(1040, "08004", Scope.CONNECTION),
    ER_HANDSHAKE_ERROR(1043, "08S01", Scope.CONNECTION),
    ER_DBACCESS_DENIED_ERROR(1044, "42000", Scope.CONNECTION),
    ER_ACCESS_DENIED_ERROR(1045, "28000", Scope.CONNECTION),
    ER_UNKNOWN_COM_ERROR(1047, "08S01", Scope.COMMAND),
    ER_BAD_DB_ERROR(1049, "42000", Scope.COMMAND),
    ER_SERVER_SHUTDOWN(1053, "08S01", Scope.CONNECTION),
    ER_PARSE_ERROR(1064, "42000", Scope.COMMAND),
    ER_NET_PACKET_TOO_LARGE(1153, "08S01", Scope.CONNECTION),
    ER_NET_READ_ERROR(1158, "08S01", Scope.CONNECTION),
    ER_NET_PACKETS_OUT_OF_ORDER(1156, "08S01", Scope.CONNECTION),
    ER_UNKNOWN_SYSTEM_VARIABLE(1193, "HY000", Scope.COMMAND),
    ER_QUERY_INTERRUPTED(1317, "70100", Scope.COMMAND),
    ER_MASTER_FATAL_ERROR_READING_BINLOG(1236, "HY000", Scope.CONNECTION),
    ER_NOT_SUPPORTED_AUTH_MODE(1251, "08004", Scope.CONNECTION),
    ER_UNKNOWN_ERROR(1105, "HY000", Scope.COMMAND),
    ER_SPECIFIC_ACCESS_DENIED_ERROR(1227, "42000", Scope.COMMAND),
    ER_MASTER_HAS_PURGED_REQUIRED_GTIDS(1789, "HY000", Scope.CONNECTION),
    ER_MALFORMED_PACKET(1835, "HY000", Scope.CONNECTION),
    ER_ACCESS_DENIED_NO_PASSWORD_ERROR(1698, "28000", Scope.CONNECTION),
    ER_GLOBAL_VARIABLE(1229, "HY000", Scope.COMMAND),
    ER_WRONG_VALUE_FOR_VAR(1231, "42000", Scope.COMMAND),
    ER_CLIENT_INTERACTION_TIMEOUT(4031, "HY000", Scope.CONNECTION);

    /** What an error ends. */
    public enum Scope { CONNECTION, COMMAND }

    private final int code;
    private final String sqlState;
    private final Scope scope;

    MySqlError(int code, String sqlState, Scope scope) {
        this.code = code;
        this.sqlState = sqlState;
        this.scope = scope;
    }

    public int code() {
        return code;
    }

    public String sqlState() {
        return sqlState;
    }

    public Scope scope() {
        return scope;
    }

    /** The known error with this code, or {@code null}. */
    public static MySqlError forCode(int code) {
        for (MySqlError e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return null;
    }

    /** An ERR packet carrying this error and the given message. */
    public ErrPacket toPacket(String message) {
        return new ErrPacket(code, sqlState, message);
    }
}
