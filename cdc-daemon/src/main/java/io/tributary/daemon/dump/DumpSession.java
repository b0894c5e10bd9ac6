package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.packet.MySqlProtocol;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One client connection's state after the handshake: who it is, its user variables (where replicas put
 * {@code @master_binlog_checksum}, {@code @master_heartbeat_period}, {@code @slave_connect_state}, ...),
 * the session variables it set, and the server id it registered.
 *
 * <p>Belongs to the connection's event loop (not thread-safe), but for {@link #holds}; a binlog streamer reads the
 * values it needs once, when the dump starts.
 */
final class DumpSession {
    final long connectionId;
    final String user;
    final BinlogFlavor flavor;
    final boolean deprecateEof;
    private final Map<String, String> userVariables = new HashMap<>();
    private final Map<String, String> sessionVariables = new HashMap<>();
    long registeredServerId;
    /** The current database ({@code USE db}, or the handshake's), for statements about the schema; null for none. */
    String database;
    /** Whether the account may {@code SET GLOBAL} the live settings; set once authenticated. */
    boolean admin;
    /** Its snapshot transaction on the shards, sync-point connections and recorded locks (thread-safe). */
    final ClientHolds holds;

    DumpSession(long connectionId, String user, BinlogFlavor flavor, boolean deprecateEof) {
        this.connectionId = connectionId;
        this.user = user;
        this.flavor = flavor;
        this.deprecateEof = deprecateEof;
        this.holds = new ClientHolds(connectionId);
    }

    void setUserVariable(String name, String value) {
        userVariables.put(name.toLowerCase(Locale.ROOT), value);
    }

    /** The value, or null when unset or NULL. */
    String userVariable(String name) {
        return userVariables.get(name.toLowerCase(Locale.ROOT));
    }

    void setSessionVariable(String name, String value) {
        sessionVariables.put(name.toLowerCase(Locale.ROOT), value);
    }

    String sessionVariable(String name) {
        return sessionVariables.get(name.toLowerCase(Locale.ROOT));
    }

    /**
     * The server status flags a server reports to this session in its OK and EOF packets: autocommit on, unless the
     * session turned it off ({@code SET autocommit=0}). MariaDB Connector/J's {@code getAutoCommit()} reads the flag
     * (Debezium's MariaDB connector checks it before its snapshot's statements), MySQL Connector/J keeps its own.
     */
    int statusFlags() {
        String v = sessionVariable("autocommit");
        boolean off = v != null && (v.equals("0") || v.equalsIgnoreCase("OFF") || v.equalsIgnoreCase("FALSE"));
        return off ? 0 : MySqlProtocol.SERVER_STATUS_AUTOCOMMIT;
    }

    /** Whether the client asked for CRC32 checksums on the events the server makes up (fake rotate, heartbeat). */
    boolean checksumAware() {
        String v = userVariable("source_binlog_checksum");
        if (v == null) {
            v = userVariable("master_binlog_checksum");
        }
        return v != null && !v.equalsIgnoreCase("NONE");
    }

    /** The heartbeat period the client asked for, in nanoseconds in the variable; zero when none. */
    Duration heartbeatPeriod() {
        String v = userVariable("source_heartbeat_period");
        if (v == null) {
            v = userVariable("master_heartbeat_period");
        }
        if (v == null) {
            return Duration.ZERO;
        }
        try {
            return Duration.ofNanos(Long.parseLong(v.strip()));
        } catch (NumberFormatException e) {
            return Duration.ZERO;
        }
    }

    @Override
    public String toString() {
        return "DumpSession[" + connectionId + " " + user + ", replica server_id=" + registeredServerId + "]";
    }
}
