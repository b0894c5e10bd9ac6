/**
 * Storage layer: the transaction buffer and its RocksDB spill store, the global binlog files
 * (writer, reader, index, rotation, purge, recovery) and the checkpoint that ties output to shard
 * positions. Not built yet: the packages arrive with the storage issues (see README, "Status").
 */
package io.tributary.storage;
