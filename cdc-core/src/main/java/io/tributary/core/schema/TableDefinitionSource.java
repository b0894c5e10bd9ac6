package io.tributary.core.schema;

import java.util.Optional;

/**
 * Where a table's definition can be read again when a DDL statement cannot be applied to the logical schema: the
 * shard that wrote the statement ({@code SHOW CREATE TABLE} of one of its physical tables of the logical table).
 * What a shard holds now may be later than the statement's position, so this is a fallback, logged as such.
 */
@FunctionalInterface
public interface TableDefinitionSource {

    /** Nothing to ask: the table keeps its definition from before the statement. */
    TableDefinitionSource NONE = (shard, table) -> Optional.empty();

    /**
     * @param shard the shard that wrote the statement
     * @param table the logical table
     * @return the {@code SHOW CREATE TABLE} text of one of the shard's physical tables of it, or empty
     */
    Optional<String> showCreateTable(String shard, TableName table) throws Exception;

    /**
     * The time zone of a shard's server ({@code @@global.time_zone}; {@code SYSTEM}: {@code @@system_time_zone}), which
     * rows rewritten during a rollout need for a {@code DATETIME DEFAULT CURRENT_TIMESTAMP} or a TIMESTAMP literal
     * default; empty when there is none to ask.
     *
     * @throws IllegalStateException when the server's zone is not one Java knows (saying why)
     */
    default Optional<java.time.ZoneId> timeZone(String shard) throws Exception {
        return Optional.empty();
    }

    /**
     * A shard server's {@code @@global.binlog_row_image} ({@code FULL}, {@code NOBLOB}, {@code MINIMAL}), which says
     * which images of rows rewritten during a rollout get an added column; empty when there is none to ask.
     */
    default Optional<String> rowImage(String shard) throws Exception {
        return Optional.empty();
    }
}
