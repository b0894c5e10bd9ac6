package io.tributary.core.event;

/**
 * Which server the global binlog looks like: MySQL 8.0 or MariaDB 10.11. The flavor fixes the format
 * description (server version string and the post-header length of every event type the server
 * knows), how GTIDs are written (GTID + PREVIOUS_GTIDS under a server UUID, or MariaDB GTID + GTID_LIST
 * under domain/server/sequence) and how a transaction begins (a BEGIN query, or the MariaDB GTID event
 * itself).
 *
 * <p>The post-header tables are those the named server versions write in their own format
 * descriptions (MySQL 8.0.45: 41 event types; MariaDB 10.11.5: 171 event types), so readers that size
 * post-headers from the FDE see exactly what a real server would send.
 */
public enum BinlogFlavor {
    MYSQL("8.0.45-tributary", new int[] {
        0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10, 10, 10,
        42, 42, 0, 18, 52, 0, 10, 40, 0}),
    MARIADB("10.11.5-MariaDB-tributary", mariaDbPostHeaders());

    private final String serverVersion;
    private final byte[] postHeaderLengths;

    BinlogFlavor(String serverVersion, int[] postHeaderLengths) {
        this.serverVersion = serverVersion;
        this.postHeaderLengths = new byte[postHeaderLengths.length];
        for (int i = 0; i < postHeaderLengths.length; i++) {
            this.postHeaderLengths[i] = (byte) postHeaderLengths[i];
        }
    }

    /** The server version the format description announces. */
    public String serverVersion() {
        return serverVersion;
    }

    /** Post-header length per event type, index = type code - 1. */
    public byte[] postHeaderLengths() {
        return postHeaderLengths.clone();
    }

    int postHeaderLength(EventType type) {
        return postHeaderLengths[type.code() - 1] & 0xFF;
    }

    int postHeaderCount() {
        return postHeaderLengths.length;
    }

    public boolean isMariaDb() {
        return this == MARIADB;
    }

    private static int[] mariaDbPostHeaders() {
        int[] p = new int[171];
        int[] first = {56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 228, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0,
            10, 10, 10};
        System.arraycopy(first, 0, p, 0, first.length);
        // types 160..171: ANNOTATE_ROWS, BINLOG_CHECKPOINT, GTID, GTID_LIST, START_ENCRYPTION,
        // QUERY_COMPRESSED, rows compressed v1 x3, rows compressed v2 x3
        int[] maria = {0, 4, 19, 4, 0, 13, 8, 8, 8, 10, 10, 10};
        System.arraycopy(maria, 0, p, 159, maria.length);
        return p;
    }
}
