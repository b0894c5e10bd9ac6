package io.tributary.storage.merge;

import com.lmax.disruptor.dsl.ProducerType;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.order.Emission;
import io.tributary.core.order.GlobalSorter;
import io.tributary.core.order.ShardCheckpoint;
import io.tributary.core.order.ShardUnit;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.reader.ShardEventSink;
import io.tributary.core.reader.ShardPosition;
import io.tributary.core.reader.ShardReader;
import io.tributary.core.reader.ShardReaderConfig;
import io.tributary.core.reader.ShardReaderException;
import io.tributary.storage.binlog.DurableMark;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.BufferedTransaction;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.pipeline.HandOff;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data path from the shards to the global binlog:
 * <pre>
 * shard readers (one thread each) --HandOff ring (MULTI producer, BLOCK)--> merge thread:
 *     ShardStreamAssembler per shard -> GlobalSorter -> TransactionMerger -> GlobalBinlogWriter.append
 * binlog-syncer thread: once a transaction is durable, its buffers are released
 * </pre>
 *
 * <p><b>Start.</b> Each shard starts from the checkpoint the writer recovered for it (its
 * {@link ShardCheckpoint#resumeFrom()}; the sorter is built from the same checkpoints so it drops units in
 * {@code writtenAfter}), or, for a shard without one, from the reader configuration's start position.
 *
 * <p><b>Stop</b> ({@link #close}), in order: readers stop (no new events), the ring drains into the merge
 * thread, the assemblers free partial transactions. The writer belongs to the caller, who closes it after
 * this; what the sorter still held is read again after a restart, from the recovered checkpoints.
 *
 * <p><b>Failure.</b> A failing reader or merge step stops the flow: {@link #failure()} returns it; the
 * ring discards later items so readers blocked on it are released.
 *
 * <p>Threading: {@link #start} and {@link #close} from one controlling thread; the getters from any.
 */
public final class GlobalBinlogPipeline implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GlobalBinlogPipeline.class);

    /** What the readers hand to the merge thread. */
    private sealed interface Item permits Event, Rewind {
    }

    private record Event(int shard, ShardEvent event) implements Item {
    }

    private record Rewind(int shard, ShardPosition restart, long discarded) implements Item {
    }

    private record Written(long sequence, List<BufferedTransaction> buffers) {
    }

    private final List<ShardReaderConfig> configs;
    private final List<String> names;
    private final GlobalBinlogWriter writer;
    private final TransactionBuffer buffer;
    private final List<ShardCheckpoint> start = new ArrayList<>();
    private final List<Set<String>> skip = new ArrayList<>();
    private final GlobalSorter<BufferedTransaction> sorter;
    private final TransactionMerger merger;
    private final List<ShardStreamAssembler> assemblers = new ArrayList<>();
    private final List<ShardReader> readers = new ArrayList<>();
    private final ArrayDeque<Written> undurable = new ArrayDeque<>();
    /** Payloads handed to the sorter and not yet released (what {@link #close} frees). */
    private final Set<BufferedTransaction> inFlight = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    private final Consumer<DurableMark> onDurable = this::durable;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong units = new AtomicLong();
    private final int ringSize;
    private HandOff<Item> ring;

    /**
     * @param shards     reader configuration of every shard, in shard index order (distinct server ids)
     * @param recovered  the writer's recovered checkpoints by shard name (empty for a fresh binlog)
     * @param writer     the global binlog, open
     * @param buffer     where transactions wait
     * @param naming     logical naming rules
     * @param xaMaxWait  {@code cdc.xa.maxWait}
     * @param ringSize   slots of the readers' ring (a power of two)
     */
    public GlobalBinlogPipeline(List<ShardReaderConfig> shards, Map<String, ShardCheckpoint> recovered,
            GlobalBinlogWriter writer, TransactionBuffer buffer, LogicalNames naming, Duration xaMaxWait, int ringSize) {
        this.configs = List.copyOf(shards);
        this.names = configs.stream().map(ShardReaderConfig::shardName).toList();
        this.writer = Objects.requireNonNull(writer, "writer");
        this.buffer = Objects.requireNonNull(buffer, "buffer");
        this.ringSize = ringSize;
        for (ShardReaderConfig c : configs) {
            ShardCheckpoint cp = recovered.get(c.shardName());
            if (cp == null) {
                cp = ShardCheckpoint.at(c.shardName(), c.startPosition());
            }
            start.add(cp);
            skip.add(new HashSet<>(cp.writtenAfter()));
        }
        this.sorter = new GlobalSorter<>(start, xaMaxWait);
        this.merger = new TransactionMerger(this.names, naming, c -> log.warn("{}", c.message()));
    }

    /** Connects every reader from its checkpoint and starts moving transactions to the writer. */
    public synchronized void start() {
        if (ring != null) {
            throw new IllegalStateException("pipeline already started");
        }
        writer.durability().addListener(onDurable);
        ring = new HandOff<>("merge", ringSize, ProducerType.MULTI, this::handle);
        for (int i = 0; i < configs.size(); i++) {
            int shard = i;
            ShardCheckpoint cp = start.get(i);
            assemblers.add(new ShardStreamAssembler(i, names.get(i), cp.resumeFrom(), buffer, this::offer));
            ShardReader reader = new ShardReader(configs.get(i).withStartPosition(cp.resumeFrom()), new ShardEventSink() {
                @Override
                public void onEvent(ShardEvent event) {
                    publish(new Event(shard, event));
                }

                @Override
                public void onRewind(ShardPosition restartPosition, long discardedEvents) {
                    publish(new Rewind(shard, restartPosition, discardedEvents));
                }

                @Override
                public void onFailure(ShardReaderException error) {
                    fail(error);
                }
            });
            readers.add(reader);
            log.info("shard {}: reading from {} ({} written after it)", names.get(i), cp.resumeFrom(),
                    cp.writtenAfter().size());
        }
        readers.forEach(ShardReader::start);
    }

    private void publish(Item item) {
        try {
            ring.publish(item);
        } catch (IllegalStateException e) {
            if (item instanceof Event ev) {
                ev.event().release();
            }
            throw e;
        }
    }

    /** Runs on the merge thread. */
    private void handle(Item item) {
        try {
            if (item instanceof Event e) {
                assemblers.get(e.shard()).accept(e.event());
            } else if (item instanceof Rewind r) {
                assemblers.get(r.shard()).rewind(r.restart());
            }
            for (Emission<BufferedTransaction> emission : sorter.drain()) {
                write(emission);
            }
        } catch (RuntimeException | Error e) {
            fail(e);
            throw e;
        }
    }

    private void offer(ShardUnit<BufferedTransaction> unit) {
        units.incrementAndGet();
        BufferedTransaction payload = unit.payload();
        if (skip.get(unit.shard()).remove(unit.key()) && payload != null) {
            payload.release(); // written before the restart; the sorter drops it
        } else if (payload != null) {
            synchronized (inFlight) {
                inFlight.add(payload);
            }
        }
        if (unit.kind() == ShardUnit.Kind.XA_ROLLBACK) {
            // the assembler frees the rolled-back branch right after this call; forget freed ones
            synchronized (inFlight) {
                inFlight.removeIf(t -> t.state() == BufferedTransaction.State.RELEASED);
            }
        }
        sorter.offer(unit);
    }

    private void write(Emission<BufferedTransaction> emission) {
        Optional<TransactionMerger.MergedTransaction> merged = merger.merge(emission);
        if (merged.isEmpty()) {
            return;
        }
        TransactionMerger.MergedTransaction txn = merged.get();
        long sequence;
        try {
            sequence = writer.append(txn);
        } catch (IOException e) {
            throw new UncheckedIOException("global binlog: cannot write " + txn.provenance(), e);
        }
        written.incrementAndGet();
        synchronized (undurable) {
            undurable.addLast(new Written(sequence, txn.buffers()));
        }
        durable(writer.durability().current());
    }

    /** Releases the buffers of every transaction the durable mark covers. */
    private void durable(DurableMark mark) {
        List<Written> done = new ArrayList<>();
        synchronized (undurable) {
            while (!undurable.isEmpty() && undurable.peekFirst().sequence() <= mark.lastSequence()) {
                done.add(undurable.pollFirst());
            }
        }
        for (Written w : done) {
            for (BufferedTransaction t : w.buffers()) {
                t.release();
                synchronized (inFlight) {
                    inFlight.remove(t);
                }
            }
        }
    }

    private void fail(Throwable t) {
        if (failure.compareAndSet(null, t)) {
            log.error("global binlog pipeline stopped: {}", t.toString(), t);
        }
    }

    /** The first failure (a reader's or the merge thread's), or null. */
    public Throwable failure() {
        Throwable f = failure.get();
        return f != null ? f : ring == null ? null : ring.failure();
    }

    /** Global transactions written so far. */
    public long transactionsWritten() {
        return written.get();
    }

    /** Shard units (transactions, XA parts, heartbeats) assembled so far. */
    public long unitsAssembled() {
        return units.get();
    }

    /** The checkpoints the pipeline started from, in shard order. */
    public List<ShardCheckpoint> startCheckpoints() {
        return List.copyOf(start);
    }

    /** Stops the readers, drains the ring into the writer, frees partial transactions. */
    @Override
    public synchronized void close() {
        for (ShardReader r : readers) {
            r.close();
        }
        if (ring != null) {
            ring.close(Duration.ofSeconds(30));
        }
        for (ShardStreamAssembler a : assemblers) {
            a.close();
        }
        writer.durability().removeListener(onDurable);
        List<BufferedTransaction> held;
        synchronized (inFlight) {
            held = new ArrayList<>(inFlight);
            inFlight.clear();
        }
        // waiting in the sorter, or written and not yet durable: read again after a restart
        held.forEach(BufferedTransaction::release);
        synchronized (undurable) {
            undurable.clear();
        }
        log.info("global binlog pipeline stopped after {} transactions ({} shard units); {} units still waited: {}",
                written.get(), units.get(), sorter.waiting(), sorter.describeWaiting());
    }
}
