package io.tributary.core.reader;

/** The shard refused our credentials (or our authentication method). Not retried. */
public final class ShardAuthenticationException extends ShardReaderException {
    private final String user;
    private final String hostPort;

    public ShardAuthenticationException(String shard, String user, String hostPort, String detail, Throwable cause) {
        super(shard, "authentication failed for user '" + user + "' at " + hostPort + ": " + detail, false, cause);
        this.user = user;
        this.hostPort = hostPort;
    }

    public String user() {
        return user;
    }

    public String hostPort() {
        return hostPort;
    }
}
