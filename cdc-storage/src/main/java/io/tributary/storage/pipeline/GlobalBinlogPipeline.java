package io.tributary.storage.pipeline;

import com.lmax.disruptor.dsl.ProducerType;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.reader.ShardEventSink;
import io.tributary.core.reader.ShardReader;
import io.tributary.core.reader.ShardReaderConfig;
import io.tributary.core.reader.ShardReaderException;
import io.tributary.storage.assembler.ShardStreamAssembler;
import io.tributary.storage.binlog.DurableCut;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.handoff.HandOff;
import io.tributary.storage.memory.MemoryBudget;
import io.tributary.storage.merge.MergeStage;
import io.tributary.storage.merge.ReadAheadGate;
import io.tributary.storage.merge.TransactionMerger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data path from the shards to the global binlog:
 * <pre>
 * shard readers (thread shard-reader-&lt;name&gt; each) --HandOff "merge" ring (MULTI producer, BLOCK)-->
 * merge thread: MergeStage = ShardStreamAssembler per shard -> GlobalSorter -> TransactionMerger
 *   --HandOff "global-binlog-append" ring (SINGLE producer, BLOCK)-->
 * append thread: the merged transaction's events read back, renamed and appended (writer.append)
 * binlog-syncer thread: once a transaction is durable, its buffers are released
 * </pre>
 *
 * <p><b>Start.</b> Each shard starts from the checkpoint the writer recovered for it (its
 * {@link ShardCheckpoint#resumeFrom()}; the sorter is built from the same checkpoints so it drops units in
 * {@code writtenAfter}), or, for a shard without one, from the reader configuration's start position.
 *
 * <p><b>Stop</b> ({@link #close}), in order: readers stop (no new events), the ring drains into the merge
 * thread, the merge stage frees what it still holds. The writer belongs to the caller, who closes it after
 * this; what was not written is read again after a restart, from the recovered checkpoints.
 *
 * <p><b>Failure.</b> A failing reader or merge step is kept in {@link #failure()} and logged; a failed merge
 * step makes the ring discard later items, so readers blocked on it are released.
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

    private record Rewind(int shard, ShardPosition restart) implements Item {
    }

    /**
     * Slots between the merge and the append thread. Merged transactions only point at buffers the
     * {@link TransactionBuffer} already counts, so the ring adds no memory of its own. The merge thread emits in
     * bursts (a closed heartbeat window at a time: with 16 busy shards, a thousand transactions and more); 8192
     * slots take such a burst without stopping it, while the append thread writes the previous one.
     */
    public static final int APPEND_RING = 8192;

    private final List<ShardReaderConfig> configs;
    private final MergeStage stage;
    private final List<ShardReader> readers = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final int ringSize;
    /**
     * Bytes of shard events the ring may hold at once ({@link MemoryBudget#mergeRing()}): the ring bounds events
     * by count, and with large rows (512 KB) a full ring of 4096 would be 2 GB, far beyond a small heap. Readers
     * wait above this (their own buffers then fill and they stop reading the socket); one event larger than it
     * passes alone.
     */
    private final long ringBytesLimit;
    private final Object ringBytesLock = new Object();
    private long ringBytes;
    /**
     * Items published and not yet released by the merge thread: a reader waits on {@link #ringBytesLock} while the
     * ring is full, instead of in the Disruptor's {@code next()}, which spins with 1 ns parks and, with 4 readers
     * behind a busy merge thread on 2 cores, took CPU from the very thread they waited for (issue 18).
     */
    private long ringItems;
    /**
     * Released by the merge thread at the end of each batch, not per event: the Disruptor frees the batch's slots
     * only then, so a reader let go earlier would spin in {@code next()} all the same (merge thread only).
     */
    private long releaseBytes;
    private int releaseItems;
    private volatile boolean closing;
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
        this(shards, recovered, writer, buffer, naming, xaMaxWait, ringSize,
                MemoryBudget.forThisJvm(shards.size()).mergeRing());
    }

    /**
     * @param ringBytes  bytes of shard events the readers' ring may hold ({@link MemoryBudget#mergeRing()})
     * @see #GlobalBinlogPipeline(List, Map, GlobalBinlogWriter, TransactionBuffer, LogicalNames, Duration, int)
     */
    public GlobalBinlogPipeline(List<ShardReaderConfig> shards, Map<String, ShardCheckpoint> recovered,
            GlobalBinlogWriter writer, TransactionBuffer buffer, LogicalNames naming, Duration xaMaxWait, int ringSize,
            long ringBytes) {
        if (ringBytes <= 0) {
            throw new IllegalArgumentException("merge ring bytes must be positive, got " + ringBytes);
        }
        this.ringBytesLimit = ringBytes;
        List<ShardCheckpoint> start = new ArrayList<>();
        List<ShardReaderConfig> resumed = new ArrayList<>();
        for (ShardReaderConfig c : shards) {
            ShardCheckpoint cp = recovered.get(c.shardName());
            if (cp == null) {
                cp = ShardCheckpoint.at(c.shardName(), c.startPosition());
            }
            start.add(cp);
            resumed.add(c.withStartPosition(cp.resumeFrom()));
        }
        this.configs = List.copyOf(resumed);
        this.ringSize = ringSize;
        this.stage = new MergeStage(start, writer, buffer, naming, xaMaxWait, APPEND_RING);
    }

    /** Connects every reader from its checkpoint and starts moving transactions to the writer. */
    public synchronized void start() {
        if (ring != null) {
            throw new IllegalStateException("pipeline already started");
        }
        ring = new HandOff<>("merge", ringSize, ProducerType.MULTI, this::handle);
        for (int i = 0; i < configs.size(); i++) {
            int shard = i;
            ShardReaderConfig config = configs.get(i);
            readers.add(new ShardReader(config, new ShardEventSink() {
                @Override
                public void onEvent(ShardEvent event) {
                    stage.readAheadGate().awaitTurn(shard);
                    publish(new Event(shard, event));
                }

                @Override
                public void onRewind(ShardPosition restartPosition, long discardedEvents) {
                    publish(new Rewind(shard, restartPosition));
                }

                @Override
                public void onFailure(ShardReaderException error) {
                    fail(error);
                }
            }));
            ShardCheckpoint cp = stage.startCheckpoints().get(i);
            log.info("shard {}: reading from {} ({} written after it)", cp.shard(), cp.resumeFrom(),
                    cp.writtenAfter().size());
        }
        readers.forEach(ShardReader::start);
    }

    private void publish(Item item) {
        long size = item instanceof Event ev ? ev.event().eventSize() : 0;
        acquireRing(size);
        try {
            ring.publish(item);
        } catch (IllegalStateException e) {
            releaseRing(size, 1);
            if (item instanceof Event ev) {
                ev.event().release();
            }
            throw e;
        }
    }

    /** Waits for a slot in the ring and, for an event, room for its bytes. */
    private void acquireRing(long size) {
        synchronized (ringBytesLock) {
            while (ringItems >= ringSize || size > 0 && ringBytes > 0 && ringBytes + size > ringBytesLimit) {
                if (closing || failure() != null) {
                    throw new IllegalStateException("global binlog pipeline is " + (closing ? "closing" : "stopped"));
                }
                try {
                    ringBytesLock.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for room in the merge ring", e);
                }
            }
            ringItems++;
            ringBytes += size;
        }
    }

    private void releaseRing(long size, int items) {
        synchronized (ringBytesLock) {
            ringBytes -= size;
            ringItems -= items;
            ringBytesLock.notifyAll();
        }
    }

    /** Runs on the merge thread; drains the sorter once per batch of waiting items (see {@link MergeStage#accept}). */
    private void handle(Item item, boolean endOfBatch) {
        try {
            releaseBytes += item instanceof Event e ? e.event().eventSize() : 0;
            releaseItems++;
            if (item instanceof Event e) {
                stage.accept(e.shard(), e.event(), endOfBatch);
            } else if (item instanceof Rewind r) {
                stage.rewind(r.shard(), r.restart());
                if (endOfBatch) {
                    stage.drain();
                }
            }
            if (endOfBatch) {
                // after the batch's drain: the Disruptor frees the batch's slots as this returns
                releaseRing(releaseBytes, releaseItems);
                releaseBytes = 0;
                releaseItems = 0;
            }
        } catch (RuntimeException | Error e) {
            fail(e);
            throw e;
        }
    }

    private void fail(Throwable t) {
        if (failure.compareAndSet(null, t)) {
            log.error("global binlog pipeline stopped: {}", t.toString(), t);
        }
    }

    /** The first failure (a reader's, the merge thread's or the append thread's), or null. */
    public Throwable failure() {
        Throwable appendFailure = stage.failure();
        if (appendFailure != null) {
            return appendFailure; // the cause, not the merge thread's "append stage failed" that follows it
        }
        Throwable f = failure.get();
        return f != null ? f : ring == null ? null : ring.failure();
    }

    /** How many times a shard reader waited for the others to catch up (bounded memory, {@link ReadAheadGate}). */
    public long readAheadHolds() {
        return stage.readAheadGate().holds();
    }

    /** Global transactions written so far. */
    public long transactionsWritten() {
        return stage.transactionsWritten();
    }

    /** Shard units (transactions, XA parts, heartbeats) assembled so far. */
    public long unitsAssembled() {
        return stage.unitsOffered();
    }

    /** Shards read, in index order. */
    public int shardCount() {
        return configs.size();
    }

    public String shardName(int shard) {
        return configs.get(shard).shardName();
    }

    /** What shard {@code shard}'s reader is doing (NEW before {@link #start}). */
    public synchronized ShardReader.State readerState(int shard) {
        return shard < readers.size() ? readers.get(shard).state() : ShardReader.State.NEW;
    }

    /** Connections shard {@code shard}'s reader has opened (1 + its reconnects). */
    public synchronized long readerConnections(int shard) {
        return shard < readers.size() ? readers.get(shard).connections() : 0;
    }

    /** Where shard {@code shard}'s reader is in the shard's binlog (what it has handed on). */
    public synchronized ShardPosition readerPosition(int shard) {
        return shard < readers.size() ? readers.get(shard).currentPosition() : configs.get(shard).startPosition();
    }

    /**
     * Where in shard {@code shard}'s binlog what the global binlog holds durably ends ({@link MergeStage#durableEnd});
     * before the first durable transaction, where the pipeline started reading it.
     */
    public ShardPosition durableEnd(int shard) {
        ShardPosition end = stage.durableEnd(shard);
        return end != null ? end : stage.startCheckpoints().get(shard).resumeFrom();
    }

    /**
     * The durable end of the global binlog with, per shard, how much of its binlog that holds ({@link
     * MergeStage#durableCut}); a shard with nothing durable yet reads through where the pipeline started reading it.
     */
    public DurableCut durableCut() {
        DurableCut cut = stage.durableCut();
        List<ShardPosition> through = new ArrayList<>(cut.readThrough());
        for (int i = 0; i < through.size(); i++) {
            if (through.get(i) == null) {
                through.set(i, stage.startCheckpoints().get(i).resumeFrom());
            }
        }
        return new DurableCut(cut.mark(), java.util.Collections.unmodifiableList(through),
                cut.lastTransactionEnd());
    }

    /** See {@link MergeStage#settledMillis}. */
    public long settledMillis(int shard) {
        return stage.settledMillis(shard);
    }

    /** DDL statements written with this outcome for the logical schema (any thread). */
    public long schemaOutcomes(TransactionMerger.SchemaOutcome outcome) {
        return stage.schemaOutcomes(outcome);
    }

    /** Where a table is read again when a DDL cannot be applied to the logical schema; set before {@link #start}. */
    public void tableDefinitions(io.tributary.core.schema.TableDefinitionSource source) {
        stage.tableDefinitions(source);
    }

    /** See {@link MergeStage#delayListener}; set before {@link #start}. */
    public void delayListener(MergeStage.DelayListener listener) {
        stage.delayListener(listener);
    }

    /** See {@link MergeStage#heartbeatsNeeded}: what the heartbeat writer asks before each beat (any thread). */
    public boolean heartbeatsNeeded() {
        return stage.heartbeatsNeeded();
    }

    /** See {@link MergeStage#onHeartbeatsNeeded}; set before {@link #start}. */
    public void onHeartbeatsNeeded(Runnable listener) {
        stage.onHeartbeatsNeeded(listener);
    }

    /** The checkpoints the pipeline started from, in shard order. */
    public List<ShardCheckpoint> startCheckpoints() {
        return stage.startCheckpoints();
    }

    /** Stops the readers, drains the ring into the writer, frees what the merge stage still holds. */
    @Override
    public synchronized void close() {
        closing = true;
        for (ShardReader r : readers) {
            r.close();
        }
        try {
            if (ring != null) {
                ring.close(Duration.ofSeconds(30));
            }
        } finally {
            stage.close();
        }
    }
}
