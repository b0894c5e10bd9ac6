package io.tributary.storage.merge;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps a catch-up in bounded memory and the sorter's work small (issue 18). A shard reader is held while its shard
 * is more than {@value #READ_AHEAD_MICROS} microseconds of commit time ahead of the shard the others wait for (the
 * one least far in commit time), and, while the transaction buffer holds more than its read-ahead mark, every reader
 * but that one's is held: reading the others further would only fill the buffer with transactions that cannot be
 * written yet, and then spill them. The mark is half the buffer's spill threshold ({@code storage.persistNewThreshold}
 * of {@code storage.memoryLimit}), so closed transactions are written, not spilled; transactions open or waiting for
 * XA branches may still spill.
 *
 * <p>The gate never stops everything: a hold lasts {@value #HOLD_MS} ms and is renewed only while the shard waited
 * for makes progress; one that reads nothing (its reader at the end of its binlog, no heartbeat yet) lets the others
 * go after that time. A held reader waits at most {@value #MAX_WAIT_MS} ms per event, so its server connection keeps
 * moving. The order written never depends on it: only how far each reader has got.
 *
 * <p>Threading: {@link #update} from the merge thread, {@link #awaitTurn} from the shard readers.
 */
public final class ReadAheadGate {

    /** How far in commit time a shard may read ahead of the one the others wait for. */
    public static final long READ_AHEAD_MICROS = 3_000_000;
    /** How long a hold lasts without news from the merge thread (renewed while the shard waited for progresses). */
    static final long HOLD_MS = 1_000;
    /** How long a reader waits for one event at most. */
    static final long MAX_WAIT_MS = 10_000;

    /** Per shard, whether its reader waits; replaced whole, never changed in place. */
    private volatile boolean[] held = new boolean[0];
    private volatile long holdUntilNanos;
    private int behind = -1;
    private final AtomicLong holds = new AtomicLong();

    /**
     * Called after each drain.
     *
     * @param hold       per shard, whether its reader should wait now
     * @param behind     the shard the others wait for
     * @param progressed whether that shard's reader handed on a unit since the last call
     */
    void update(boolean[] hold, int behind, boolean progressed) {
        boolean any = false;
        for (boolean h : hold) {
            any |= h;
        }
        if (any && (behind != this.behind || progressed)) {
            holdUntilNanos = System.nanoTime() + HOLD_MS * 1_000_000;
        }
        this.behind = behind;
        held = any ? hold.clone() : new boolean[0];
    }

    /** On a reader's thread before it hands on an event of {@code shard}: waits while the gate holds it. */
    public void awaitTurn(int shard) {
        if (!isHeld(shard)) {
            return;
        }
        long giveUp = System.nanoTime() + MAX_WAIT_MS * 1_000_000;
        holds.incrementAndGet();
        while (isHeld(shard)) {
            long now = System.nanoTime();
            if (now - holdUntilNanos > 0 || now - giveUp > 0 || Thread.currentThread().isInterrupted()) {
                return;
            }
            LockSupport.parkNanos(500_000);
        }
    }

    private boolean isHeld(int shard) {
        boolean[] h = held;
        return shard < h.length && h[shard] && System.nanoTime() - holdUntilNanos < 0;
    }

    /** How many times a reader waited at the gate. */
    public long holds() {
        return holds.get();
    }
}
