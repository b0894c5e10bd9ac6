/**
 * The dump server: the global binlog served over the MySQL replication protocol to replicas,
 * {@code mysqlbinlog}/{@code mariadb-binlog} and CDC clients ({@link io.tributary.daemon.dump.DumpServer}).
 * Plain Java on Netty; the daemon wires it to its configuration and the {@code GlobalBinlogWriter}.
 */
package io.tributary.daemon.dump;
