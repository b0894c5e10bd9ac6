package io.tributary.core.heartbeat;

/**
 * The heartbeat table could not be created or written on a shard at start: names the shard, the
 * account, the missing privilege (when the server says which) and how to grant it.
 */
public final class HeartbeatSetupException extends RuntimeException {

    private final String shard;
    private final String missingPrivilege;

    public HeartbeatSetupException(String shard, String missingPrivilege, String message, Throwable cause) {
        super(message, cause);
        this.shard = shard;
        this.missingPrivilege = missingPrivilege;
    }

    public String shard() {
        return shard;
    }

    /** The privilege the account lacks ({@code CREATE}, {@code INSERT}, {@code UPDATE}), or null if not a privilege problem. */
    public String missingPrivilege() {
        return missingPrivilege;
    }
}
