package io.tributary.daemon.schema;

import io.tributary.core.naming.LogicalNames;
import io.tributary.core.schema.CreateTableText;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaDatabase;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.core.schema.SchemaTable;
import io.tributary.core.schema.SqlTypes;
import io.tributary.core.schema.TableDefinitionSource;
import io.tributary.core.schema.TableName;
import io.tributary.daemon.config.ShardConfig;
import io.tributary.daemon.config.ShardJdbc;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the logical schema from the shards, at the daemon's first start: every shard's databases (but the system
 * ones and the daemon's {@code __cdc__}) and base tables, their {@code SHOW CREATE DATABASE} / {@code SHOW CREATE
 * TABLE} read over JDBC and mapped to logical names by the naming rules. Shards are read in configuration order,
 * physical tables in name order; the first definition of a logical table is kept, and each physical table whose
 * definition differs from it is reported (a warning naming both, as the binlog's differing layouts are) and
 * returned in {@link Snapshot#conflicts()}. A table whose definition the schema cannot parse is reported and left
 * out.
 *
 * <p>It is also the {@link TableDefinitionSource} the merger asks when a DDL cannot be applied: the first physical
 * table of the logical table on the shard that wrote the statement; and the shards' time zones and row images, which rows
 * rewritten during a rollout may need. Thread-safe (a connection per call).
 */
public final class ShardSchemaReader implements TableDefinitionSource {

    private static final Logger log = LoggerFactory.getLogger(ShardSchemaReader.class);

    /** What the shards hold, and the physical tables that differ from the definition kept. */
    public record Snapshot(LogicalSchema schema, List<String> conflicts) {
    }

    private final List<ShardConfig> shards;
    private final LogicalNames names;
    private final SchemaDdl ddl;

    public ShardSchemaReader(List<ShardConfig> shards, LogicalNames names, SchemaDdl ddl) {
        this.shards = List.copyOf(shards);
        this.names = names;
        this.ddl = ddl;
    }

    /** Reads every shard. */
    public Snapshot read() throws SQLException {
        LogicalSchema schema = null;
        List<String> conflicts = new ArrayList<>();
        Map<TableName, String> firstSource = new LinkedHashMap<>();
        for (ShardConfig shard : shards) {
            try (Connection c = ShardJdbc.connect(shard); Statement st = c.createStatement()) {
                if (schema == null) {
                    try (ResultSet rs = st.executeQuery("SELECT @@character_set_server, @@collation_server")) {
                        rs.next();
                        schema = LogicalSchema.empty(SqlTypes.charset(rs.getString(1)), SqlTypes.collation(rs.getString(2)));
                    }
                }
                for (String db : databases(st)) {
                    String logicalDb = names.database(db);
                    if (schema.database(logicalDb).isEmpty()) {
                        schema = schema.withDatabase(database(st, db, logicalDb, schema));
                    }
                    for (String table : tables(st, db)) {
                        TableName logical = new TableName(logicalDb, names.table(table));
                        String source = shard.name() + " " + db + "." + table;
                        String text = showCreateTable(st, db, table);
                        SchemaTable t;
                        try {
                            t = ddl.parseCreateTable(schema, logicalDb, text).withName(logical);
                        } catch (RuntimeException e) {
                            log.warn("logical schema: {} left out: its definition cannot be read ({}): {}", source,
                                    e.getMessage(), text);
                            continue;
                        }
                        Optional<SchemaTable> known = schema.table(logical);
                        if (known.isEmpty()) {
                            schema = schema.withTable(t);
                            firstSource.put(logical, source);
                        } else if (!known.get().equals(t)) {
                            String msg = "logical table " + logical + ": " + source + " has\n"
                                    + CreateTableText.render(t, ddl.flavor()) + "\nbut " + firstSource.get(logical)
                                    + " has\n" + CreateTableText.render(known.get(), ddl.flavor())
                                    + "\nthe logical schema keeps the definition of " + firstSource.get(logical);
                            log.warn("{}", msg);
                            conflicts.add(msg);
                        }
                    }
                }
            }
        }
        if (schema == null) {
            throw new IllegalStateException("no shard configured");
        }
        log.info("logical schema built from {} shards: {} databases, {} tables{}", shards.size(),
                schema.databases().size(), schema.tables().size(),
                conflicts.isEmpty() ? "" : ", " + conflicts.size() + " physical tables differing from their logical table");
        return new Snapshot(schema, conflicts);
    }

    @Override
    public Optional<String> showCreateTable(String shard, TableName table) throws SQLException {
        ShardConfig config = shards.stream().filter(s -> s.name().equals(shard)).findFirst().orElse(null);
        if (config == null) {
            return Optional.empty();
        }
        try (Connection c = ShardJdbc.connect(config); Statement st = c.createStatement()) {
            for (String db : databases(st)) {
                if (!names.database(db).equals(table.database())) {
                    continue;
                }
                for (String t : tables(st, db)) {
                    if (names.table(t).equals(table.table())) {
                        return Optional.of(showCreateTable(st, db, t));
                    }
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<java.time.ZoneId> timeZone(String shard) throws SQLException {
        return askShard(shard, "SELECT @@global.time_zone, @@system_time_zone",
                rs -> io.tributary.core.naming.ShardServer.zone(rs.getString(1), rs.getString(2)));
    }

    @Override
    public Optional<String> rowImage(String shard) throws SQLException {
        return askShard(shard, "SELECT @@global.binlog_row_image", rs -> rs.getString(1));
    }

    /** A value read from the one row {@code sql} answers on {@code shard}; empty for a shard not configured. */
    private <T> Optional<T> askShard(String shard, String sql, RowReader<T> read) throws SQLException {
        ShardConfig config = shards.stream().filter(s -> s.name().equals(shard)).findFirst().orElse(null);
        if (config == null) {
            return Optional.empty();
        }
        try (Connection c = ShardJdbc.connect(config); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return Optional.ofNullable(read.read(rs));
        }
    }

    @FunctionalInterface
    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private static List<String> databases(Statement st) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = st.executeQuery("SHOW DATABASES")) {
            while (rs.next()) {
                String d = rs.getString(1);
                if (!LogicalSchema.SYSTEM_DATABASES.contains(d.toLowerCase(Locale.ROOT))) {
                    out.add(d);
                }
            }
        }
        out.sort(null);
        return out;
    }

    private static List<String> tables(Statement st, String db) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = st.executeQuery("SHOW FULL TABLES FROM " + quote(db) + " WHERE Table_type = 'BASE TABLE'")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        out.sort(null);
        return out;
    }

    private SchemaDatabase database(Statement st, String db, String logical, LogicalSchema schema) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM"
                + " information_schema.SCHEMATA WHERE SCHEMA_NAME = '" + db.replace("'", "''") + "'")) {
            if (rs.next()) {
                return new SchemaDatabase(logical, SqlTypes.charset(rs.getString(1)), SqlTypes.collation(rs.getString(2)));
            }
        }
        return new SchemaDatabase(logical, schema.charset(), schema.collation());
    }

    private static String showCreateTable(Statement st, String db, String table) throws SQLException {
        try (ResultSet rs = st.executeQuery("SHOW CREATE TABLE " + quote(db) + "." + quote(table))) {
            rs.next();
            return rs.getString(2);
        }
    }

    private static String quote(String id) {
        return "`" + id.replace("`", "``") + "`";
    }
}
