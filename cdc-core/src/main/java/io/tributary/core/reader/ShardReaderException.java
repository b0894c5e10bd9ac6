package io.tributary.core.reader;

/**
 * A shard reader error. {@link #retriable()} tells whether the reader reconnects after it (network
 * errors, a shard restart) or stops (wrong credentials, a purged position, a corrupt event).
 */
public class ShardReaderException extends RuntimeException {
    private final String shard;
    private final boolean retriable;

    public ShardReaderException(String shard, String message, boolean retriable, Throwable cause) {
        super("shard " + shard + ": " + message, cause);
        this.shard = shard;
        this.retriable = retriable;
    }

    public String shard() {
        return shard;
    }

    public boolean retriable() {
        return retriable;
    }
}
