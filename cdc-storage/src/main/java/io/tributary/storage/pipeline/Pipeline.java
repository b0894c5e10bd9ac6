package io.tributary.storage.pipeline;

import com.lmax.disruptor.dsl.ProducerType;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The stages of the data path wired in one place: shard readers (many producers) hand items to the
 * middle stage (the sorter/merger) through one bounded ring; the middle stage emits results to the last
 * stage (the global binlog writer) through a second. Both rings block when full ({@link HandOff}), so a
 * slow writer holds back the sorter, which holds back the readers.
 *
 * <p>Threads: {@code <name>-sort-1} runs the middle stage, {@code <name>-write-1} the last. Shutdown is
 * ordered: the first ring drains into the middle stage, then the second into the last stage.
 *
 * @param <I> what readers publish
 * @param <O> what the middle stage emits
 */
public final class Pipeline<I, O> implements AutoCloseable {

    /** The middle stage: consumes one item, emits any number of results, in order, on its own thread. */
    @FunctionalInterface
    public interface Stage<I, O> {
        void accept(I item, Consumer<O> emit);
    }

    private final HandOff<O> toLast;
    private final HandOff<I> toMiddle;

    /**
     * @param name     names the threads
     * @param ringSize slots of each ring, a power of two
     * @param middle   the middle stage
     * @param last     the last stage
     */
    public Pipeline(String name, int ringSize, Stage<I, O> middle, Consumer<? super O> last) {
        Objects.requireNonNull(middle, "middle");
        this.toLast = new HandOff<>(name + "-write", ringSize, ProducerType.SINGLE, last);
        this.toMiddle = new HandOff<>(name + "-sort", ringSize, ProducerType.MULTI,
                item -> middle.accept(item, toLast::publish));
    }

    /** Hands an item to the middle stage; blocks while its ring is full. Any thread. */
    public void publish(I item) {
        toMiddle.publish(item);
    }

    /** The first failure of either stage, or null. */
    public Throwable failure() {
        Throwable f = toMiddle.failure();
        return f != null ? f : toLast.failure();
    }

    /** Ordered shutdown: drain the first ring, then the second, each within {@code timeout}. */
    public void close(Duration timeout) {
        try {
            toMiddle.close(timeout);
        } finally {
            toLast.close(timeout);
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }
}
