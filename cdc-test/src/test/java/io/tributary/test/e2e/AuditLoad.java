package io.tributary.test.e2e;

import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A load whose every row says where it came from, so that a subscriber's stream can be checked row by row: shard
 * {@code s} holds {@code audit_<s>.events_<s>} (logical {@code audit.events}) with rows {@code (shard, seq, xa)};
 * one thread, every {@code periodMillis}, either inserts the shard's next {@code seq} on one shard (autocommit), or
 * runs an XA transaction over 2-4 shards (ascending) inserting each branch's next {@code seq} with the gtrid in
 * {@code xa}, and commits it, or (one XA in ten) rolls it back after every branch prepared. So each shard's
 * committed {@code seq}s are 1, 2, 3 ... in commit order, each committed XA has one row on each of its shards, and a
 * rolled-back XA leaves no row anywhere. {@link #committed}, {@link #committedXa} and {@link #rolledBackXa} say what a
 * subscriber must have received. Any SQL error stops it ({@link #failure}): the shards are not touched here.
 * <p>
 * Every {@code largeEveryMillis} (0: never) the transaction is a large one, alternately single-shard and XA over 2-3
 * shards (never rolled back): besides its audit row, each of its shards gets {@value #LARGE_PARTS} rows of
 * {@value #LARGE_PART_BYTES} bytes in {@code audit_<s>.large_<s>} (logical {@code audit.large}, rows {@code (shard,
 * seq, part, payload)} with the {@code seq} of the audit row written with them), in the same transaction.
 * {@link #committedLarge} lists them.
 */
final class AuditLoad implements AutoCloseable {

    static final String DATABASE = "audit";
    static final int LARGE_PARTS = 2;
    /** 64 hex characters repeated: 2 MiB. */
    static final int LARGE_PART_BYTES = 64 * 32768;

    private final List<ShardInfo> shards;
    private final long periodMillis;
    private final long largeEveryMillis;
    private final List<String> committedLarge = Collections.synchronizedList(new ArrayList<>());
    private final Random random;
    private final long[] next;
    private final Map<String, List<Integer>> committedXa = Collections.synchronizedMap(new LinkedHashMap<>());
    private final List<String> rolledBackXa = Collections.synchronizedList(new ArrayList<>());
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running;
    private Thread thread;

    AuditLoad(List<ShardInfo> shards, long seed, long periodMillis) {
        this(shards, seed, periodMillis, 0);
    }

    AuditLoad(List<ShardInfo> shards, long seed, long periodMillis, long largeEveryMillis) {
        this.shards = List.copyOf(shards);
        this.periodMillis = periodMillis;
        this.largeEveryMillis = largeEveryMillis;
        this.random = new Random(seed);
        this.next = new long[shards.size()];
        java.util.Arrays.fill(next, 1);
    }

    static String table(int shard) {
        return DATABASE + "_" + shard + ".events_" + shard;
    }

    static String largeTable(int shard) {
        return DATABASE + "_" + shard + ".large_" + shard;
    }

    void prepare() throws SQLException {
        for (int s = 0; s < shards.size(); s++) {
            try (Connection c = shards.get(s).openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE + "_" + s);
                st.execute("CREATE TABLE IF NOT EXISTS " + table(s) + " (shard INT NOT NULL, seq BIGINT NOT NULL,"
                        + " xa VARCHAR(64) NULL, PRIMARY KEY (shard, seq)) ENGINE=InnoDB");
                st.execute("CREATE TABLE IF NOT EXISTS " + largeTable(s) + " (shard INT NOT NULL, seq BIGINT NOT NULL,"
                        + " part INT NOT NULL, payload LONGBLOB NOT NULL, PRIMARY KEY (shard, seq, part)) ENGINE=InnoDB");
            }
        }
    }

    synchronized void start() {
        running = true;
        thread = new Thread(this::run, "audit-load");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Stops the load after its current transaction and waits for it. Not synchronized: the load's thread takes this
     * object's monitor to count what it committed, and a stop holding it while joining waited out its whole timeout.
     */
    void stop() throws InterruptedException {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
        }
        if (t != null) {
            t.join(30_000);
            if (t.isAlive()) {
                failure.compareAndSet(null, new IllegalStateException("the audit load did not stop within 30 s"));
            }
        }
    }

    private void run() {
        Connection[] cs = new Connection[shards.size()];
        try {
            for (int s = 0; s < cs.length; s++) {
                cs[s] = shards.get(s).openAdminConnection();
                cs[s].setAutoCommit(true);
            }
            long xas = 0;
            long larges = 0;
            long nextLarge = largeEveryMillis > 0 ? System.nanoTime() + largeEveryMillis * 1_000_000 : Long.MAX_VALUE;
            while (running) {
                Thread.sleep(periodMillis);
                boolean large = System.nanoTime() >= nextLarge;
                if (large) {
                    nextLarge = System.nanoTime() + largeEveryMillis * 1_000_000;
                    larges++;
                }
                double pick = random.nextDouble();
                if (large ? larges % 2 == 1 || cs.length < 2 : pick < 0.7 || cs.length < 2) {
                    int s = random.nextInt(cs.length);
                    try (Statement st = cs[s].createStatement()) {
                        if (large) {
                            cs[s].setAutoCommit(false);
                        }
                        st.executeUpdate("INSERT INTO " + table(s) + " VALUES (" + s + ", " + next[s] + ", NULL)");
                        if (large) {
                            insertLarge(st, s, next[s]);
                            cs[s].commit();
                            cs[s].setAutoCommit(true);
                            committedLarge.add(s + ":" + next[s]);
                        }
                    }
                    synchronized (this) {
                        next[s]++;
                    }
                    continue;
                }
                List<Integer> use = new ArrayList<>();
                for (int s = 0; s < cs.length; s++) {
                    use.add(s);
                }
                Collections.shuffle(use, random);
                use = new ArrayList<>(use.subList(0, 2 + random.nextInt(Math.min(large ? 2 : 3, cs.length - 1))));
                Collections.sort(use);
                String gtrid = "audit-" + ++xas;
                boolean rollback = !large && random.nextDouble() < 0.1;
                for (int s : use) {
                    try (Statement st = cs[s].createStatement()) {
                        st.execute("XA START '" + gtrid + "','s" + s + "'");
                        st.executeUpdate("INSERT INTO " + table(s) + " VALUES (" + s + ", " + next[s] + ", '" + gtrid + "')");
                        if (large) {
                            insertLarge(st, s, next[s]);
                        }
                        st.execute("XA END '" + gtrid + "','s" + s + "'");
                        st.execute("XA PREPARE '" + gtrid + "','s" + s + "'");
                    }
                }
                for (int s : use) {
                    try (Statement st = cs[s].createStatement()) {
                        st.execute((rollback ? "XA ROLLBACK '" : "XA COMMIT '") + gtrid + "','s" + s + "'");
                    }
                }
                if (rollback) {
                    rolledBackXa.add(gtrid);
                } else {
                    synchronized (this) {
                        for (int s : use) {
                            if (large) {
                                committedLarge.add(s + ":" + next[s]);
                            }
                            next[s]++;
                        }
                    }
                    committedXa.put(gtrid, List.copyOf(use));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        } finally {
            for (Connection c : cs) {
                if (c != null) {
                    try {
                        c.close();
                    } catch (SQLException ignored) {
                        // the test is over for this connection
                    }
                }
            }
        }
    }

    /** {@value #LARGE_PARTS} rows of {@value #LARGE_PART_BYTES} bytes, made by the shard itself. */
    private static void insertLarge(Statement st, int shard, long seq) throws SQLException {
        for (int part = 1; part <= LARGE_PARTS; part++) {
            st.executeUpdate("INSERT INTO " + largeTable(shard) + " VALUES (" + shard + ", " + seq + ", " + part
                    + ", REPEAT(SHA2('" + shard + "-" + seq + "-" + part + "', 256), " + LARGE_PART_BYTES / 64 + "))");
        }
    }

    /** The large transactions' rows committed, as {@code shard:seq} of the audit row written with them. */
    List<String> committedLarge() {
        synchronized (committedLarge) {
            return List.copyOf(committedLarge);
        }
    }

    /** The last committed {@code seq} of each shard. */
    synchronized long[] committed() {
        long[] out = new long[next.length];
        for (int s = 0; s < next.length; s++) {
            out[s] = next[s] - 1;
        }
        return out;
    }

    /** Committed XA gtrids and their shards, in commit order. */
    Map<String, List<Integer>> committedXa() {
        synchronized (committedXa) {
            return new LinkedHashMap<>(committedXa);
        }
    }

    List<String> rolledBackXa() {
        synchronized (rolledBackXa) {
            return List.copyOf(rolledBackXa);
        }
    }

    Throwable failure() {
        return failure.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
