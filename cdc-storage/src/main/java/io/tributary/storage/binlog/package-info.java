/**
 * The global binlog files: {@link io.tributary.storage.binlog.GlobalBinlogWriter} (framing, GTIDs,
 * rotation, write errors), {@link io.tributary.storage.binlog.BinlogSyncer} (group commit: fsync, then
 * checkpoint, then publish the durable mark), {@link io.tributary.storage.binlog.BinlogRecovery} (the
 * startup pass), {@link io.tributary.storage.binlog.BinlogFileReader} (tailing for subscribers, never
 * past the durable mark), {@link io.tributary.storage.binlog.BinlogIndex} and purge. Configuration:
 * {@link io.tributary.storage.binlog.BinlogConfig}; file names: {@link io.tributary.storage.binlog.BinlogFiles}.
 *
 * <p>Startup: {@code RecoveredBinlog r = BinlogRecovery.recover(config);} resume every shard reader from
 * {@code r.shardCheckpoints()}, then {@code GlobalBinlogWriter.open(config, r, clock)}.
 */
package io.tributary.storage.binlog;
