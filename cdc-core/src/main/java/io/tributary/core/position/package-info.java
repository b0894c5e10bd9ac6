/**
 * Immutable positions that travel between the stages and threads: where a shard's binlog is read
 * ({@link io.tributary.core.position.ShardPosition}), where a shard resumes after a written transaction
 * ({@link io.tributary.core.position.ShardCheckpoint}), and the GTID-set types of both flavors
 * ({@link io.tributary.core.position.MySqlGtidSet}, {@link io.tributary.core.position.MariaDbGtidPosition}).
 */
package io.tributary.core.position;
