package io.tributary.storage.binlog;

import io.tributary.storage.checkpoint.BinlogCheckpoint;
import io.tributary.storage.checkpoint.CheckpointFile;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes written transactions durable, in this order, and only then publishes them:
 * <ol>
 * <li>take a consistent snapshot of the written end ({@link WrittenState}): segment, end offset, last
 *     GTID sequence, every shard's checkpoint as of that transaction;</li>
 * <li>fsync the segment (skipped with {@code binlog.sync=none});</li>
 * <li>store the checkpoint for exactly that end ({@link CheckpointFile}: temp file, fsync, atomic rename,
 *     fsync of the directory);</li>
 * <li>publish the end on the {@link DurabilityTracker}, waking subscribers.</li>
 * </ol>
 * Because the checkpoint is written after the bytes it names are durable, it never points past durable
 * data; because the mark is published after the checkpoint, nothing a subscriber has seen lies beyond the
 * checkpoint recovery will find. Recovery truncates whatever follows the checkpoint: those bytes were
 * never published, and the shard readers resume from the checkpoint and deliver those transactions again.
 *
 * <p>Group commit: with {@code commit} a new cycle starts as soon as something was written, and
 * everything written during the previous fsync is covered by the next one. With {@code interval} a
 * cycle starts at most every {@code binlog.sync.interval}. With {@code none} a cycle starts at most every
 * {@link #UNSYNCED_CYCLE}: with no fsync to wait for, back-to-back cycles would spend most of a core rewriting
 * the checkpoint file while transactions stream in. A failed cycle marks the binlog DOWN and is
 * retried every {@code binlog.io.retry.interval}.
 *
 * <p>Runs on its own thread, {@code binlog-syncer}.
 */
final class BinlogSyncer implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(BinlogSyncer.class);

    /** Shortest cycle with {@code binlog.sync=none}. */
    static final Duration UNSYNCED_CYCLE = Duration.ofMillis(1);

    private final WrittenState written;
    private final CheckpointFile checkpointFile;
    private final DurabilityTracker tracker;
    private final BinlogHealthState health;
    private final SyncPolicy policy;
    private final Duration interval;
    private final Duration retryInterval;
    /** Version of the written state last made durable; the state's version at construction is durable. */
    private long synced;
    private volatile Throwable fatal;

    BinlogSyncer(WrittenState written, CheckpointFile checkpointFile, DurabilityTracker tracker, BinlogHealthState health,
            BinlogConfig config) {
        this.written = written;
        this.checkpointFile = checkpointFile;
        this.tracker = tracker;
        this.health = health;
        this.policy = config.sync();
        this.interval = config.syncInterval();
        this.retryInterval = config.ioRetryInterval();
        this.synced = written.version();
    }

    /** An unexpected error that ended the thread, or null. */
    Throwable fatal() {
        return fatal;
    }

    @Override
    public void run() {
        try {
            while (true) {
                long version = written.awaitChange(synced);
                if (version == synced) {
                    return; // closing, nothing left
                }
                long started = System.nanoTime();
                WrittenState.Snapshot s = written.snapshot();
                if (sync(s)) {
                    synced = s.version();
                    if (policy == SyncPolicy.INTERVAL) {
                        written.pause(interval.minusNanos(System.nanoTime() - started));
                    } else if (policy == SyncPolicy.NONE) {
                        written.pause(UNSYNCED_CYCLE.minusNanos(System.nanoTime() - started));
                    }
                } else if (written.closing()) {
                    return;
                } else {
                    written.pause(retryInterval);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            fatal = e;
            health.down(BinlogHealthState.Part.SYNC, "syncer stopped: " + e);
            log.error("binlog syncer stopped", e);
        }
    }

    /** One cycle; false when it failed (and the binlog is DOWN). */
    boolean sync(WrittenState.Snapshot s) {
        try {
            if (policy != SyncPolicy.NONE) {
                try {
                    s.segment().force();
                } catch (ClosedChannelException e) {
                    // the writer rotated away from this segment and forced it to its end before closing it
                }
            }
            checkpointFile.write(new BinlogCheckpoint(s.segment().name(), s.position(), s.lastSequence(), s.shards(), s.ddl()));
            tracker.publish(new DurableMark(s.binlogPosition(), s.lastSequence()));
            health.up(BinlogHealthState.Part.SYNC);
            return true;
        } catch (IOException e) {
            health.down(BinlogHealthState.Part.SYNC, "cannot make " + s.binlogPosition() + " durable: " + e);
            return false;
        }
    }
}
