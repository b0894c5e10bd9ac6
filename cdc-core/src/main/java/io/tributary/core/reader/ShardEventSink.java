package io.tributary.core.reader;

import io.tributary.core.position.ShardPosition;

/**
 * Receives one shard's events, in binlog order, on the reader's own delivery thread
 * ({@code shard-reader-<shard>}). A sink may block: the reader then stops reading the socket once
 * its bounded buffer is full (back-pressure reaches the shard through TCP).
 *
 * <p><b>Partial transactions after a reconnect.</b> When the connection breaks in the middle of a
 * transaction, the reader calls {@link #onRewind} before anything else: the sink must discard the
 * events it received after {@code restartPosition} (the incomplete transaction's events). The
 * reader then resumes from {@code restartPosition} and delivers that transaction again from its
 * first event. Complete transactions are never delivered twice.
 */
public interface ShardEventSink {

    /** One event; the sink owns {@code event.bytes()} and must release it. */
    void onEvent(ShardEvent event) throws InterruptedException;

    /**
     * Discard the events received since the last transaction end; they will come again.
     *
     * @param restartPosition where the reader resumes (the last transaction end delivered)
     * @param discardedEvents how many events were delivered since then
     */
    default void onRewind(ShardPosition restartPosition, long discardedEvents) {
    }

    /** The reader stopped for good with this error (it is also the reader's termination cause). */
    default void onFailure(ShardReaderException error) {
    }
}
