package io.tributary.storage.merge;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps a catch-up in bounded memory (issue 18). While the transaction buffer holds more than its read-ahead mark,
 * only the shard the others wait for (the one least far in the global order) reads on: reading the others further
 * would only fill the buffer with transactions that cannot be written yet, and then spill them. Its mark is half the
 * buffer's spill threshold ({@code storage.persistNewThreshold} of {@code storage.memoryLimit}), so closed
 * transactions are written, not spilled; transactions open or waiting for XA branches may still spill.
 *
 * <p>The gate never stops everything: it closes for the others only while the shard waited for makes progress
 * (each time it does, the hold is renewed for {@value #HOLD_MS} ms); a shard waited for that reads nothing (its
 * reader at the end of its binlog, no heartbeat yet) opens it again after that time. A reader held waits at most
 * {@value #MAX_WAIT_MS} ms per event, so its server connection keeps moving.
 *
 * <p>Threading: {@link #update} from the merge thread, {@link #awaitTurn} from the shard readers.
 */
public final class ReadAheadGate {

    /** How long a hold lasts without news from the merge thread (renewed while the shard waited for progresses). */
    static final long HOLD_MS = 1_000;
    /** How long a reader waits for one event at most. */
    static final long MAX_WAIT_MS = 10_000;

    /** The shard that may read while the gate is closed; -1 when it is open. */
    private volatile int reading = -1;
    private volatile long holdUntilNanos;
    private final AtomicLong holds = new AtomicLong();

    /**
     * Called after each drain.
     *
     * @param over       whether the buffer holds more than its read-ahead mark
     * @param behind     the shard the others wait for
     * @param progressed whether that shard's reader handed on a unit since the last call
     */
    void update(boolean over, int behind, boolean progressed) {
        if (!over) {
            reading = -1;
            return;
        }
        if (reading != behind || progressed) {
            holdUntilNanos = System.nanoTime() + HOLD_MS * 1_000_000;
            reading = behind;
        }
    }

    /** On a reader's thread before it hands on an event of {@code shard}: waits while the gate is closed to it. */
    public void awaitTurn(int shard) {
        int r = reading;
        if (r < 0 || r == shard) {
            return;
        }
        long start = System.nanoTime();
        long giveUp = start + MAX_WAIT_MS * 1_000_000;
        boolean held = false;
        while (true) {
            r = reading;
            long now = System.nanoTime();
            if (r < 0 || r == shard || now - holdUntilNanos > 0 || now - giveUp > 0 || Thread.currentThread().isInterrupted()) {
                break;
            }
            held = true;
            LockSupport.parkNanos(1_000_000);
        }
        if (held) {
            holds.incrementAndGet();
        }
    }

    /** How many times a reader waited at the gate. */
    public long holds() {
        return holds.get();
    }
}
