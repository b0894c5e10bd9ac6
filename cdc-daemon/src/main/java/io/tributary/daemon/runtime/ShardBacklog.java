package io.tributary.daemon.runtime;

import io.tributary.core.position.ShardPosition;
import io.tributary.daemon.config.ShardConfig;
import io.tributary.daemon.config.ShardJdbc;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far behind its shards the daemon is, and whether it is catching up (issue 18, "Progress"). Every
 * {@link #POLL} it asks each shard for its binlog files ({@code SHOW BINARY LOGS}, one statement on a connection of
 * its own; the shard account already needs the privilege for it) and sets against them where what the global binlog
 * holds durably of that shard ends ({@code MergeStage.durableEnd}: its last durable transaction, or everything read
 * when nothing waits):
 * <ul>
 * <li><b>bytes behind</b>: the shard binlog bytes after that point (the rest of its file and every later file):
 * what the daemon has still to read, order and write, whether its reader has read it yet or not;</li>
 * <li><b>seconds behind</b>: now minus the time up to which the shard's commits are durable in the global binlog
 * (the delay of the status line), counted only while there are such bytes: a shard whose binlog is all in the
 * global binlog is not behind, however long ago its last commit;</li>
 * <li><b>time to catch up</b>: the bytes behind over the rate at which they fell over the last {@link #WINDOW}
 * polls; unknown while they do not fall (the shard writes as fast as the daemon reads, or the order waits).</li>
 * </ul>
 * A shard is <b>catching up</b> while it has bytes behind and is more than {@link #CATCHING_UP_MILLIS} behind
 * (or its first durable commit is still to come); the daemon is catching up while any shard is. The figures are
 * the status line's "catching up" part, the metrics {@code tributary.shard.behind.bytes},
 * {@code tributary.shard.behind.seconds}, {@code tributary.catchup.eta} and {@code tributary.catchup}, and the
 * {@code catchUp} health component (CATCHING_UP). A shard that cannot be asked has unknown figures (its reader's
 * own state says why, in the {@code shards} health component) and is logged once per outage.
 *
 * <p>Threading: one scheduler thread ({@code cdc-backlog}) polls; {@link #current} may be read from any thread.
 */
public final class ShardBacklog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ShardBacklog.class);

    /** How often the shards are asked. */
    public static final Duration POLL = Duration.ofSeconds(2);
    /** A shard with bytes to read and its durable commits more than this behind the clock is catching up. */
    public static final long CATCHING_UP_MILLIS = 5_000;
    /** Polls over which the rate of catching up is taken (30 s). */
    static final int WINDOW = 15;

    /** How far each shard's binlog is durable in the global binlog; the pipeline's view, one entry per shard. */
    public interface Progress {
        /**
         * Where in shard {@code shard}'s binlog what the global binlog holds durably ends; null when not known yet.
         */
        ShardPosition durableEnd(int shard);

        /** Up to when shard {@code shard}'s commits are durable (ms since the epoch; 0 before the first). */
        long settledMillis(int shard);
    }

    /** One binlog file of a shard, as {@code SHOW BINARY LOGS} lists it. */
    public record BinlogFile(String name, long size) {
    }

    /**
     * One shard's figures at the last poll.
     *
     * @param bytes      shard binlog bytes after the durable point; -1 when unknown (the shard could not be asked, or
     *                   the point's file is not listed)
     * @param seconds    how far its durable commits are behind the clock while it has bytes to read (0 when it has
     *                   none); NaN when unknown
     * @param etaSeconds estimated time until the global binlog holds all of it; NaN when unknown (bytes not
     *                   falling); 0 when nothing is left
     * @param catchingUp bytes behind and more than {@link #CATCHING_UP_MILLIS} behind
     * @param error      why the shard could not be asked at the last poll; null when it answered
     */
    public record Behind(String shard, long bytes, double seconds, double etaSeconds, boolean catchingUp, String error) {
    }

    private final List<ShardConfig> shards;
    private final Progress progress;
    private final LongSupplier clock;
    private final Connection[] connections;
    private final Deque<long[]>[] history;
    private final boolean[] failing;
    private volatile List<Behind> current;
    private ScheduledExecutorService scheduler;

    @SuppressWarnings("unchecked")
    public ShardBacklog(List<ShardConfig> shards, Progress progress, LongSupplier clock) {
        this.shards = List.copyOf(shards);
        this.progress = progress;
        this.clock = clock;
        this.connections = new Connection[shards.size()];
        this.history = new Deque[shards.size()];
        this.failing = new boolean[shards.size()];
        List<Behind> unknown = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) {
            history[i] = new ArrayDeque<>();
            unknown.add(new Behind(shards.get(i).name(), -1, Double.NaN, Double.NaN, false, "not polled yet"));
        }
        this.current = List.copyOf(unknown);
    }

    /** Starts polling (the first poll right away). */
    public synchronized ShardBacklog start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cdc-backlog");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                poll();
            } catch (RuntimeException e) {
                log.warn("polling the shards' binlog sizes failed: {}", e.toString());
            }
        }, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** The figures of the last poll, one per shard in configuration order. */
    public List<Behind> current() {
        return current;
    }

    /** Whether any shard is catching up (as of the last poll). */
    public boolean catchingUp() {
        return current.stream().anyMatch(Behind::catchingUp);
    }

    /** The longest estimated time to catch up over the shards that are catching up; NaN when unknown or none is. */
    public double etaSeconds() {
        double eta = Double.NaN;
        for (Behind b : current) {
            if (b.catchingUp()) {
                if (Double.isNaN(b.etaSeconds())) {
                    return Double.NaN;
                }
                eta = Double.isNaN(eta) ? b.etaSeconds() : Math.max(eta, b.etaSeconds());
            }
        }
        return eta;
    }

    /** Asks every shard once and replaces {@link #current}. */
    void poll() {
        List<Behind> next = new ArrayList<>(shards.size());
        for (int i = 0; i < shards.size(); i++) {
            List<BinlogFile> files = null;
            String error = null;
            try {
                files = binlogFiles(i);
                if (failing[i]) {
                    log.info("shard {}: its binlog sizes can be read again", shards.get(i).name());
                    failing[i] = false;
                }
            } catch (SQLException e) {
                closeConnection(i);
                error = e.getMessage();
                if (!failing[i]) {
                    log.warn("shard {}: cannot read its binlog sizes (SHOW BINARY LOGS), bytes behind unknown until it"
                            + " answers: {}", shards.get(i).name(), e.getMessage());
                    failing[i] = true;
                }
            }
            long now = clock.getAsLong();
            long bytes = files == null ? -1 : bytesBehind(files, progress.durableEnd(i));
            next.add(behind(shards.get(i).name(), bytes, progress.settledMillis(i), now, history[i], error));
        }
        current = List.copyOf(next);
    }

    private List<BinlogFile> binlogFiles(int shard) throws SQLException {
        if (connections[shard] == null) {
            connections[shard] = ShardJdbc.connect(shards.get(shard));
        }
        List<BinlogFile> files = new ArrayList<>();
        try (Statement s = connections[shard].createStatement()) {
            s.setQueryTimeout(5);
            try (ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
                while (rs.next()) {
                    files.add(new BinlogFile(rs.getString(1), rs.getLong(2)));
                }
            }
        }
        return files;
    }

    /**
     * The bytes of {@code files} after {@code position}: the rest of its file and all of every later one; -1 when
     * the position has no file or its file is not listed. A position past a size read a moment earlier counts as 0.
     */
    static long bytesBehind(List<BinlogFile> files, ShardPosition position) {
        if (position == null || position.file() == null || position.file().isEmpty()) {
            return -1;
        }
        long bytes = 0;
        boolean found = false;
        for (BinlogFile f : files) {
            if (found) {
                bytes += f.size();
            } else if (f.name().equals(position.file())) {
                found = true;
                bytes += Math.max(0, f.size() - position.position());
            }
        }
        return found ? bytes : -1;
    }

    /**
     * One shard's figures from its bytes behind now, when its commits are durable up to and its previous polls'
     * bytes ({@code history}: {time, bytes} pairs, oldest first, updated here).
     */
    static Behind behind(String shard, long bytes, long settledMillis, long nowMillis, Deque<long[]> history,
            String error) {
        if (bytes < 0) {
            history.clear();
            return new Behind(shard, -1, Double.NaN, Double.NaN, false, error);
        }
        history.addLast(new long[] {nowMillis, bytes});
        while (history.size() > WINDOW) {
            history.removeFirst();
        }
        if (bytes == 0) {
            return new Behind(shard, 0, 0, 0, false, error);
        }
        double seconds = settledMillis == 0 ? Double.NaN : Math.max(0, nowMillis - settledMillis) / 1000.0;
        boolean catchingUp = settledMillis == 0 || nowMillis - settledMillis > CATCHING_UP_MILLIS;
        long[] first = history.getFirst();
        double elapsed = (nowMillis - first[0]) / 1000.0;
        double falling = elapsed <= 0 ? 0 : (first[1] - bytes) / elapsed;
        double eta = falling > 0 ? bytes / falling : Double.NaN;
        return new Behind(shard, bytes, seconds, eta, catchingUp, error);
    }

    private void closeConnection(int shard) {
        Connection c = connections[shard];
        connections[shard] = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // it failed already; nothing more to free
            }
        }
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            try {
                scheduler.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (int i = 0; i < connections.length; i++) {
            closeConnection(i);
        }
    }
}
