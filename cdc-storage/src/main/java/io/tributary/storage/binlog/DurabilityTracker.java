package io.tributary.storage.binlog;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The durable end of the global binlog, published by the syncer once the bytes are fsynced and the
 * checkpoint naming them is stored; it only moves forward. Subscribers block in {@link #awaitBeyond}
 * (no polling) or register a listener; nothing beyond the published mark may be served (invariant 6).
 *
 * <p>Thread-safe: one publisher, any number of waiters. Listeners run on the publisher's thread and must
 * not block.
 */
public final class DurabilityTracker {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition moved = lock.newCondition();
    private final List<Consumer<DurableMark>> listeners = new CopyOnWriteArrayList<>();
    private volatile DurableMark mark;

    public DurabilityTracker(DurableMark initial) {
        this.mark = Objects.requireNonNull(initial, "initial");
    }

    public DurableMark current() {
        return mark;
    }

    /**
     * Moves the mark forward; a mark not beyond the current one is ignored.
     *
     * @return whether the mark moved
     */
    public boolean publish(DurableMark next) {
        lock.lock();
        try {
            if (next.position().compareTo(mark.position()) <= 0 && next.lastSequence() <= mark.lastSequence()) {
                return false;
            }
            if (next.position().compareTo(mark.position()) < 0 || next.lastSequence() < mark.lastSequence()) {
                throw new IllegalStateException("durable mark may only move forward: " + mark + " -> " + next);
            }
            mark = next;
            moved.signalAll();
        } finally {
            lock.unlock();
        }
        for (Consumer<DurableMark> l : listeners) {
            l.accept(next);
        }
        return true;
    }

    /**
     * Waits until the durable position is beyond {@code position}, at most {@code timeout}.
     *
     * @return the mark then in force (not beyond {@code position} if the wait timed out)
     */
    public DurableMark awaitBeyond(BinlogPosition position, Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (mark.position().compareTo(position) <= 0 && nanos > 0) {
                nanos = moved.awaitNanos(nanos);
            }
            return mark;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every waiter, e.g. when the writer closes. */
    void wakeAll() {
        lock.lock();
        try {
            moved.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public void addListener(Consumer<DurableMark> listener) {
        listeners.add(listener);
    }

    public void removeListener(Consumer<DurableMark> listener) {
        listeners.remove(listener);
    }

    /** Waits until the last durable transaction has at least {@code sequence}. */
    public boolean awaitSequence(long sequence, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (mark.lastSequence() < sequence) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                moved.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
