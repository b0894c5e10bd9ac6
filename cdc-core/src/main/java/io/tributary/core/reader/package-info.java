/**
 * Shard readers: one {@link io.tributary.core.reader.ShardReader} per shard connects as a replica
 * (Netty NIO, the {@code io.tributary.core.packet} codec), asks for the binlog from a file/position
 * or a GTID set, and hands every event on as raw bytes with the few facts read from its header and
 * its transaction {@link io.tributary.core.framing.Boundary} (framed once, here, by
 * {@link io.tributary.core.framing.TransactionFramer}), keeping the two positions of the style guide:
 * where the current event ends and where a restart resumes (moved only at transaction ends).
 *
 * <p>Reference: MySQL {@code sql/rpl_replica.cc} ({@code request_dump}), MariaDB {@code sql/slave.cc};
 * {@code ../shared/docs/PROTOCOL-NOTES.md}.
 */
package io.tributary.core.reader;
