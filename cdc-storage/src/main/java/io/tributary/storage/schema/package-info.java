/**
 * The logical schema's durable history ({@link io.tributary.storage.schema.SchemaHistory}): one entry per DDL
 * written to the global binlog (and one snapshot from the shards at the first start), appended before the
 * checkpoint that covers it and cut back to the checkpoint at start, so the schema always agrees with the durable
 * binlog.
 */
package io.tributary.storage.schema;
