package io.tributary.core.event;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The status-variable block of a QUERY event: {@code code(1) value} pairs whose value length depends on
 * the code ({@code Q_*_CODE} in MySQL's {@code statement_events.h}, plus MariaDB's 128 {@code Q_HRNOW}
 * and 129 {@code Q_XID}). The raw block is always kept; the known variables are parsed until the first
 * unknown code, whose length cannot be known (as mysqld does). Absent values are {@code null}.
 *
 * @param raw                the whole block as written
 * @param parsedUpTo         bytes of the block understood ({@code raw.length} when all were known)
 * @param flags2             Q_FLAGS2 (autocommit, foreign key checks, ...)
 * @param sqlMode            Q_SQL_MODE
 * @param catalog            Q_CATALOG / Q_CATALOG_NZ
 * @param autoIncrementIncrement Q_AUTO_INCREMENT first half
 * @param autoIncrementOffset    Q_AUTO_INCREMENT second half
 * @param charsetClient      Q_CHARSET: character_set_client
 * @param collationConnection Q_CHARSET: collation_connection
 * @param collationServer    Q_CHARSET: collation_server
 * @param timeZone           Q_TIME_ZONE
 * @param lcTimeNames        Q_LC_TIME_NAMES
 * @param charsetDatabase    Q_CHARSET_DATABASE
 * @param tableMapForUpdate  Q_TABLE_MAP_FOR_UPDATE
 * @param invokerUser        Q_INVOKER user
 * @param invokerHost        Q_INVOKER host
 * @param updatedDbNames     Q_UPDATED_DB_NAMES (null when absent or over the limit)
 * @param microseconds       Q_MICROSECONDS / MariaDB Q_HRNOW
 * @param ddlXid             Q_DDL_LOGGED_WITH_XID / MariaDB Q_XID
 * @param defaultCollationForUtf8mb4 Q_DEFAULT_COLLATION_FOR_UTF8MB4
 */
