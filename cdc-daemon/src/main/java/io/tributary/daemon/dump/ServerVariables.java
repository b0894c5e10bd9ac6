package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The system variables the dump server reports, per flavor: fixed ones (ROW format, FULL image, CRC32, GTID
 * mode ON, semi-sync off, utf8mb4) and ones computed from the binlog ({@code gtid_executed},
 * {@code gtid_binlog_pos}, ...). A session value the client set wins over the global one for
 * {@code @@session.x} / {@code @@x}.
 *
 * <p>Immutable apart from the snapshot passed in; thread-safe.
 */
final class ServerVariables {
    private final BinlogFlavor flavor;
    private final Map<String, String> fixed;

    ServerVariables(BinlogFlavor flavor, long serverId, String serverUuid, int port, boolean tls) {
        this.flavor = flavor;
        Map<String, String> v = new TreeMap<>();
        v.put("version", flavor.serverVersion());
        v.put("version_comment", "Tributary global binlog (Apache-2.0)");
        v.put("server_id", Long.toString(serverId));
        v.put("server_id_bits", "32");
        v.put("port", Integer.toString(port));
        v.put("hostname", "tributary");
        v.put("log_bin", "ON");
        v.put("log_bin_basename", "binlog");
        v.put("log_slave_updates", "ON");
        v.put("log_replica_updates", "ON");
        v.put("binlog_format", "ROW");
        v.put("binlog_row_image", "FULL");
        v.put("binlog_row_metadata", "FULL");
        v.put("binlog_checksum", "CRC32");
        v.put("master_verify_checksum", "OFF");
        v.put("binlog_transaction_compression", "OFF");
        v.put("rpl_semi_sync_master_enabled", "OFF");
        v.put("rpl_semi_sync_source_enabled", "OFF");
        v.put("rpl_semi_sync_slave_enabled", "OFF");
        v.put("character_set_client", "utf8mb4");
        v.put("character_set_connection", "utf8mb4");
        v.put("character_set_results", "utf8mb4");
        v.put("character_set_server", "utf8mb4");
        v.put("character_set_database", "utf8mb4");
        v.put("collation_server", "utf8mb4_general_ci");
        v.put("collation_connection", "utf8mb4_general_ci");
        v.put("max_allowed_packet", "1073741824");
        v.put("net_buffer_length", "16384");
        v.put("net_write_timeout", "60");
        v.put("net_read_timeout", "30");
        v.put("wait_timeout", "28800");
        v.put("interactive_timeout", "28800");
        v.put("auto_increment_increment", "1");
        v.put("autocommit", "ON");
        v.put("sql_mode", "");
        v.put("time_zone", "SYSTEM");
        v.put("system_time_zone", java.util.TimeZone.getDefault().getDisplayName(false, java.util.TimeZone.SHORT,
                Locale.ROOT));
        v.put("lower_case_table_names", "0");
        v.put("transaction_isolation", "REPEATABLE-READ");
        v.put("tx_isolation", "REPEATABLE-READ");
        v.put("license", "Apache-2.0");
        v.put("performance_schema", "OFF");
        v.put("query_cache_size", "0");
        v.put("query_cache_type", "OFF");
        v.put("init_connect", "");
        v.put("have_ssl", tls ? "YES" : "DISABLED");
        v.put("have_openssl", tls ? "YES" : "DISABLED");
        v.put("read_only", "ON");
        if (flavor.isMariaDb()) {
            v.put("tx_read_only", "OFF"); // MariaDB 10.11 has no transaction_read_only (an alias since 11.1)
            v.put("gtid_domain_id", "0");
            v.put("gtid_strict_mode", "ON");
            v.put("gtid_slave_pos", "");
            v.put("binlog_annotate_row_events", "OFF");
        } else {
            v.put("transaction_read_only", "OFF"); // tx_read_only was removed in MySQL 8.0.3
            v.put("server_uuid", serverUuid);
            v.put("gtid_mode", "ON");
            v.put("enforce_gtid_consistency", "ON");
            v.put("transaction_write_set_extraction", "XXHASH64");
        }
        this.fixed = Map.copyOf(v);
    }

    /**
     * The boolean variables: {@code SHOW VARIABLES} prints them ON/OFF, {@code SELECT @@x} gives 1/0 (Connector/J's
     * {@code isReadOnly()} reads {@code @@session.transaction_read_only} as a number).
     */
    private static final java.util.Set<String> BOOLEANS = java.util.Set.of("log_bin", "log_slave_updates",
            "log_replica_updates", "master_verify_checksum", "binlog_transaction_compression",
            "rpl_semi_sync_master_enabled", "rpl_semi_sync_source_enabled", "rpl_semi_sync_slave_enabled", "autocommit",
            "performance_schema", "read_only", "transaction_read_only", "tx_read_only", "gtid_strict_mode",
            "binlog_annotate_row_events");

    BinlogFlavor flavor() {
        return flavor;
    }

    /** {@code value} of {@code name} as {@code SELECT @@name} shows it: 1/0 for a boolean variable. */
    static String asSelected(String name, String value) {
        Boolean b = booleanValue(name, value);
        return b == null ? value : b ? "1" : "0";
    }

    /** {@code value} of {@code name} as {@code SHOW VARIABLES} shows it: ON/OFF for a boolean variable. */
    static String asShown(String name, String value) {
        Boolean b = booleanValue(name, value);
        return b == null ? value : b ? "ON" : "OFF";
    }

    /** The value of a boolean variable written ON/OFF, 1/0 or TRUE/FALSE; null for other variables or values. */
    private static Boolean booleanValue(String name, String value) {
        if (value == null || !BOOLEANS.contains(name.toLowerCase(Locale.ROOT))) {
            return null;
        }
        if (value.equalsIgnoreCase("ON") || value.equals("1") || value.equalsIgnoreCase("TRUE")) {
            return Boolean.TRUE;
        }
        if (value.equalsIgnoreCase("OFF") || value.equals("0") || value.equalsIgnoreCase("FALSE")) {
            return Boolean.FALSE;
        }
        return null;
    }

    /** Every variable, name to value, with the binlog-derived ones from {@code snapshot} (null: not ready). */
    Map<String, String> all(BinlogSnapshot snapshot) {
        Map<String, String> v = new TreeMap<>(fixed);
        String executed = snapshot == null ? "" : snapshot.executedGtids();
        String purged = snapshot == null ? "" : snapshot.purgedGtids();
        if (flavor.isMariaDb()) {
            if (snapshot != null) {
                v.put("gtid_domain_id", Long.toString(snapshot.domainId()));
            }
            v.put("gtid_binlog_pos", executed);
            v.put("gtid_current_pos", executed);
            v.put("gtid_binlog_state", executed);
        } else {
            if (snapshot != null) {
                v.put("server_uuid", snapshot.serverUuid().toString());
            }
            v.put("gtid_executed", executed);
            v.put("gtid_purged", purged);
        }
        return v;
    }

    /** One variable; null when it does not exist. */
    String get(String name, BinlogSnapshot snapshot, DumpSession session, boolean global) {
        String key = name.toLowerCase(Locale.ROOT);
        if (!global && session != null && session.sessionVariable(key) != null) {
            return session.sessionVariable(key);
        }
        return all(snapshot).get(key);
    }
}
