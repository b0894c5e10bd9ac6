package io.tributary.storage.buffer;

/**
 * A transaction did not fit the buffer's memory limit and spilling is off ({@code storage.isPersistOn=false}):
 * the clear error that replaces an out-of-memory error. Names the shard, the transaction and the limit.
 */
public final class TransactionBufferFullException extends RuntimeException {

    private final String shard;
    private final String transaction;
    private final long limitBytes;

    public TransactionBufferFullException(String shard, String transaction, long limitBytes, String message) {
        super(message);
        this.shard = shard;
        this.transaction = transaction;
        this.limitBytes = limitBytes;
    }

    public String shard() {
        return shard;
    }

    public String transaction() {
        return transaction;
    }

    public long limitBytes() {
        return limitBytes;
    }
}