public record QueryStatusVariables(byte[] raw, int parsedUpTo, Long flags2, Long sqlMode, String catalog,
        Integer autoIncrementIncrement, Integer autoIncrementOffset, Integer charsetClient,
        Integer collationConnection, Integer collationServer, String timeZone, Integer lcTimeNames,
        Integer charsetDatabase, Long tableMapForUpdate, String invokerUser, String invokerHost,
        List<String> updatedDbNames, Integer microseconds, Long ddlXid, Integer defaultCollationForUtf8mb4) {

    public QueryStatusVariables {
        raw = raw.clone();
        updatedDbNames = updatedDbNames == null ? null : List.copyOf(updatedDbNames);
    }

    @Override
    public byte[] raw() {
        return raw.clone();
    }

    /** Whether every variable in the block was understood. */
    public boolean fullyParsed() {
        return parsedUpTo == raw.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QueryStatusVariables q && Arrays.equals(raw, q.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    @Override
    public String toString() {
        return "QueryStatusVariables[" + raw.length + " bytes" + (fullyParsed() ? "" : ", parsed " + parsedUpTo)
                + (flags2 == null ? "" : ", flags2=0x" + Long.toHexString(flags2))
                + (sqlMode == null ? "" : ", sqlMode=0x" + Long.toHexString(sqlMode))
                + (charsetClient == null ? "" : ", charset=" + charsetClient + "/" + collationConnection + "/" + collationServer)
                + (timeZone == null ? "" : ", timeZone=" + timeZone)
                + (ddlXid == null ? "" : ", xid=" + ddlXid) + ", raw=" + HexFormat.of().formatHex(raw) + "]";
    }

    static QueryStatusVariables read(EventReader block) {
        byte[] raw = block.bytes(block.remaining(), "status variables");
        EventReader r = new EventReader(raw, 0, raw.length);
        Builder b = new Builder();
        int parsed = 0;
        while (r.hasRemaining()) {
            int code = r.u8("status variable code");
            if (!b.readValue(code, r)) {
                break;
            }
            parsed = r.position();
        }
        return new QueryStatusVariables(raw, parsed, b.flags2, b.sqlMode, b.catalog, b.autoIncrementIncrement,
                b.autoIncrementOffset, b.charsetClient, b.collationConnection, b.collationServer, b.timeZone,
                b.lcTimeNames, b.charsetDatabase, b.tableMapForUpdate, b.invokerUser, b.invokerHost,
                b.updatedDbNames, b.microseconds, b.ddlXid, b.defaultCollationForUtf8mb4);
    }

    /** Mutable accumulator used only while reading one block. */
    private static final class Builder {
        private static final int OVER_MAX_DBS_IN_EVENT_MTS = 254;
        Long flags2;
        Long sqlMode;
        String catalog;
        Integer autoIncrementIncrement;
        Integer autoIncrementOffset;
        Integer charsetClient;
        Integer collationConnection;
        Integer collationServer;
        String timeZone;
        Integer lcTimeNames;
        Integer charsetDatabase;
        Long tableMapForUpdate;
        String invokerUser;
        String invokerHost;
        List<String> updatedDbNames;
        Integer microseconds;
        Long ddlXid;
        Integer defaultCollationForUtf8mb4;

        /** Reads one value; false for an unknown code (the rest of the block cannot be parsed). */
        boolean readValue(int code, EventReader r) {
            switch (code) {
                case 0 -> flags2 = r.u32("Q_FLAGS2");
                case 1 -> sqlMode = r.u64("Q_SQL_MODE");
                case 2 -> {
                    catalog = r.string(r.u8("Q_CATALOG length"), "Q_CATALOG");
                    r.skip(1, "Q_CATALOG terminator");
                }
                case 3 -> {
                    autoIncrementIncrement = r.u16("Q_AUTO_INCREMENT increment");
                    autoIncrementOffset = r.u16("Q_AUTO_INCREMENT offset");
                }
                case 4 -> {
                    charsetClient = r.u16("Q_CHARSET client");
                    collationConnection = r.u16("Q_CHARSET connection");
                    collationServer = r.u16("Q_CHARSET server");
                }
                case 5 -> timeZone = r.string(r.u8("Q_TIME_ZONE length"), "Q_TIME_ZONE");
                case 6 -> catalog = r.string(r.u8("Q_CATALOG_NZ length"), "Q_CATALOG_NZ");
                case 7 -> lcTimeNames = r.u16("Q_LC_TIME_NAMES");
                case 8 -> charsetDatabase = r.u16("Q_CHARSET_DATABASE");
                case 9 -> tableMapForUpdate = r.u64("Q_TABLE_MAP_FOR_UPDATE");
                case 10 -> r.u32("Q_MASTER_DATA_WRITTEN");
                case 11 -> {
                    invokerUser = r.string(r.u8("Q_INVOKER user length"), "Q_INVOKER user");
                    invokerHost = r.string(r.u8("Q_INVOKER host length"), "Q_INVOKER host");
                }
                case 12 -> {
                    int count = r.u8("Q_UPDATED_DB_NAMES count");
                    if (count != OVER_MAX_DBS_IN_EVENT_MTS) {
                        List<String> names = new java.util.ArrayList<>(count);
                        for (int i = 0; i < count; i++) {
                            names.add(r.nulTerminated("Q_UPDATED_DB_NAMES name"));
                        }
                        updatedDbNames = names;
                    }
                }
                case 13, 128 -> microseconds = (int) r.uN(3, "Q_MICROSECONDS");
                case 16 -> r.u8("Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP");
                case 17, 129 -> ddlXid = r.u64("Q_DDL_LOGGED_WITH_XID");
                case 18 -> defaultCollationForUtf8mb4 = r.u16("Q_DEFAULT_COLLATION_FOR_UTF8MB4");
                case 19 -> r.u8("Q_SQL_REQUIRE_PRIMARY_KEY");
                case 20 -> r.u8("Q_DEFAULT_TABLE_ENCRYPTION");
                default -> {
                    return false;
                }
            }
            return true;
        }
    }
}
