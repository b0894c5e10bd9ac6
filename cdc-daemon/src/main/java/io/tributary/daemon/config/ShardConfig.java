package io.tributary.daemon.config;

/**
 * One shard as configured under {@code cdc.shards[i]}. The password is already resolved (from
 * {@code password} or the environment variable {@code password-env} names) and never printed.
 *
 * @param index    position in the list: the shard index that breaks ordering ties
 * @param name     unique name used in logs, metrics tags and checkpoints
 * @param host     host name or address
 * @param port     TCP port
 * @param user     account with REPLICATION SLAVE, REPLICATION CLIENT, SELECT and rights on {@code __cdc__}
 * @param password its password
 * @param tls      whether to connect with TLS
 * @param start    where the reader starts the first time ({@code cdc.shards[i].start}, default earliest)
 * @param readerServerId the server id the reader registers with on the shard ({@code cdc.shards[i].reader-server-id},
 *                 default {@code cdc.reader.server-id-base} + index); it must differ from every other replica's
 */
public record ShardConfig(int index, String name, String host, int port, String user, String password, boolean tls,
        ShardStart start, long readerServerId) {

    /** A shard read from the earliest binlog, with the default reader server id. */
    public ShardConfig(int index, String name, String host, int port, String user, String password, boolean tls) {
        this(index, name, host, port, user, password, tls, ShardStart.EARLIEST,
                TributaryConfigLoader.DEFAULT_READER_SERVER_ID_BASE + index);
    }

    @Override
    public String toString() {
        return "ShardConfig[" + index + " " + name + " " + user + "@" + host + ":" + port + (tls ? " tls" : "") + " start "
                + start + " reader-server-id " + readerServerId + "]";
    }
}
