package io.tributary.storage.handoff;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.EventFactory;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.ExceptionHandler;
import com.lmax.disruptor.PhasedBackoffWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One bounded hand-over between pipeline stages: an LMAX Disruptor ring of {@code ringSize} slots and
 * one consumer thread named {@code <name>-<n>}.
 *
 * <p><b>Full-queue policy: BLOCK.</b> {@link #publish} waits while the ring is full, so a slow stage
 * holds back the one before it (a blocked shard reader is the back-pressure); discarding would lose
 * events and bypassing would reorder them. Items reach the consumer in publication order.
 *
 * <p>Slots come from a factory constant and are cleared after the consumer ran, so no item (a large
 * transaction) stays reachable from the ring.
 *
 * <p>A consumer that throws puts the hand-over in a terminal FAILED state: the failure is kept, later
 * items are discarded (so producers blocked on a full ring are released) and every later
 * {@link #publish} throws it. {@link #close} drains what was published, then stops the thread, within a
 * time limit.
 *
 * @param <T> the item handed over
 */
public final class HandOff<T> implements AutoCloseable {

    private static final class Slot<T> {
        T item;
    }

    @SuppressWarnings("rawtypes")
    private static final EventFactory SLOT_FACTORY = Slot::new;

    private final String name;
    private final Disruptor<Slot<T>> disruptor;
    private final RingBuffer<Slot<T>> ring;
    private volatile Throwable failure;
    private volatile boolean closed;

    /**
     * @param name      the stage's name, for its thread and errors
     * @param ringSize  slots in the ring, a power of two
     * @param producers SINGLE when one thread publishes, MULTI when several (the shard readers)
     * @param consumer  the next stage; runs on this hand-over's thread
     */
    public HandOff(String name, int ringSize, ProducerType producers, Consumer<? super T> consumer) {
        this(name, ringSize, producers, batchOf(consumer));
    }

    /** A consumer told, with each item, whether it is the last one available now (the end of a batch). */
    @FunctionalInterface
    public interface BatchConsumer<T> {
        /**
         * @param item       the next item
         * @param endOfBatch true when no further item was published when this one was taken: work that
         *                   pays off once for many items (a full scan) can wait until then
         */
        void accept(T item, boolean endOfBatch);
    }

    /** How the consumer waits for items, and so what each {@link #publish} costs the producer. */
    public enum Waiting {
        /**
         * The consumer blocks on a lock until woken; every publish takes that lock to wake it. Nothing is spent
         * while idle. For hand-offs of a few thousand items a second.
         */
        BLOCKING,
        /**
         * The consumer spins briefly, then yields for up to {@link #YIELD_NANOS}, then blocks until woken; a publish
         * writes the slot and wakes the consumer only when it is blocked (an atomic flag, no lock otherwise). For
         * the hot hand-off between two busy threads (hundreds of thousands of items a second), where taking a lock
         * per item, contended by the other side, costs more than the item's work. An idle consumer costs nothing:
         * it used to sleep 1 ms at a time, a thousand wake-ups a second, 2 % of a core on an idle daemon (issue 19).
         */
        SPINNING;

        /** How long a consumer with nothing to do spins and yields before it blocks. */
        static final long YIELD_NANOS = 50_000;

        WaitStrategy strategy() {
            return this == BLOCKING ? new BlockingWaitStrategy()
                    : PhasedBackoffWaitStrategy.withLiteLock(0, YIELD_NANOS, TimeUnit.NANOSECONDS);
        }
    }

    private static <T> BatchConsumer<T> batchOf(Consumer<? super T> consumer) {
        Objects.requireNonNull(consumer, "consumer");
        return (item, endOfBatch) -> consumer.accept(item);
    }

    /**
     * As {@link #HandOff(String, int, ProducerType, Consumer)}, the consumer also told where each batch of
     * items that were waiting together ends (a stage that falls behind gets large batches).
     */
    public HandOff(String name, int ringSize, ProducerType producers, BatchConsumer<? super T> consumer) {
        this(name, ringSize, producers, Waiting.BLOCKING, consumer);
    }

    /** As {@link #HandOff(String, int, ProducerType, BatchConsumer)}, waiting as {@code waiting} says. */
    @SuppressWarnings("unchecked")
    public HandOff(String name, int ringSize, ProducerType producers, Waiting waiting, BatchConsumer<? super T> consumer) {
        this.name = Objects.requireNonNull(name, "name");
        Objects.requireNonNull(consumer, "consumer");
        if (ringSize < 1 || Integer.bitCount(ringSize) != 1) {
            throw new IllegalArgumentException("Invalid value " + ringSize + " for ring size of " + name
                    + ": must be a power of two");
        }
        AtomicInteger threads = new AtomicInteger();
        disruptor = new Disruptor<Slot<T>>((EventFactory<Slot<T>>) SLOT_FACTORY, ringSize, r -> {
            Thread t = new Thread(r, name + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, producers, waiting.strategy());
        EventHandler<Slot<T>> handler = (slot, sequence, endOfBatch) -> {
            T item = slot.item;
            slot.item = null;
            if (failure == null) {
                consumer.accept(item, endOfBatch);
            }
        };
        disruptor.handleEventsWith(handler);
        disruptor.setDefaultExceptionHandler(new ExceptionHandler<Slot<T>>() {
            @Override
            public void handleEventException(Throwable ex, long sequence, Slot<T> slot) {
                slot.item = null;
                if (failure == null) {
                    failure = ex;
                }
            }

            @Override
            public void handleOnStartException(Throwable ex) {
                failure = ex;
            }

            @Override
            public void handleOnShutdownException(Throwable ex) {
                if (failure == null) {
                    failure = ex;
                }
            }
        });
        ring = disruptor.start();
    }

    /**
     * Hands {@code item} to the next stage, waiting while the ring is full.
     *
     * @throws IllegalStateException when the next stage failed (with its failure as the cause) or the
     *         hand-over is closed
     */
    public void publish(T item) {
        Objects.requireNonNull(item, "item");
        checkUsable();
        long seq = ring.next();
        try {
            ring.get(seq).item = item;
        } finally {
            ring.publish(seq);
        }
    }

    /** Slots free right now. */
    public long remainingCapacity() {
        return ring.remainingCapacity();
    }

    public int ringSize() {
        return ring.getBufferSize();
    }

    /** The consumer's failure, or null. */
    public Throwable failure() {
        return failure;
    }

    private void checkUsable() {
        Throwable f = failure;
        if (f != null) {
            throw new IllegalStateException("stage " + name + " failed; it accepts no more items: " + f, f);
        }
        if (closed) {
            throw new IllegalStateException("stage " + name + " is closed");
        }
    }

    /** Lets the consumer finish what was published, then stops its thread; gives up after {@code timeout}. */
    public void close(Duration timeout) {
        closed = true;
        try {
            disruptor.shutdown(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            disruptor.halt();
            throw new IllegalStateException("stage " + name + " did not drain within " + timeout + "; halted", e);
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    @Override
    public String toString() {
        return "HandOff[" + name + ", ring=" + ring.getBufferSize() + ", free=" + ring.remainingCapacity()
                + (failure == null ? "" : ", FAILED: " + failure) + "]";
    }
}
