package io.tributary.daemon.dump;

import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.DurableCut;
import io.tributary.storage.binlog.DurableMark;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The global binlog position the dump server answers to {@code SHOW MASTER STATUS}, {@code SHOW BINARY LOG STATUS},
 * {@code @@gtid_binlog_pos}, {@code @@gtid_executed} and the like once the daemon has shards and a running pipeline
 * (docs/architecture.md, "Snapshots and the stream"):
 * <ul>
 * <li>in a snapshot transaction ({@link SnapshotTransaction}): once the global binlog durably holds every shard up to
 * its snapshot position, the durable end G1 of that moment when no shard's transaction after its snapshot position is
 * in it yet (exact: the stream from there neither loses nor repeats anything), else the durable end G0 noted when the
 * transaction started (at-least-once: what committed between G0 and the snapshot is in both). The answer is kept: the
 * transaction's later questions get the same one;</li>
 * <li>outside one, a sync point: each shard's binlog end now ({@code SHOW MASTER STATUS} on the shard), then the
 * durable end once the global binlog holds every shard up to there: it covers everything committed on any shard
 * before the question, and nothing that was not committed when it was answered.</li>
 * </ul>
 * Waiting polls the pipeline's durable cut and asks for a heartbeat every {@link #NUDGE} while a shard is behind (its
 * binlog may end in events only a heartbeat lets the pipeline pass); on an idle cluster the cut is already there and
 * the answer costs one statement per shard. A shard that cannot be asked, or a wait longer than the limit, is an
 * error naming the shard ({@link Unavailable}) for a snapshot, and the unsynchronised durable end for a sync point. Thread-safe; the waits run on the dump
 * server's worker threads, never an event loop.
 */
final class StreamPositions {
    private static final Logger LOG = LoggerFactory.getLogger(StreamPositions.class);

    /** How long a position waits for the global binlog at most. */
    static final Duration WAIT = Duration.ofSeconds(30);
    /** How often a heartbeat is asked for while a shard is behind. */
    static final Duration NUDGE = Duration.ofMillis(100);
    private static final long POLL_NANOS = 2_000_000;

    /** A position that cannot be answered: a shard that cannot be asked, or a wait that timed out. */
    static final class Unavailable extends Exception {
        Unavailable(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }

    private final ShardSource source;
    private final StreamProgress progress;
    private final Duration wait;

    StreamPositions(ShardSource source, StreamProgress progress, Duration wait) {
        this.source = source;
        this.progress = progress;
        this.wait = wait;
    }

    /** Whether positions are synchronised with the shards (there are shards and the pipeline runs). */
    boolean active() {
        return !source.shards().isEmpty() && progress.cut() != null;
    }

    /** The durable end now; null while the pipeline is not running. */
    DurableMark durableEnd() {
        DurableCut cut = progress.cut();
        return cut == null ? null : cut.mark();
    }

    /**
     * The position for a client: its snapshot transaction's, else a sync point; a sync point that cannot be given (a
     * shard cannot be asked, the wait timed out) falls back to the durable end now, logged: whatever a shard committed
     * that the global binlog does not hold yet comes after it (at-least-once, as G0), so a client that only starts
     * streaming (Debezium's MariaDB connector reads positions in {@code SHOW VARIABLES} at every start) is not stopped
     * by a shard that is down. A snapshot needs every shard: its position fails instead.
     */
    DurableMark position(ClientHolds holds, long connectionId) throws Unavailable {
        SnapshotTransaction t = holds.snapshot();
        if (t != null) {
            return snapshotPosition(t, connectionId);
        }
        try {
            return syncPoint(holds, connectionId);
        } catch (Unavailable e) {
            DurableMark end = durableEnd();
            if (end == null) {
                throw e;
            }
            LOG.warn("dump connection {}: answering the durable end {} unsynchronised: {}", connectionId, end,
                    e.getMessage());
            return end;
        }
    }

