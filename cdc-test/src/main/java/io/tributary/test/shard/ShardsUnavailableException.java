package io.tributary.test.shard;

/**
 * The requested shards cannot run on this machine at all (for example MySQL shards without a Docker
 * engine). Tests turn this into a skip that carries the reason; it is never a pass.
 */
public final class ShardsUnavailableException extends RuntimeException {
    public ShardsUnavailableException(String reason) {
        super(reason);
    }
}
