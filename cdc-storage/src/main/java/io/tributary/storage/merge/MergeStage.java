package io.tributary.storage.merge;

import com.lmax.disruptor.dsl.ProducerType;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.sorter.Emission;
import io.tributary.core.sorter.GlobalSorter;
import io.tributary.core.sorter.ShardUnit;
import io.tributary.storage.assembler.ShardStreamAssembler;
import io.tributary.storage.binlog.DurableCut;
import io.tributary.storage.binlog.DurableMark;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.buffer.BufferedTransaction;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.handoff.HandOff;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The merge thread's work: one {@link ShardStreamAssembler} per shard, the {@link GlobalSorter}, the
 * {@link TransactionMerger} and the appends to the {@link GlobalBinlogWriter}. Once the writer reports a
 * transaction durable (its {@link io.tributary.storage.binlog.DurabilityTracker}, on the syncer thread), the
 * buffers of the shard transactions in it are released.
 *
 * <p><b>Appends on their own thread.</b> Built with an append ring, the merge thread assembles, sorts and
 * merges (what to write, with which checkpoints), and hands each merged transaction, its shard commits
 * dated, to the thread {@code global-binlog-append-1} over a bounded Disruptor ring ({@link HandOff}, BLOCK):
 * that thread reads the transaction's buffered events back, renames them (global table ids) and appends them
 * to the writer. Sorting and writing then run on the machine's two cores at once; transactions are appended
 * in the order the sorter emitted them, so the output is the same byte for byte. Without the ring, all of it
 * runs on the merge thread. (Merging on the append thread too left the merge thread half idle: reading the
 * events back is the larger half.)
 *
 * <p>Built from one {@link ShardCheckpoint} per shard (the writer's recovered ones, or where each shard
 * starts): the sorter drops units named in {@code writtenAfter}, and their buffers are released here.
 *
 * <p>Threading: {@link #accept}, {@link #rewind}, {@link #offer}, {@link #drain}, {@link #awaitAppended} and
 * {@link #close} from one thread (the merge thread); the counters from any.
 */
public final class MergeStage implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MergeStage.class);

    private record Written(long sequence, List<BufferedTransaction> buffers, int[] shards, long[] commitMillis,
            ShardPosition[] ends) {
    }

    /**
     * A merged transaction on its way to the writer, with its shard commits dated on the merge thread and where
     * each ends in its shard's binlog.
     */
    private record Append(TransactionMerger.MergedTransaction txn, int[] shards, long[] commitMillis,
            ShardPosition[] ends) {
    }

    /**
     * Told on the writer's syncer thread when a shard transaction became durable in the global binlog: the
     * source of the delay metric (shard commit to durable global binlog).
     */
    @FunctionalInterface
    public interface DelayListener {
        /**
         * @param shard         shard index
         * @param commitMillis  when the shard committed it (ms since the epoch; see {@link MergeStage})
         * @param durableMillis when it became durable in the global binlog
         */
        void durable(int shard, long commitMillis, long durableMillis);
    }

    /** Heartbeats remembered per shard to date the commits between them; older ones are forgotten. */
    private static final int HEARTBEATS_KEPT = 4096;

    private final GlobalBinlogWriter writer;
    private final List<ShardCheckpoint> start;
    private final List<Set<String>> skip = new ArrayList<>();
    private final GlobalSorter<BufferedTransaction> sorter;
    private final TransactionMerger merger;
    private final List<ShardStreamAssembler> assemblers = new ArrayList<>();
    private final ArrayDeque<Written> undurable = new ArrayDeque<>();
    /**
     * Held while transactions the durable mark covers are released (on the syncer thread, or the append thread at
     * the end of a batch), and by {@link #close} while it frees what is left: close returns only once no release is
     * under way, so whoever closes the buffer and the spill store next does not race a range delete still running.
     */
    private final Object releasing = new Object();
    private final Consumer<DurableMark> onDurable = this::durable;
    private final List<ArrayDeque<long[]>> heartbeats = new ArrayList<>();
    private final long[] lastHeartbeat;
    private final AtomicLongArray settled;
    /** Per shard, where in its binlog what the global binlog holds durably ends (see {@link #durableEnd}). */
    private final AtomicReferenceArray<ShardPosition> durableEnd;
    /** Per shard, the end of its last transaction durable in the global binlog (see {@link #durableCut}). */
    private final AtomicReferenceArray<ShardPosition> durableTransactionEnd;
    /**
     * Held while the per-shard durable ends move and while {@link #durableCut} reads them with {@link #cutMark}, so that
     * a cut's mark and ends belong together: it covers taking transactions off {@link #undurable} and moving the ends
     * for them. Taken before {@code undurable}'s lock, never after it.
     */
    private final Object cutLock = new Object();
    /** The durable mark the per-shard durable ends stand for (guarded by {@link #cutLock}). */
    private DurableMark cutMark;
    /** Per shard, the end of the last unit offered (merge thread only). */
    private final ShardPosition[] offeredEnd;
    private volatile DelayListener delayListener = (shard, commit, durable) -> { };
    /** Whether, after the last drain, what the sorter holds waits for heartbeats ({@link #heartbeatsNeeded}). */
    private volatile boolean heartbeatsNeeded;
    private volatile Runnable onHeartbeatsNeeded = () -> { };
    /** Transactions appended to the writer (by the append thread, or by the merge thread without one). */
    private volatile long written;
    /** Null when appends run on the merge thread. */
    private final HandOff<Append> appends;
    /** Merged transactions handed to {@link #append} (merge thread only). */
    private long handedOff;
    /** {@link #units} at the last drain: a drain with no new unit since has nothing new to write. */
    private long unitsAtDrain = -1;
    private volatile long units;
    private final TransactionBuffer buffer;
    private final ReadAheadGate gate = new ReadAheadGate();
    /** Units offered per shard, and that count for the shard the others waited for at the last drain. */
    private final long[] unitsOf;
    private long behindUnitsAtDrain = -1;

    /**
     * @param start     one checkpoint per shard, in shard index order (shard names from them)
     * @param writer    the global binlog, open
     * @param buffer    where transactions wait
     * @param naming    logical naming rules
     * @param xaMaxWait {@code cdc.xa.maxWait}
     */
    public MergeStage(List<ShardCheckpoint> start, GlobalBinlogWriter writer, TransactionBuffer buffer, LogicalNames naming,
            Duration xaMaxWait) {
        this(start, writer, buffer, naming, xaMaxWait, 0);
    }

    /**
     * @param appendRing slots of the ring to the append thread (a power of two), or 0 to append on the merge
     *                   thread
     */
    public MergeStage(List<ShardCheckpoint> start, GlobalBinlogWriter writer, TransactionBuffer buffer, LogicalNames naming,
            Duration xaMaxWait, int appendRing) {
        this.start = List.copyOf(start);
        this.writer = Objects.requireNonNull(writer, "writer");
        this.buffer = Objects.requireNonNull(buffer, "buffer");
        this.unitsOf = new long[this.start.size()];
        List<String> names = this.start.stream().map(ShardCheckpoint::shard).toList();
        for (int i = 0; i < this.start.size(); i++) {
            ShardCheckpoint cp = this.start.get(i);
            skip.add(new HashSet<>(cp.writtenAfter()));
            assemblers.add(new ShardStreamAssembler(i, cp.shard(), cp.resumeFrom(), buffer, this::offer));
        }
        for (int i = 0; i < this.start.size(); i++) {
            heartbeats.add(new ArrayDeque<>());
        }
        this.lastHeartbeat = new long[this.start.size()];
        this.settled = new AtomicLongArray(this.start.size());
        this.durableEnd = new AtomicReferenceArray<>(this.start.size());
        this.durableTransactionEnd = new AtomicReferenceArray<>(this.start.size());
        this.cutMark = writer.durability().current();
        this.offeredEnd = new ShardPosition[this.start.size()];
        this.sorter = new GlobalSorter<>(this.start, xaMaxWait);
        this.merger = new TransactionMerger(names, naming, c -> log.warn("{}", c.message()), writer.ddlHistory(),
                writer.schemaHistory().latest(), new io.tributary.core.schema.SchemaDdl(writer.flavor()));
        writer.durability().addListener(onDurable);
        this.appends = appendRing == 0 ? null
                : new HandOff<>("global-binlog-append", appendRing, ProducerType.SINGLE,
                        HandOff.Waiting.SPINNING, (HandOff.BatchConsumer<Append>) this::append);
    }

    /** The next event of shard {@code shard}; writes what may be written. */
    public void accept(int shard, ShardEvent event) {
        accept(shard, event, true);
    }

    /**
     * The next event of shard {@code shard}; with {@code drainNow}, writes what may be written (as {@link
     * #drain}), else leaves that to a later call. A caller holding more events defers the drain to the last
     * of them: every drain scans what waits in the sorter (open XA groups included), so draining after each
     * of thousands of events while catching up a backlog costs time quadratic in the backlog. What is
     * written does not depend on when drains happen, only on the units offered.
     */
    public void accept(int shard, ShardEvent event, boolean drainNow) {
        assemblers.get(shard).accept(event);
        if (drainNow && units != unitsAtDrain) {
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
        unitsOf[unit.shard()]++;
        if (unit.end() != null) {
            offeredEnd[unit.shard()] = unit.end();
        }
        if (unit.kind() == ShardUnit.Kind.HEARTBEAT) {
            ArrayDeque<long[]> hb = heartbeats.get(unit.shard());
            if (hb.size() == HEARTBEATS_KEPT) {
                hb.pollFirst();
            }
            hb.addLast(new long[] {unit.sequence(), unit.heartbeat()});
            lastHeartbeat[unit.shard()] = unit.heartbeat();
        }
        BufferedTransaction payload = unit.payload();
        Set<String> written = skip.get(unit.shard());
        if (!written.isEmpty() && written.remove(unit.key()) && payload != null) {
            payload.release(); // written before the restart; the sorter drops it
        }
        sorter.offer(unit);
    }

    /** Writes every transaction the sorter may emit now. */
    public void drain() {
        unitsAtDrain = units;
        for (Emission<BufferedTransaction> emission : sorter.drain()) {
            write(emission);
        }
        paceReaders();
        boolean needed = sorter.needsHeartbeats();
        boolean was = heartbeatsNeeded;
        heartbeatsNeeded = needed;
        if (needed && !was) {
            onHeartbeatsNeeded.run();
        }
        if (written == handedOff) {
            synchronized (cutLock) {
                boolean durable;
                synchronized (undurable) {
                    durable = undurable.isEmpty();
                }
                if (durable) {
                    // everything written is durable and its ends moved (under this lock). A shard none of whose
                    // units waits in the sorter is durable up to everything read of it (the rest was heartbeats or
                    // dropped): its durable end moves there, also while another shard's XA transaction is open.
                    // When nothing waits at all, every shard is settled up to its last heartbeat.
                    boolean nothingWaits = sorter.waiting() == 0;
                    for (int i = 0; i < lastHeartbeat.length; i++) {
                        if (nothingWaits) {
                            settle(i, lastHeartbeat[i]);
                        }
                        if (nothingWaits || sorter.waiting(i) == 0) {
                            advanceDurableEnd(i, offeredEnd[i]);
                        }
                    }
                    moveCutMark(writer.durability().current());
                }
            }
        }
    }

    /**
     * Paces the readers (see {@link ReadAheadGate}): holds a shard far ahead in commit time of the one the others wait
     * for, and, while the buffer is above half its spill threshold, every shard but that one.
     */
    private void paceReaders() {
        int behind = sorter.furthestBehind();
        long least = sorter.progressMicros(behind);
        boolean over = buffer.memoryUsed() > buffer.settings().newThresholdBytes() / 2;
        boolean[] hold = new boolean[unitsOf.length];
        for (int i = 0; i < hold.length; i++) {
            hold[i] = i != behind && (over || sorter.progressMicros(i) - least > ReadAheadGate.READ_AHEAD_MICROS);
        }
        boolean progressed = unitsOf[behind] != behindUnitsAtDrain;
        behindUnitsAtDrain = unitsOf[behind];
        gate.update(hold, behind, progressed);
    }

    /** Where shard readers wait while the others catch up (see {@link ReadAheadGate}). */
    public ReadAheadGate readAheadGate() {
        return gate;
    }

    /**
     * Where in shard {@code shard}'s binlog what the global binlog holds durably ends: the end of its last durable
     * transaction, moved to the end of what was read whenever everything written is durable and none of the shard's
     * units waits in the sorter; null before the first. The shard binlog after it is what the daemon is behind by.
     */
    public ShardPosition durableEnd(int shard) {
        return durableEnd.get(shard);
    }

    /**
     * The global binlog's durable end together with, per shard, how much of the shard's binlog it holds: read at one
     * moment, so that up to {@code mark} the global binlog holds of shard i exactly its transactions that end at or
     * before {@code readThrough(i)}, the last of them ending at {@code lastTransactionEnd(i)} (null: none written
     * since the start). Both lists are in shard index order; a null read-through means the shard's start position
     * (nothing durable of it yet). Any thread.
     */
    public DurableCut durableCut() {
        synchronized (cutLock) {
            List<ShardPosition> through = new ArrayList<>(durableEnd.length());
            List<ShardPosition> last = new ArrayList<>(durableEnd.length());
            for (int i = 0; i < durableEnd.length(); i++) {
                through.add(durableEnd.get(i));
                last.add(durableTransactionEnd.get(i));
            }
            return new DurableCut(cutMark, java.util.Collections.unmodifiableList(through),
                    java.util.Collections.unmodifiableList(last));
        }
    }

    private void moveCutMark(DurableMark mark) {
        if (cutMark == null || mark.lastSequence() > cutMark.lastSequence()
                || mark.lastSequence() == cutMark.lastSequence() && mark.position().compareTo(cutMark.position()) > 0) {
            cutMark = mark;
        }
    }

    private void advanceDurableEnd(int shard, ShardPosition end) {
        advance(durableEnd, shard, end);
    }

    private static void advance(AtomicReferenceArray<ShardPosition> ends, int shard, ShardPosition end) {
        if (end == null || end.file() == null) {
            return;
        }
        ShardPosition prev;
        while (((prev = ends.get(shard)) == null || isBefore(prev, end)) && !ends.compareAndSet(shard, prev, end)) {
            // retry
        }
    }

    /** Binlog file names of one server sort in their order (a base name and a fixed-width number). */
    private static boolean isBefore(ShardPosition a, ShardPosition b) {
        int byFile = a.file().compareTo(b.file());
        return byFile < 0 || byFile == 0 && a.position() < b.position();
    }

    private void settle(int shard, long millis) {
        long prev;
        while ((prev = settled.get(shard)) < millis && !settled.compareAndSet(shard, prev, millis)) {
            // retry
        }
    }

    /**
     * When shard {@code unit.shard()} committed this unit, in ms: the later of its commit timestamp and the
     * last heartbeat before it in the shard's binlog. Where the source gives only seconds (MariaDB), the
     * heartbeat makes it exact to within one heartbeat interval.
     */
    private long commitMillis(ShardUnit<BufferedTransaction> unit) {
        ArrayDeque<long[]> hb = heartbeats.get(unit.shard());
        while (hb.size() > 1 && secondSequence(hb) < unit.sequence()) {
            hb.pollFirst();
        }
        long floor = !hb.isEmpty() && hb.peekFirst()[0] < unit.sequence() ? hb.peekFirst()[1] : 0;
        return Math.max(floor, unit.commitTimeMicros() / 1000);
    }

    private static long secondSequence(ArrayDeque<long[]> hb) {
        var it = hb.iterator();
        it.next();
        return it.next()[0];
    }

    /** Where durable shard transactions are reported (one listener; the daemon's delay metric). */
    /** DDL statements written with this outcome for the logical schema (any thread). */
    public long schemaOutcomes(TransactionMerger.SchemaOutcome outcome) {
        return merger.schemaOutcomes(outcome);
    }

    public void tableDefinitions(io.tributary.core.schema.TableDefinitionSource source) {
        merger.tableDefinitions(source);
    }

    public void delayListener(DelayListener listener) {
        this.delayListener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Whether, after the last drain, the sorter holds something that waits for heartbeats (see
     * {@link GlobalSorter#needsHeartbeats}): the heartbeat writer beats at its interval while it does, and slowly
     * otherwise. Any thread.
     */
    public boolean heartbeatsNeeded() {
        return heartbeatsNeeded;
    }

    /**
     * Told on the merge thread, at the end of a drain, when the sorter starts to hold something that waits for
     * heartbeats (nothing did after the drain before): the heartbeat writer beats at once. Must not block.
     */
    public void onHeartbeatsNeeded(Runnable listener) {
        this.onHeartbeatsNeeded = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Up to when shard {@code shard}'s commits are all durable in the global binlog (ms since the epoch; 0
     * before the first): advanced by durable transactions, and to the shard's last heartbeat whenever
     * nothing waits. {@code now - settledMillis} is the shard's current delay.
     */
    public long settledMillis(int shard) {
        return settled.get(shard);
    }

    private void write(Emission<BufferedTransaction> emission) {
        Optional<TransactionMerger.MergedTransaction> merged = merger.merge(emission);
        if (merged.isEmpty()) {
            return; // its buffers and checkpoints go with the next transaction written
        }
        List<ShardUnit<BufferedTransaction>> commits = emission instanceof Emission.Single<BufferedTransaction> single
                ? List.of(single.transaction()) : ((Emission.Distributed<BufferedTransaction>) emission).commits();
        int[] shards = new int[commits.size()];
        long[] commitMillis = new long[commits.size()];
        ShardPosition[] ends = new ShardPosition[commits.size()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = commits.get(i).shard();
            commitMillis[i] = commitMillis(commits.get(i));
            ends[i] = commits.get(i).end();
        }
        handedOff++;
        Append a = new Append(merged.get(), shards, commitMillis, ends);
        if (appends == null) {
            append(a, true);
        } else {
            appends.publish(a);
        }
    }

    /**
     * On the append thread (or the merge thread without one): writes the transaction. Until the end of a batch
     * (nothing more waits in the ring) the writer may hold it in its buffer: one write to the file for the
     * batch, not one per transaction.
     */
    private void append(Append a, boolean endOfBatch) {
        TransactionMerger.MergedTransaction txn = a.txn();
        try {
            long sequence;
            try {
                sequence = writer.append(txn, !endOfBatch);
            } catch (IOException e) {
                throw new UncheckedIOException("global binlog: cannot write " + txn.provenance(), e);
            }
            synchronized (undurable) {
                undurable.addLast(new Written(sequence, txn.buffers(), a.shards(), a.commitMillis(), a.ends()));
            }
        } catch (RuntimeException e) {
            throw appendFailed(e);
        }
        written++; // only this thread writes it
        if (endOfBatch) {
            // a mark the syncer published before these transactions were listed as undurable released nothing of
            // them: look again once per batch (every later mark looks too)
            durable(writer.durability().current());
        }
    }

    private RuntimeException appendFailed(RuntimeException e) {
        if (appends != null) {
            log.error("global binlog appends stopped: {}", e.toString(), e); // the merge thread learns of it later
        }
        return e;
    }

    /**
     * Waits until every merged transaction handed to the append thread is appended (at once without one).
     *
     * @throws IllegalStateException when the append thread failed
     */
    public void awaitAppended() {
        while (written != handedOff) {
            Throwable f = failure();
            if (f != null) {
                throw new IllegalStateException("global binlog appends failed: " + f, f);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        }
    }

    /** The append thread's failure (a write that failed), or null. */
    public Throwable failure() {
        return appends == null ? null : appends.failure();
    }

    /** Releases the buffers of every transaction the durable mark covers. */
    private void durable(DurableMark mark) {
        synchronized (releasing) {
            List<Written> done = new ArrayList<>();
            synchronized (cutLock) {
                synchronized (undurable) {
                    while (!undurable.isEmpty() && undurable.peekFirst().sequence() <= mark.lastSequence()) {
                        done.add(undurable.pollFirst());
                    }
                }
                for (Written w : done) {
                    for (int i = 0; i < w.shards().length; i++) {
                        advanceDurableEnd(w.shards()[i], w.ends()[i]);
                        advance(durableTransactionEnd, w.shards()[i], w.ends()[i]);
                    }
                }
                moveCutMark(mark);
            }
            long now = done.isEmpty() ? 0 : System.currentTimeMillis();
            DelayListener listener = delayListener;
            for (Written w : done) {
                for (int i = 0; i < w.shards().length; i++) {
                    settle(w.shards()[i], w.commitMillis()[i]);
                    listener.durable(w.shards()[i], w.commitMillis()[i], now);
                }
                for (BufferedTransaction t : w.buffers()) {
                    t.release();
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
        try {
            if (appends != null) {
                appends.close(Duration.ofSeconds(30)); // what was handed over is appended first
            }
        } finally {
            releaseHeld();
        }
    }

    private void releaseHeld() {
        writer.durability().removeListener(onDurable);
        sorter.forEachWaiting(BufferedTransaction::release);
        merger.carriedBuffers().forEach(BufferedTransaction::release);
        // a mark published just before the listener was removed may still be releasing on the syncer thread: wait
        // for it (a later one finds nothing left)
        synchronized (releasing) {
            List<Written> held;
            synchronized (undurable) {
                held = new ArrayList<>(undurable);
                undurable.clear();
            }
            for (Written w : held) {
                w.buffers().forEach(BufferedTransaction::release);
            }
        }
        log.info("merge stage closed after {} global transactions ({} shard units); {} units still waited",
                written, units, sorter.waiting());
        if (log.isDebugEnabled()) {
            log.debug("the sorter at close: {}", sorter.describeWaiting());
        }
    }
}
