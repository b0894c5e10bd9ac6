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
 */
public record ShardConfig(int index, String name, String host, int port, String user, String password, boolean tls) {

    @Override
    public String toString() {
        return "ShardConfig[" + index + " " + name + " " + user + "@" + host + ":" + port + (tls ? " tls" : "") + "]";
    }
}
