package io.tributary.storage.merge;

import io.tributary.core.naming.LogicalNames;
import io.tributary.core.order.Emission;
import io.tributary.core.order.GlobalSorter;
import io.tributary.core.order.ShardCheckpoint;
import io.tributary.core.order.ShardUnit;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.reader.ShardPosition;
import io.tributary.storage.binlog.DurableMark;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.BufferedTransaction;
import io.tributary.storage.buffer.TransactionBuffer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The merge thread's work: one {@link ShardStreamAssembler} per shard, the {@link GlobalSorter}, the
 * {@link TransactionMerger} and the appends to the {@link GlobalBinlogWriter}. Once the writer reports a
 * transaction durable (its {@link io.tributary.storage.binlog.DurabilityTracker}, on the syncer thread), the
 * buffers of the shard transactions in it are released.
 *
 * <p>Built from one {@link ShardCheckpoint} per shard (the writer's recovered ones, or where each shard
 * starts): the sorter drops units named in {@code writtenAfter}, and their buffers are released here.
 *
 * <p>Threading: {@link #accept}, {@link #rewind}, {@link #offer} and {@link #close} from one thread (the
 * merge thread); the counters from any.
 */
public final class MergeStage implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MergeStage.class);

    private record Written(long sequence, List<BufferedTransaction> buffers) {
    }

    private final GlobalBinlogWriter writer;
    private final List<ShardCheckpoint> start;
    private final List<Set<String>> skip = new ArrayList<>();
    private final GlobalSorter<BufferedTransaction> sorter;
    private final TransactionMerger merger;
    private final List<ShardStreamAssembler> assemblers = new ArrayList<>();
    private final ArrayDeque<Written> undurable = new ArrayDeque<>();
    /** Payloads handed to the sorter and not yet released (what {@link #close} frees). */
    private final Set<BufferedTransaction> inFlight = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Consumer<DurableMark> onDurable = this::durable;
    private volatile long written;
    private volatile long units;

    /**
     * @param start     one checkpoint per shard, in shard index order (shard names from them)
     * @param writer    the global binlog, open
     * @param buffer    where transactions wait
     * @param naming    logical naming rules
     * @param xaMaxWait {@code cdc.xa.maxWait}
     */
    public MergeStage(List<ShardCheckpoint> start, GlobalBinlogWriter writer, TransactionBuffer buffer, LogicalNames naming,
            Duration xaMaxWait) {
        this.start = List.copyOf(start);
        this.writer = Objects.requireNonNull(writer, "writer");
        List<String> names = this.start.stream().map(ShardCheckpoint::shard).toList();
        for (int i = 0; i < this.start.size(); i++) {
            ShardCheckpoint cp = this.start.get(i);
            skip.add(new HashSet<>(cp.writtenAfter()));
            assemblers.add(new ShardStreamAssembler(i, cp.shard(), cp.resumeFrom(), buffer, this::offer));
        }
        this.sorter = new GlobalSorter<>(this.start, xaMaxWait);
        this.merger = new TransactionMerger(names, naming, c -> log.warn("{}", c.message()), writer.ddlHistory());
        writer.durability().addListener(onDurable);
    }

    /** The next event of shard {@code shard}; writes what may be written. */
    public void accept(int shard, ShardEvent event) {
        long before = units;
        assemblers.get(shard).accept(event);
        if (units != before) {
            drain(); // only a new unit can make something emittable
        }
    }

    /** Shard {@code shard}'s reader resumes at {@code restart}: its partial transaction is dropped. */
    public void rewind(int shard, ShardPosition restart) {
        assemblers.get(shard).rewind(restart);
    }

    /**
     * Offers a unit to the sorter (the assemblers do it for events; benchmarks and tests may add units such as
     * heartbeats directly) without writing yet; {@link #drain} writes.
     */
    public void offer(ShardUnit<BufferedTransaction> unit) {
        units++;
        BufferedTransaction payload = unit.payload();
        if (skip.get(unit.shard()).remove(unit.key()) && payload != null) {
            payload.release(); // written before the restart; the sorter drops it
        } else if (payload != null) {
            synchronized (inFlight) {
                inFlight.add(payload);
            }
        }
        if (unit.kind() == ShardUnit.Kind.XA_ROLLBACK) {
            // the assembler frees a rolled-back branch right after this call; forget those already freed
            synchronized (inFlight) {
                inFlight.removeIf(t -> t.state() == BufferedTransaction.State.RELEASED);
            }
        }
        sorter.offer(unit);
    }

    /** Writes every transaction the sorter may emit now. */
    public void drain() {
        for (Emission<BufferedTransaction> emission : sorter.drain()) {
            write(emission);
        }
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
        written++;
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

    /** Global transactions written so far. */
    public long transactionsWritten() {
        return written;
    }

    /** Shard units (transactions, XA parts, heartbeats) offered so far. */
    public long unitsOffered() {
        return units;
    }

    /** Units the sorter holds (queued or prepared). */
    public int waiting() {
        return sorter.waiting();
    }

    /** The checkpoints this stage started from, in shard order. */
    public List<ShardCheckpoint> startCheckpoints() {
        return start;
    }

    /**
     * Frees every buffer still held: partial transactions, units waiting in the sorter, transactions written
     * and not yet durable. They are read again after a restart from the recovered checkpoints.
     */
    @Override
    public void close() {
        for (ShardStreamAssembler a : assemblers) {
            a.close();
        }
        writer.durability().removeListener(onDurable);
        List<BufferedTransaction> held;
        synchronized (inFlight) {
            held = new ArrayList<>(inFlight);
            inFlight.clear();
        }
        held.forEach(BufferedTransaction::release);
        synchronized (undurable) {
            undurable.clear();
        }
        log.info("merge stage closed after {} global transactions ({} shard units); {} units still waited: {}",
                written, units, sorter.waiting(), sorter.describeWaiting());
    }
}
