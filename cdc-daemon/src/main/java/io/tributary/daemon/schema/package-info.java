/**
 * The logical schema's sources on the shards: the snapshot the daemon builds at its first start
 * ({@link io.tributary.daemon.schema.ShardSchemaReader}) and the table definitions it reads again when a DDL cannot
 * be applied.
 */
package io.tributary.daemon.schema;
