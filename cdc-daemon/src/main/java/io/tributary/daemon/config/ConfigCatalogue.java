package io.tributary.daemon.config;

import io.tributary.core.config.ConfigKey;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.buffer.PersistConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Every key the daemon reads, by section, each declared once by its owner: {@code cdc.*} in {@link CdcKeys},
 * {@code storage.*} in {@link PersistConfig}, {@code binlog.*} in {@link BinlogConfig}, {@code dump.*} in
 * {@link DumpServerConfig}. {@link TributaryConfigLoader} reads the configuration section by section from it, and
 * {@link ConfigReference} generates the reference documentation from it.
 */
public final class ConfigCatalogue {

    /** The daemon keeps its global binlog in {@code data/binlog} unless told otherwise (the library requires it). */
    public static final ConfigKey<?> BINLOG_DIR = BinlogConfig.DIR.withDefault("data/binlog");

    /**
     * The keys under one prefix.
     *
     * @param prefix the keys' common prefix, with its dot ({@code storage.})
     * @param title  the section's heading in the reference documentation
     * @param intro  what the section configures
     * @param keys   its keys, in documentation order
     */
    public record Section(String prefix, String title, String intro, List<ConfigKey<?>> keys) {
        public Section {
            keys = List.copyOf(keys);
        }
    }

    private ConfigCatalogue() {
    }

    /** The sections, with the {@code storage.*} keys of {@code persist} (their defaults depend on the max heap). */
    public static List<Section> sections(PersistConfig persist) {
        List<ConfigKey<?>> binlog = new ArrayList<>(BinlogConfig.KEYS);
        binlog.set(binlog.indexOf(BinlogConfig.DIR), BINLOG_DIR);
        return List.of(
                new Section("cdc.", "cdc: shards, naming, ordering, daemon",
                        "The shards to read, how their names become logical names, the heartbeat and XA timing, and"
                                + " the daemon's own switches.", CdcKeys.KEYS),
                new Section("storage.", "storage: the transaction buffer and its spill",
                        "How much memory buffered transactions may take, and when they spill to disk (RocksDB)."
                                + " Live-editable keys change without a restart: PUT /admin/config/{key} on the"
                                + " management port, or SET GLOBAL on the dump port by an admin account.",
                        persist.keys()),
                new Section("binlog.", "binlog: the global binlog",
                        "Where and how the one global binlog is written, rotated, synced and purged.", binlog),
                new Section("dump.", "dump: the dump server",
                        "Replicas, mysqlbinlog/mariadb-binlog and CDC tools connect here as to one MySQL or MariaDB"
                                + " server (binlog.flavor decides which; @@server_id is binlog.server.id).",
                        DumpServerConfig.KEYS));
    }

    /** Every key of every section. */
    public static List<ConfigKey<?>> keys(PersistConfig persist) {
        return sections(persist).stream().flatMap(s -> s.keys().stream()).toList();
    }
}
