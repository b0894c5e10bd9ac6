/**
 * The checkpoint that ties the global binlog to the shards: the end of the last durable global
 * transaction with every shard's resume position ({@link io.tributary.storage.checkpoint.BinlogCheckpoint}),
 * stored atomically and durably ({@link io.tributary.storage.checkpoint.CheckpointFile}).
 */
package io.tributary.storage.checkpoint;
