/**
 * Storage layer: the transaction buffer and its RocksDB spill store, the global binlog files
 * (writer, reader, index, rotation, purge, recovery) and the checkpoint that ties output to shard
 * positions. Built so far: {@code buffer} (transaction buffer, RocksDB spill, {@code storage.*} keys) and
 * {@code pipeline} (Disruptor hand-overs between stages); the binlog files and checkpoints arrive with
 * their issue (see README, "Status").
 */
package io.tributary.storage;
