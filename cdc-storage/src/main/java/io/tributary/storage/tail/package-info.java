/**
 * The shared tail cache ({@link io.tributary.storage.tail.TailCache}): the newest durable part of the global binlog
 * in memory, fed by the {@link io.tributary.storage.binlog.GlobalBinlogWriter} as it writes (a
 * {@link io.tributary.storage.binlog.BinlogFeed}) and served to every subscriber near the tail.
 */
package io.tributary.storage.tail;
