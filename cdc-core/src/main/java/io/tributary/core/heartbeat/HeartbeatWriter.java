package io.tributary.core.heartbeat;

import io.tributary.core.config.ConfigProblem;
import io.tributary.core.sorter.GlobalSorter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the heartbeats that make consistent cuts (ARCHITECTURE.md, invariant 3): at start it creates
 * {@code __cdc__.__cdc_heartbeat__} on every shard, then, beat by beat, it writes ONE value, shared by all shards
 * and increasing from beat to beat, into that table's single row on every shard. Each shard's binlog then carries
 * an UPDATE_ROWS event with the value; the sorter takes it as the cut and consumes it.
 *
 * <p><b>How often</b> (docs/architecture.md, "How often heartbeats are written"): only as often as the global
 * order needs them. The sorter emits a transaction once every shard has read past it, and a shard at the end of
 * its binlog gets past only through a heartbeat; an XA transaction waits for the shards' clocks. So while the
 * pipeline holds something that waits ({@link #demand}: the sorter holds a unit or an open XA use), the writer
 * beats every {@code cdc.heartbeat.interval} (default {@value #DEFAULT_INTERVAL_MS} ms), and at once when
 * something starts to wait ({@link #wake}); while nothing waits, a beat changes nothing in the output and the
 * writer beats only every {@code cdc.heartbeat.idleInterval} (default {@value #DEFAULT_IDLE_INTERVAL_MS} ms),
 * so that the delay metric and the status still see every shard moving. Which beats are written decides only
 * where the cuts fall in the shard binlogs; the output is still a function of those binlogs alone (invariant 10).
 *
 * <p>Table: {@code id TINYINT UNSIGNED PRIMARY KEY} (always 1), {@code heartbeat BIGINT} (the shared
 * value), {@code written_at_us BIGINT} (the writer's clock, microseconds since the epoch). The value is
 * {@code max(previous + 1, now in milliseconds)}: milliseconds, strictly increasing, as the
 * {@link GlobalSorter} reads it (its {@code cdc.xa.maxWait} is measured in heartbeat time), and it also
 * increases across restarts of the daemon.
 *
 * <p><b>Several writers</b> (twins: two daemons on the same shards, both beating; docs/architecture.md,
 * "Heartbeats from several writers"). The beats of all writers form ONE sequence, as if one writer made them:
 * <ul>
 * <li>a beat is made only while holding the user lock {@value #LOCK} ({@code GET_LOCK}, not waited for) on the
 * FIRST shard in configuration order, the <em>lock shard</em>; a writer that finds it taken skips that beat (the
 * other writer is beating), and one that cannot reach the lock shard writes no beat at all (without that shard
 * the global order cannot advance anyway);</li>
 * <li>under the lock, the value is taken above the lock shard's row ({@code max(previous + 1, now, row + 1)}) and
 * written there first, then to the other shards, and the lock is released once every one of those writes is done
 * (written or failed): a beat starts only after the previous one, whoever made it, is on every shard;</li>
 * <li>a row is only ever moved up ({@code UPDATE ... WHERE heartbeat < value}): a write that lands late (it was
 * held up past its beat) changes nothing and logs nothing, so each shard's binlog carries strictly increasing
 * values and the sorter never sees a beat go back.</li>
 * </ul>
 * A writer that dies holding the lock loses it with its connection (the heartbeat connections set a short
 * {@code wait_timeout}, so a writer whose machine vanished is dropped within {@link #idleTimeoutSeconds}).
 *
 * <p>Start fails with a {@link HeartbeatSetupException} naming the shard, the account and the missing
 * privilege when a shard refuses (a shard without heartbeats would stall the global order). Later, a
 * shard that cannot be written (down: its write fails at once) is logged and retried at the next beat
 * (reconnecting); the others keep beating (unless it is the lock shard).
 *
 * <p>Threading: beats run on one scheduler thread, {@code cdc-heartbeat}, which hands each shard's write to
 * that shard's own thread ({@code cdc-heartbeat-<shard>}; the lock shard's thread also takes and releases the
 * lock): a beat takes as long as the lock shard plus the slowest other shard, and a slow or hanging shard holds
 * back every shard's heartbeats until its write is done or times out (a beat is a cut: it starts once the previous
 * one is on every shard; the global order cannot pass that shard anyway). {@link #beat()} may also be called
 * directly (tests; it waits for every write) but not concurrently with the scheduler. JDBC drivers come from the
 * caller's connection factories: this class knows only {@code java.sql}.
 */
public final class HeartbeatWriter implements AutoCloseable {

    public static final String DATABASE = "__cdc__";
    public static final String TABLE = "__cdc_heartbeat__";
    public static final long DEFAULT_INTERVAL_MS = 100;
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(DEFAULT_INTERVAL_MS);
    /** The beat while nothing waits for heartbeats ({@code cdc.heartbeat.idleInterval}). */
    public static final long DEFAULT_IDLE_INTERVAL_MS = 1000;
    public static final Duration DEFAULT_IDLE_INTERVAL = Duration.ofMillis(DEFAULT_IDLE_INTERVAL_MS);
    /** The user lock, on the lock shard, that orders the beats of all writers. */
    public static final String LOCK = "__cdc_heartbeat__";

    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatWriter.class);
    private static final String QUALIFIED = "`" + DATABASE + "`.`" + TABLE + "`";
    private static final Pattern COMMAND_DENIED = Pattern.compile("(?i)\\b([A-Z ]+?) command denied");
    private static final int ER_DBACCESS_DENIED = 1044;
    private static final int ER_ACCESS_DENIED = 1045;
    private static final int ER_TABLEACCESS_DENIED = 1142;
    private static final int ER_SPECIFIC_ACCESS_DENIED = 1227;
    private static final int QUERY_TIMEOUT_SECONDS = 10;

    /** Opens a connection to one shard; the writer owns and closes what it returns. */
    @FunctionalInterface
    public interface ConnectionFactory {
        Connection open() throws SQLException;
    }

    /**
     * One shard to beat.
     *
     * @param shard   the shard's configured name
     * @param address {@code host:port}, for messages
     * @param connect how to reach it
     */
    public record Target(String shard, String address, ConnectionFactory connect) {
        public Target {
            Objects.requireNonNull(shard, "shard");
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(connect, "connect");
        }
    }

    /** A failing shard is reported once, then at most every this many ms while it keeps failing. */
    static final long REPEAT_WARNING_MS = 30_000;

    private final List<Target> targets;
    private final Connection[] connections;
    /** Per shard: when its connection was last handed out ({@link System#nanoTime}; that shard's thread only). */
    private final long[] connectionUsedNanos;
    /** Per shard: beats missed in a row (0 while it is written), and when its failure was last logged. */
    private final long[] missed;
    private final long[] lastWarnedMicros;
    private final Duration interval;
    /** The beat while nothing waits: at least {@link #interval}. */
    private final Duration idleInterval;
    /** Whether the pipeline holds something that waits for heartbeats (any thread). */
    private volatile BooleanSupplier demand = () -> false;
    /** A {@link #wake} is queued on the scheduler. */
    private final AtomicBoolean wakeQueued = new AtomicBoolean();
    /** When the last beat was started ({@link System#nanoTime}; scheduler thread only); 0 before the first. */
    private long lastBeatNanos;
    private final LongSupplier clockMicros;
    /** One thread per shard for its writes, so a slow shard delays only its own heartbeats. */
    private final ExecutorService[] writers;
    /** Per shard: the write in progress or last done (scheduler thread only). */
    private final Future<?>[] writes;
    /** Per shard: beats skipped because the previous write was still running, and when that was last logged. */
    private final long[] busySkips;
    private final long[] lastSkipWarnedMicros;
    /** Per shard: when the write in progress was started (scheduler thread only). */
    private final long[] writeStartedMicros;
    /** The release of the lock after the last beat (on the lock shard's thread, once the beat's writes are done). */
    private Future<?> release;
    /**
     * Since when (writer clock, µs) another writer has held the lock at every beat without moving the lock shard's
     * row; 0 while it is free.
     */
    private long lockBusySinceMicros;
    /** The lock shard's heartbeat row as last seen while the lock was busy. */
    private long lockBusyRow = -1;
    private long lastLockWarnedMicros;
    private volatile ScheduledExecutorService scheduler;
    private volatile long lastValue;

    /**
     * A writer that beats every {@code interval} whatever waits (as {@link #HeartbeatWriter(List, Duration,
     * Duration, LongSupplier)} with the idle interval equal to {@code interval}).
     *
     * @param targets     the shards, in configuration order
     * @param interval    {@code cdc.heartbeat.interval}
     * @param clockMicros the clock, microseconds since the epoch (injected so tests control it)
     */
    public HeartbeatWriter(List<Target> targets, Duration interval, LongSupplier clockMicros) {
        this(targets, interval, interval, clockMicros);
    }

    /**
     * @param targets      the shards, in configuration order
     * @param interval     {@code cdc.heartbeat.interval}: the beat while something waits for heartbeats
     * @param idleInterval {@code cdc.heartbeat.idleInterval}: the beat while nothing does (taken as at least
     *                     {@code interval})
     * @param clockMicros  the clock, microseconds since the epoch (injected so tests control it)
     */
    public HeartbeatWriter(List<Target> targets, Duration interval, Duration idleInterval, LongSupplier clockMicros) {
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("at least one shard required");
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException(ConfigProblem.invalid("cdc.heartbeat.interval", interval,
                    "must be positive").message());
        }
        if (idleInterval.isNegative() || idleInterval.isZero()) {
            throw new IllegalArgumentException(ConfigProblem.invalid("cdc.heartbeat.idleInterval", idleInterval,
                    "must be positive").message());
        }
        this.idleInterval = idleInterval.compareTo(interval) < 0 ? interval : idleInterval;
        this.targets = List.copyOf(targets);
        this.connections = new Connection[targets.size()];
        this.connectionUsedNanos = new long[targets.size()];
        this.missed = new long[targets.size()];
        this.lastWarnedMicros = new long[targets.size()];
        this.writes = new Future<?>[targets.size()];
        this.busySkips = new long[targets.size()];
        this.lastSkipWarnedMicros = new long[targets.size()];
        this.writeStartedMicros = new long[targets.size()];
        this.writers = new ExecutorService[targets.size()];
        for (int i = 0; i < writers.length; i++) {
            String name = "cdc-heartbeat-" + this.targets.get(i).shard();
            writers[i] = Executors.newSingleThreadExecutor(r -> {
                Thread th = new Thread(r, name);
                th.setDaemon(true);
                return th;
            });
        }
        this.interval = interval;
        this.clockMicros = Objects.requireNonNull(clockMicros, "clockMicros");
    }

    /** The system clock in microseconds. */
    public static long systemMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /**
     * Creates the heartbeat table on every shard (if absent) and its row, checking on each that the
     * account may write it.
     *
     * @throws HeartbeatSetupException for the first shard that refuses
     */
    public void createTables() {
        for (int i = 0; i < targets.size(); i++) {
            Target t = targets.get(i);
            Connection c = setupConnection(i);
            String step = "CREATE";
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
                s.execute("CREATE DATABASE IF NOT EXISTS `" + DATABASE + "`");
                s.execute("CREATE TABLE IF NOT EXISTS " + QUALIFIED + " (id TINYINT UNSIGNED NOT NULL PRIMARY KEY,"
                        + " heartbeat BIGINT NOT NULL, written_at_us BIGINT NOT NULL) ENGINE=InnoDB");
                step = "INSERT";
                s.execute("INSERT IGNORE INTO " + QUALIFIED + " (id, heartbeat, written_at_us) VALUES (1, 0, 0)");
                step = "SELECT";
                try (ResultSet rs = s.executeQuery("SELECT heartbeat FROM " + QUALIFIED + " WHERE id = 1")) {
                    if (rs.next()) {
                        lastValue = Math.max(lastValue, rs.getLong(1));
                    }
                }
                step = "UPDATE";
                // A no-op update checks the privilege without writing a heartbeat out of turn.
                s.executeUpdate("UPDATE " + QUALIFIED + " SET heartbeat = heartbeat WHERE id = 0");
            } catch (SQLException e) {
                throw setupFailure(t, c, step, e);
            }
        }
    }

    /**
     * Where the writer learns whether the pipeline holds something that waits for heartbeats; asked at every tick
     * of the interval, on the scheduler thread, so it must be cheap. Until it is set nothing is taken to wait.
     */
    public void demand(BooleanSupplier waiting) {
        this.demand = Objects.requireNonNull(waiting, "waiting");
    }

    /**
     * Something started to wait for heartbeats: beat now rather than at the next tick (unless a beat started less
     * than half an interval ago; the ticks follow). Any thread; returns at once.
     */
    public void wake() {
        ScheduledExecutorService s = scheduler;
        if (s == null || !wakeQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            s.execute(() -> {
                wakeQueued.set(false);
                beatIfDue(true);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            wakeQueued.set(false); // closing
        }
    }

    /** {@link #createTables()}, then beats on the {@code cdc-heartbeat} thread (see "How often" above). */
    public synchronized void start() {
        if (scheduler != null) {
            throw new IllegalStateException("heartbeat writer already started");
        }
        createTables();
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread th = new Thread(r, "cdc-heartbeat");
            th.setDaemon(true);
            return th;
        });
        long ms = Math.max(1, interval.toMillis());
        scheduler.scheduleAtFixedRate(() -> beatIfDue(false), 0, ms, TimeUnit.MILLISECONDS);
    }

    /**
     * Writes the next value to every shard, each on its own thread, and waits until every write is done.
     *
     * @return the value written
     */
    public long beat() {
        return beat(Duration.ofSeconds(QUERY_TIMEOUT_SECONDS * 3L));
    }

    /**
     * Makes one beat: takes the lock on the lock shard and the value there (waiting at most {@code waitAtMost}),
     * then writes the value to every other shard at once, one thread per shard, so that a beat takes as long as the
     * slowest shard, not the sum of them, and waits at most what is left of {@code waitAtMost} for those writes. The
     * lock is released once every write of the beat is done (written or failed), however long that takes: a beat
     * starts only once the previous one, this writer's or another's, is on every shard (the sorter's XA grouping
     * counts on it, docs/architecture.md). While a write of the previous beat still runs (a slow or hanging shard),
     * this writer skips its beats, on every shard.
     *
     * @return the value written, or 0 when this writer made no beat (the previous beat is not written everywhere
     *         yet, the lock shard is unreachable, or another writer holds the lock)
     */
    long beat(Duration waitAtMost) {
        long deadline = System.nanoTime() + waitAtMost.toNanos();
        long proposal = Math.max(lastValue + 1, clockMicros.getAsLong() / 1000);
        long at = clockMicros.getAsLong();
        boolean busy = false;
        for (int i = 0; i < writes.length; i++) {
            if (writes[i] != null && !writes[i].isDone()) {
                slowWrite(i, proposal);
                busy = true;
            }
        }
        if (busy || release != null && !release.isDone()) {
            return 0;
        }
        writeStartedMicros[0] = at;
        Future<Long> lead = writers[0].submit(() -> lead(proposal, at));
        writes[0] = lead;
        long value = 0;
        try {
            value = lead.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // still running: the lock is released after it (same thread), and this writer skips beats until then
        } catch (ExecutionException e) {
            LOG.warn("heartbeat write failed: {}", e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (value == 0) {
            release = writers[0].submit(this::releaseLock);
            return 0;
        }
        lastValue = value;
        long written = value;
        List<Future<?>> beat = new ArrayList<>();
        for (int i = 1; i < targets.size(); i++) {
            int shard = i;
            writeStartedMicros[i] = at;
            writes[i] = writers[i].submit(() -> write(shard, written, at));
            beat.add(writes[i]);
        }
        for (Future<?> w : beat) {
            try {
                w.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // still running: the lock is held, and beats skipped, until it is done (slowWrite)
            } catch (ExecutionException e) {
                LOG.warn("heartbeat write failed: {}", e.getCause().toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        // the next beat, this writer's or another's, starts once this one is on every shard
        release = writers[0].submit(() -> {
            awaitDone(beat);
            releaseLock();
        });
        try {
            release.get(Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // a write still runs: released on the lock shard's thread once it is done
        } catch (ExecutionException e) {
            LOG.warn("heartbeat lock release failed: {}", e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return value;
    }

    /** Waits until every write of a beat is done, whatever its outcome (each runs under a query timeout). */
    private static void awaitDone(List<Future<?>> writes) {
        for (Future<?> w : writes) {
            try {
                w.get();
            } catch (ExecutionException e) {
                // failed: done all the same (logged by the write itself)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // closing: the connection goes, and the lock with it
                return;
            } catch (java.util.concurrent.CancellationException e) {
                // cancelled: done
            }
        }
    }

    /**
     * On the lock shard's thread: takes the lock (not waiting), takes the value above the shard's row and writes it
     * there. Returns the value, or 0 when another writer holds the lock or the shard fails (then the connection is
     * closed, which releases the lock).
     */
    private long lead(long proposal, long at) {
        try {
            Connection c = connection(0, false);
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
                try (ResultSet rs = s.executeQuery("SELECT GET_LOCK('" + LOCK + "', 0)")) {
                    if (!rs.next() || rs.getInt(1) != 1) {
                        lockBusy(s, at);
                        return 0;
                    }
                }
                lockBusySinceMicros = 0;
                long row = 0;
                try (ResultSet rs = s.executeQuery("SELECT heartbeat FROM " + QUALIFIED + " WHERE id = 1")) {
                    if (rs.next()) {
                        row = rs.getLong(1);
                    }
                }
                long value = Math.max(proposal, row + 1);
                writeRow(c, value, at);
                written(0);
                return value;
            }
        } catch (SQLException e) {
            failed(0, proposal, e);
            closeQuietly(0);
            return 0;
        }
    }

    /**
     * Another writer (a twin) holds the lock: it is beating, so this writer skips the beat. Logged at DEBUG; a
     * warning once the lock has been held that way, with the lock shard's row standing still, for longer than
     * {@link #idleTimeoutSeconds} (longer than even a vanished writer keeps it: the holder is alive and stuck in a
     * beat, which holds back everyone's heartbeats; a holder merely slow, a busy shard on a loaded machine, warns
     * about its own slow writes), then at most every {@value #REPEAT_WARNING_MS} ms.
     */
    private void lockBusy(Statement s, long at) throws SQLException {
        long row = 0;
        try (ResultSet rs = s.executeQuery("SELECT heartbeat FROM " + QUALIFIED + " WHERE id = 1")) {
            if (rs.next()) {
                row = rs.getLong(1);
            }
        }
        if (row != lockBusyRow) {
            // the holder moved the lock shard's row since: it is beating, not stuck (a twin that beats as often as
            // this writer and holds the lock through its writes can win every try on a busy machine)
            lockBusyRow = row;
            lockBusySinceMicros = at;
        }
        if (lockBusySinceMicros == 0) {
            lockBusySinceMicros = at;
        }
        long heldMs = (at - lockBusySinceMicros) / 1000;
        Target t = targets.get(0);
        if (heldMs <= idleTimeoutSeconds() * 1000) {
            LOG.debug("shard {}: heartbeat lock {} held by another writer; this beat is theirs", t.shard(), LOCK);
            return;
        }
        if (lastLockWarnedMicros == 0 || at - lastLockWarnedMicros >= REPEAT_WARNING_MS * 1000) {
            lastLockWarnedMicros = at;
            LOG.warn("shard {} ({}): the heartbeat lock {} has been held by another writer for {} ms; no beat of this"
                    + " writer until it is free (SELECT IS_USED_LOCK('{}') names the holder's connection)", t.shard(),
                    t.address(), LOCK, heldMs, LOCK);
        }
    }

    /** On the lock shard's thread: releases the lock if this writer holds it. */
    private void releaseLock() {
        Connection c = connections[0];
        if (c == null) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
            s.execute("DO RELEASE_LOCK('" + LOCK + "')");
        } catch (SQLException e) {
            closeQuietly(0); // closing the connection releases the lock
        }
    }

    /**
     * How long a heartbeat write may run before the beats it makes this writer skip are a warning: a write held up
     * for an interval or two (a busy fsync on a loaded machine) costs a beat and nothing else; one that runs this
     * long is a slow or hanging shard, and every shard's delay grows.
     */
    long slowWriteWarnMs() {
        return Math.max(SLOW_WRITE_WARN_MS, interval.toMillis() * 10);
    }

    static final long SLOW_WRITE_WARN_MS = 1_000;

    /**
     * A shard's previous write still runs (scheduler thread): the beat of {@code value} is skipped. Logged at DEBUG while that
     * write has run less than {@link #slowWriteWarnMs}; then a warning, repeated at most every
     * {@value #REPEAT_WARNING_MS} ms.
     */
    private void slowWrite(int i, long value) {
        busySkips[i]++;
        Target t = targets.get(i);
        long now = clockMicros.getAsLong();
        long runningMs = (now - writeStartedMicros[i]) / 1000;
        if (runningMs < slowWriteWarnMs()) {
            LOG.debug("shard {}: heartbeat {} skipped, the previous write has run {} ms", t.shard(), value, runningMs);
            return;
        }
        if (lastSkipWarnedMicros[i] == 0 || now - lastSkipWarnedMicros[i] >= REPEAT_WARNING_MS * 1000) {
            lastSkipWarnedMicros[i] = now;
            LOG.warn("shard {} ({}): heartbeat {} skipped, the previous write has run {} ms ({} beats skipped so"
                    + " far); no shard gets a heartbeat until it is done (a beat starts once the previous one is on"
                    + " every shard)", t.shard(), t.address(), value, runningMs, busySkips[i]);
        }
    }

    /**
     * Counts one more missed beat of shard {@code i} in {@code counts}; true when it should be logged: the first,
     * then at most every {@value #REPEAT_WARNING_MS} ms (then {@code lastWarned} is moved to now).
     */
    private boolean countAndWarnDue(long[] counts, long[] lastWarned, int i) {
        counts[i]++;
        long now = clockMicros.getAsLong();
        if (counts[i] == 1 || now - lastWarned[i] >= REPEAT_WARNING_MS * 1000) {
            lastWarned[i] = now;
            return true;
        }
        return false;
    }

    /** One shard's write of one beat, on the shard's own thread (which alone uses its connection). */
    private void write(int i, long value, long at) {
        try {
            writeRow(connection(i, false), value, at);
            written(i);
        } catch (SQLException e) {
            failed(i, value, e);
            closeQuietly(i);
        }
    }

    /**
     * Moves the row up to {@code value}; a row already at or above it (a later beat landed first) is left alone, and
     * then nothing reaches the binlog. The row is created if missing.
     */
    private static void writeRow(Connection c, long value, long at) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + QUALIFIED
                + " SET heartbeat = ?, written_at_us = ? WHERE id = 1 AND heartbeat < ?")) {
            ps.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
            ps.setLong(1, value);
            ps.setLong(2, at);
            ps.setLong(3, value);
            if (ps.executeUpdate() == 0) {
                try (PreparedStatement ins = c.prepareStatement("INSERT IGNORE INTO " + QUALIFIED
                        + " (id, heartbeat, written_at_us) VALUES (1, ?, ?)")) {
                    ins.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
                    ins.setLong(1, value);
                    ins.setLong(2, at);
                    ins.executeUpdate();
                }
            }
        }
    }

    /** Shard {@code i} was written: a shard that had been failing is logged as back. */
    private void written(int i) {
        if (missed[i] > 0) {
            Target t = targets.get(i);
            LOG.info("shard {} ({}): heartbeats written again after {} missed beats", t.shard(), t.address(), missed[i]);
            missed[i] = 0;
        }
    }

    /**
     * A shard that is down fails every beat (10 a second): the first failure is logged, then one line every
     * {@value #REPEAT_WARNING_MS} ms with the beats missed so far, and one when it is written again.
     */
    private void failed(int i, long value, SQLException e) {
        Target t = targets.get(i);
        if (!countAndWarnDue(missed, lastWarnedMicros, i)) {
            return;
        }
        if (missed[i] == 1) {
            LOG.warn("shard {} ({}): heartbeat {} not written, retrying every beat (logged again every {} s while it"
                    + " fails){}: {}", t.shard(), t.address(), value, REPEAT_WARNING_MS / 1000, i == 0
                    ? "; it is the lock shard, which orders the beats of every writer: no shard gets a heartbeat until"
                    + " it is back" : "", e.getMessage());
        } else {
            LOG.warn("shard {} ({}): still no heartbeat written, {} beats missed: {}", t.shard(), t.address(), missed[i],
                    e.getMessage());
        }
    }

    /** The value of the last beat (or the highest found in the shards' tables at start). */
    public long lastValue() {
        return lastValue;
    }

    /**
     * On the scheduler thread, at every tick (or on {@link #wake}): beats when something waits and the last beat
     * started at least half an interval ago, or when the idle interval has passed (less half an interval, so that
     * idle beats keep to the tick they fall on).
     */
    private void beatIfDue(boolean woken) {
        long now = System.nanoTime();
        long since = now - lastBeatNanos;
        long half = interval.toNanos() / 2;
        boolean due = lastBeatNanos == 0 || since >= idleInterval.toNanos() - half
                || since >= half && (woken || demand.getAsBoolean());
        if (due) {
            lastBeatNanos = now;
            beatQuietly();
        }
    }

    private void beatQuietly() {
        try {
            beat(interval);
        } catch (RuntimeException e) {
            LOG.warn("heartbeat failed: {}", e.toString());
        }
    }

    private Connection connection(int i, boolean failHard) throws SQLException {
        long now = System.nanoTime();
        if (connections[i] != null) {
            if (now - connectionUsedNanos[i] < idleTimeoutSeconds() * 500_000_000L) {
                connectionUsedNanos[i] = now;
                return connections[i];
            }
            // unused for half its wait_timeout: the shard may have dropped it. A twin that keeps losing the lock
            // writes nothing to the other shards, however often it beats; its next write must not fail on that.
            closeQuietly(i);
        }
        Target t = targets.get(i);
        try {
            Connection c = t.connect().open();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                // a writer whose machine vanished holds the lock only until the shard drops its idle connection
                s.execute("SET SESSION wait_timeout = " + idleTimeoutSeconds());
            } catch (SQLException e) {
                closeQuietly(c);
                throw e;
            }
            connections[i] = c;
            connectionUsedNanos[i] = now;
            return c;
        } catch (SQLException e) {
            if (failHard) {
                throw new HeartbeatSetupException(t.shard(), null, "shard " + t.shard() + " (" + t.address()
                        + "): cannot connect to write heartbeats: " + e.getMessage() + " (SQL state " + e.getSQLState()
                        + ", error " + e.getErrorCode() + ")", e);
            }
            throw new SQLException("cannot connect: " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
        }
    }

    /** The shard's connection at start: failing to connect is a {@link HeartbeatSetupException}. */
    private Connection setupConnection(int i) {
        try {
            return connection(i, true);
        } catch (SQLException e) {
            throw new IllegalStateException(e); // connection(i, true) reports failures as HeartbeatSetupException
        }
    }

    private HeartbeatSetupException setupFailure(Target t, Connection c, String step, SQLException e) {
        int code = e.getErrorCode();
        boolean denied = code == ER_DBACCESS_DENIED || code == ER_ACCESS_DENIED || code == ER_TABLEACCESS_DENIED
                || code == ER_SPECIFIC_ACCESS_DENIED || "42000".equals(e.getSQLState()) && e.getMessage() != null
                && e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("denied");
        String account = currentUser(c);
        if (!denied) {
            return new HeartbeatSetupException(t.shard(), null, "shard " + t.shard() + " (" + t.address() + "): cannot"
                    + " set up the heartbeat table " + DATABASE + "." + TABLE + " as " + account + " (step " + step
                    + "): " + e.getMessage() + " (error " + code + ")", e);
        }
        String privilege = step;
        Matcher m = COMMAND_DENIED.matcher(String.valueOf(e.getMessage()));
        if (m.find()) {
            privilege = m.group(1).trim().toUpperCase(java.util.Locale.ROOT);
        }
        return new HeartbeatSetupException(t.shard(), privilege, "shard " + t.shard() + " (" + t.address() + "): account "
                + account + " lacks the " + privilege + " privilege on `" + DATABASE + "`.* needed for the heartbeat"
                + " table " + DATABASE + "." + TABLE + " (server said: " + e.getMessage() + ", error " + code
                + "). Grant it with: GRANT ALL PRIVILEGES ON `" + DATABASE + "`.* TO " + account, e);
    }

    private static String currentUser(Connection c) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CURRENT_USER()")) {
            if (rs.next()) {
                String u = rs.getString(1);
                int at = u.lastIndexOf('@');
                return at < 0 ? "'" + u + "'" : "'" + u.substring(0, at) + "'@'" + u.substring(at + 1) + "'";
            }
        } catch (SQLException ignored) {
            // The account name is a courtesy in the message; the privilege error itself is what matters.
        }
        return "the configured account";
    }

    /**
     * The {@code wait_timeout} of the heartbeat connections, in seconds: a connection unused for half of it is
     * replaced before its next use (a twin that keeps losing the lock uses only the lock shard's), and a writer that
     * vanished without closing its connections (its machine lost) holds the lock at most that long.
     */
    long idleTimeoutSeconds() {
        return Math.max(MIN_IDLE_TIMEOUT_SECONDS, (idleInterval.toMillis() * 3 + 999) / 1000);
    }

    static final long MIN_IDLE_TIMEOUT_SECONDS = 10;

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // it was being given up anyway
        }
    }

    private void closeQuietly(int i) {
        Connection c = connections[i];
        connections[i] = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // Already broken; a new connection is opened at the next beat.
            }
        }
    }

    /** Stops beating (waiting up to one interval for a beat in progress) and closes the connections. */
    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdown();
            try {
                scheduler.awaitTermination(Math.max(1000, interval.toMillis() * 2), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            scheduler = null;
        }
        for (ExecutorService w : writers) {
            w.shutdown();
        }
        for (int i = 0; i < writers.length; i++) {
            try {
                if (!writers[i].awaitTermination(QUERY_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    LOG.warn("shard {}: a heartbeat write still running at close", targets.get(i).shard());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            closeQuietly(i);
        }
    }

    @Override
    public String toString() {
        List<String> names = new ArrayList<>();
        targets.forEach(t -> names.add(t.shard()));
        return "HeartbeatWriter[shards=" + names + ", interval=" + interval + ", idle=" + idleInterval + ", last="
                + lastValue + "]";
    }
}
