package io.tributary.storage.binlog;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.transaction.DdlHistory;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the writer has handed to the operating system, shared with the syncer: the segment and end of the
 * last complete transaction, its GTID sequence number, and every shard's checkpoint as of that
 * transaction. The writer updates it once per transaction, after the transaction's last byte is
 * written; the syncer takes consistent snapshots, so a checkpoint it stores never names a transaction
 * beyond the bytes it has fsynced.
 *
 * <p>Thread-safe (one lock).
 */
final class WrittenState {

    /** A consistent view of the written end. */
    record Snapshot(long version, BinlogSegment segment, long position, long lastSequence, Map<String, ShardCheckpoint> shards,
            DdlHistory ddl) {
        BinlogPosition binlogPosition() {
            return new BinlogPosition(segment.name(), position);
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /**
     * Signalled only by {@link #close}: {@link #pause} waits on it, not on {@link #changed}, so a pausing syncer is
     * not woken by every transaction written.
     */
    private final Condition closed = lock.newCondition();
    private final Map<String, ShardCheckpoint> shards;
    private BinlogSegment segment;
    private long position;
    private long lastSequence;
    private DdlHistory ddl;
    private long version;
    private boolean closing;

    WrittenState(BinlogSegment segment, long position, long lastSequence, Map<String, ShardCheckpoint> shards,
            DdlHistory ddl) {
        this.ddl = ddl;
        this.segment = segment;
        this.position = position;
        this.lastSequence = lastSequence;
        this.shards = new LinkedHashMap<>(shards);
    }

    /**
     * A transaction ended at {@code newPosition} in {@code newSegment}; {@code newDdl} is its DDL history, null when
     * unchanged.
     */
    void advance(BinlogSegment newSegment, long newPosition, long sequence, Collection<ShardCheckpoint> checkpoints,
            DdlHistory newDdl) {
        lock.lock();
        try {
            if (newDdl != null) {
                ddl = newDdl;
            }
            segment = newSegment;
            position = newPosition;
            lastSequence = sequence;
            for (ShardCheckpoint c : checkpoints) {
                shards.put(c.shard(), c);
            }
            version++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    long version() {
        lock.lock();
        try {
            return version;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the state has changed since {@code seenVersion} or {@link #close} was called.
     *
     * @return the new version, or {@code seenVersion} when closing with nothing new
     */
    long awaitChange(long seenVersion) throws InterruptedException {
        lock.lock();
        try {
            while (version == seenVersion && !closing) {
                changed.await();
            }
            return version;
        } finally {
            lock.unlock();
        }
    }

    /** Sleeps up to {@code d}, returning early when closing. */
    void pause(Duration d) throws InterruptedException {
        long nanos = d.toNanos();
        lock.lock();
        try {
            while (nanos > 0 && !closing) {
                nanos = closed.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    Snapshot snapshot() {
        lock.lock();
        try {
            return new Snapshot(version, segment, position, lastSequence, Map.copyOf(shards), ddl);
        } finally {
            lock.unlock();
        }
    }

    /** The DDL history of the last transaction written (or of the checkpoint the writer opened on). */
    DdlHistory ddl() {
        lock.lock();
        try {
            return ddl;
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closing = true;
            changed.signalAll();
            closed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean closing() {
        lock.lock();
        try {
            return closing;
        } finally {
            lock.unlock();
        }
    }
}