    /** The position of a snapshot transaction (the first question decides; later ones get the same answer). */
    DurableMark snapshotPosition(SnapshotTransaction t, long connectionId) throws Unavailable {
        DurableMark known = t.answered();
        if (known != null) {
            return known;
        }
        DurableMark answer;
        if (t.start() == null) {
            throw new Unavailable("the global binlog was not open yet when the snapshot transaction started: start it"
                    + " again", null);
        }
        if (!t.exact()) {
            answer = t.start();
            LOG.info("dump connection {}: snapshot position {} (G0, the durable end when the snapshot started;"
                    + " at-least-once): the shards' snapshot positions are approximate (MySQL shards: {})",
                    connectionId, answer, t.shards());
        } else {
            SnapshotCut.Decision d = await(t.positions(), connectionId, "the snapshot");
            if (d.kind() == SnapshotCut.Kind.EXACT) {
                answer = d.cut().mark();
                LOG.info("dump connection {}: snapshot position {} (G1, exact: the global binlog holds every shard"
                        + " exactly up to its snapshot position; G0 was {}); shards {}", connectionId, answer, t.start(),
                        t.shards());
            } else {
                answer = t.start();
                int i = d.shard();
                LOG.info("dump connection {}: snapshot position {} (G0, at-least-once: shard {}'s transaction ending at"
                        + " {} is in the global binlog already, past its snapshot position {}; transactions between G0"
                        + " and the snapshot are in both); shards {}", connectionId, answer, source.shards().get(i),
                        d.cut().lastTransactionEnd().get(i), t.shards().get(i).position(), t.shards());
            }
        }
        t.answered(answer);
        return answer;
    }

    /** A sync point: the durable end once the global binlog holds every shard up to its binlog end now. */
    DurableMark syncPoint(ClientHolds holds, long connectionId) throws Unavailable {
        List<String> shards = source.shards();
        List<ShardPosition> ends = new ArrayList<>(shards.size());
        for (String shard : shards) {
            ShardPosition end = null;
            for (int attempt = 1; end == null; attempt++) {
                try {
                    Connection c = holds.positionConnection(shard, source);
                    try (Statement s = c.createStatement()) {
                        s.setQueryTimeout((int) Math.max(1, wait.toSeconds()));
                        end = SnapshotTransaction.binlogEnd(s);
                    }
                } catch (SQLException e) {
                    holds.dropPositionConnection(shard);
                    if (attempt == 2) { // the kept connection may have gone stale: a new one is tried once
                        throw new Unavailable("shard " + shard + " cannot be asked for its binlog position: "
                                + e.getMessage(), e);
                    }
                }
            }
            ends.add(end);
        }
        SnapshotCut.Decision d = await(ends, connectionId, "a sync point");
        LOG.debug("dump connection {}: sync point {} (shards' binlog ends {})", connectionId, d.cut().mark(), ends);
        return d.cut().mark();
    }

    /** Waits until the global binlog durably holds every shard up to {@code targets}. */
    private SnapshotCut.Decision await(List<ShardPosition> targets, long connectionId, String what)
            throws Unavailable {
        long start = System.nanoTime();
        long deadline = start + wait.toNanos();
        long nextNudge = start;
        while (true) {
            DurableCut cut = progress.cut();
            if (cut == null) {
                throw new Unavailable("the pipeline is not running: the global binlog cannot be matched with the"
                        + " shards", null);
            }
            SnapshotCut.Decision d;
            try {
                d = SnapshotCut.decide(targets, cut);
            } catch (IllegalArgumentException e) {
                throw new Unavailable(e.getMessage(), e);
            }
            if (d.kind() != SnapshotCut.Kind.BEHIND) {
                long waitedMs = (System.nanoTime() - start) / 1_000_000;
                if (waitedMs > 100) {
                    LOG.debug("dump connection {}: waited {} ms for the global binlog to hold {}", connectionId,
                            waitedMs, what);
                }
                return d;
            }
            long now = System.nanoTime();
            if (now - deadline > 0) {
                int i = d.shard();
                throw new Unavailable("shard " + source.shards().get(i) + ": the global binlog did not durably reach its"
                        + " binlog position " + targets.get(i).file() + ":" + targets.get(i).position() + " for " + what
                        + " within " + wait.toSeconds() + " s (it holds it up to " + position(cut.readThrough().get(i))
                        + "; is its reader connected?)", null);
            }
            if (now - nextNudge >= 0) {
                progress.nudge();
                nextNudge = now + NUDGE.toNanos();
            }
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.currentThread().isInterrupted()) {
                throw new Unavailable("interrupted while waiting for the global binlog to hold " + what, null);
            }
        }
    }

    private static String position(ShardPosition p) {
        return p == null ? "nothing yet" : p.file() + ":" + p.position();
    }
}
