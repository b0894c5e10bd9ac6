package io.tributary.core.reader;

import io.netty.channel.Channel;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bounded hand-over between a connection's event loop (producer) and the reader's delivery
 * thread (consumer). Holds events and, after the last event of a connection, that connection's
 * failure.
 *
 * <p>Full-buffer policy: block the source. The producer never waits (an event loop must not); once
 * the buffer holds {@code maxEvents} events or {@code maxBytes} event bytes it turns the channel's
 * {@code autoRead} off, so the socket is no longer read and TCP flow control stops the shard. The
 * consumer turns it back on when the buffer has drained to half of both limits. What arrives
 * between the limit and the pause (the rest of one socket read, at most one partly received
 * packet) is still accepted, so the bound is the limit plus one read.
 *
 * <p>Thread-safe.
 */
final class ShardEventBuffer {
    private final int maxEvents;
    private final long maxBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final ArrayDeque<Object> items = new ArrayDeque<>();
    private int events;
    private long bytes;
    private Channel paused;
    private long pauses;
    private int peakEvents;
    private long peakBytes;

    ShardEventBuffer(int maxEvents, long maxBytes) {
        this.maxEvents = maxEvents;
        this.maxBytes = maxBytes;
    }

    /** Adds an event (on the event loop) and pauses reading from {@code channel} when full. */
    void offerEvent(ShardEvent event, Channel channel) {
        lock.lock();
        try {
            items.addLast(event);
            events++;
            bytes += event.eventSize();
            peakEvents = Math.max(peakEvents, events);
            peakBytes = Math.max(peakBytes, bytes);
            if ((events >= maxEvents || bytes >= maxBytes) && paused == null) {
                paused = channel;
                pauses++;
                channel.config().setAutoRead(false);
            }
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Adds the end of a connection's stream. */
    void offerFailure(Throwable cause) {
        lock.lock();
        try {
            items.addLast(new Failure(cause));
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
    }

    /** The next {@link ShardEvent} or {@link Failure}, or {@code null} after {@code timeoutMs}. */
    Object poll(long timeoutMs) throws InterruptedException {
        lock.lock();
        try {
            long nanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (items.isEmpty()) {
                if (nanos <= 0) {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            Object item = items.removeFirst();
            if (item instanceof ShardEvent e) {
                events--;
                bytes -= e.eventSize();
                if (paused != null && events <= maxEvents / 2 && bytes <= maxBytes / 2) {
                    paused.config().setAutoRead(true);
                    paused = null;
                }
            }
            return item;
        } finally {
            lock.unlock();
        }
    }

    /** Releases everything still held (at shutdown). */
    void clear() {
        lock.lock();
        try {
            for (Object item : items) {
                if (item instanceof ShardEvent e) {
                    e.release();
                }
            }
            items.clear();
            events = 0;
            bytes = 0;
            paused = null;
        } finally {
            lock.unlock();
        }
    }

    /** Forgets a pause on a channel that is gone (the next connection starts reading normally). */
    void forgetChannel(Channel channel) {
        lock.lock();
        try {
            if (paused == channel) {
                paused = null;
            }
        } finally {
            lock.unlock();
        }
    }

    int events() {
        lock.lock();
        try {
            return events;
        } finally {
            lock.unlock();
        }
    }

    long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    /** Statistics since creation. */
    record Stats(int events, long bytes, int peakEvents, long peakBytes, long pauses) {
    }

    Stats stats() {
        lock.lock();
        try {
            return new Stats(events, bytes, peakEvents, peakBytes, pauses);
        } finally {
            lock.unlock();
        }
    }

    /** The end of one connection's stream. */
    record Failure(Throwable cause) {
    }
}
