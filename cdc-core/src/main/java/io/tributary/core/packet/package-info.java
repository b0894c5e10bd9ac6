/**
 * The MySQL client/server packet codec on Netty, shared by the shard readers (client side) and the
 * dump server (server side).
 *
 * <p>Two layers: {@link io.tributary.core.packet.MySqlPacketDecoder} and
 * {@link io.tributary.core.packet.MySqlPacketEncoder} frame payloads (3-byte length, sequence id,
 * payloads of 16 MB and more split at {@code 0xFFFFFF}); the message records
 * ({@link io.tributary.core.packet.HandshakeV10}, {@link io.tributary.core.packet.ComBinlogDump}, ...)
 * read and write one payload each, in both directions.
 *
 * <p>Reference: <a href="https://dev.mysql.com/doc/dev/mysql-server/latest/PAGE_PROTOCOL.html">MySQL
 * client/server protocol</a>; MariaDB's {@code sql/sql_repl.cc} for the dump commands.
 */
package io.tributary.core.packet;
