package io.tributary.test.load;

import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * A sysbench-like {@code oltp_write_only} load over sharded tables, for end-to-end tests and benchmarks.
 *
 * <p><b>Schema.</b> Shard {@code s} holds database {@code <prefix>_<s>} with tables {@code sbtest<k>_<s>}
 * ({@code k} = 1..tables), sysbench's table layout: {@code id INT PRIMARY KEY, k INT (indexed), c CHAR(120),
 * pad CHAR(60)}. Under the default naming rule (trailing {@code _<digits>} stripped) they are the logical
 * tables {@code <prefix>.sbtest<k>}. A sharded table's rows are partitioned by key, so shard {@code s} owns
 * the ids {@code s * ID_STRIDE + 1 .. s * ID_STRIDE + tableSize}: the union of the shards' tables is a table
 * with a primary key, as a replica of the global binlog holds it.
 *
 * <p><b>Transactions</b> (sysbench's defaults: one index update, one non-index update, one delete + insert):
 * on one table {@code sbtest<k>} chosen at random, {@code UPDATE .. SET k = k + 1 WHERE id = ?}, {@code UPDATE
 * .. SET c = ? WHERE id = ?}, {@code DELETE .. WHERE id = ?} and {@code INSERT} of that id again, each id drawn
 * uniformly from the shard's range. A transaction runs on one shard, or with probability {@code xaShare} on
 * 2-4 shards as an XA transaction: on each shard in ascending order (so two XA transactions never wait for
 * each other across shards) {@code XA START}, the four statements, {@code XA END}, {@code XA PREPARE}; then
 * {@code XA COMMIT} on each. A deadlock or lock wait timeout rolls the transaction back (every branch) and
 * counts it as aborted, as sysbench does; a failed {@code XA COMMIT} after a successful prepare is a load
 * failure ({@link #failure()}).
 *
 * <p><b>Pacing.</b> {@code threads} client threads, each with its own connection to every shard; with a
 * {@code rate} (transactions per second over all threads) each thread paces itself to its share, else they
 * run flat out. {@link #pauseShard} takes a shard out of new transactions and waits for those using it to
 * finish (so it can be stopped without leaving a prepared XA branch behind); {@link #resumeShard} puts it
 * back and has every thread reconnect to it.
 *
 * <p>Thread-safe: start, stop, pause and the counters may be used from any thread.
 */
public final class OltpWriteOnlyLoad implements AutoCloseable {

    /** Each shard's ids start after {@code shard * ID_STRIDE}. */
    public static final int ID_STRIDE = 100_000_000;

    /**
     * What to run.
     *
     * @param prefix    database name prefix: shard s holds {@code <prefix>_<s>}, the logical database is {@code prefix}
     * @param tables    tables per shard (sysbench {@code --tables})
     * @param tableSize rows per table and shard at {@link #prepare} (sysbench {@code --table-size})
     * @param threads   client threads
     * @param rate      transactions per second over all threads, 0 for no limit
     * @param xaShare   share of transactions that are XA over 2-4 shards (0..1)
     * @param seed      seed of the random choices (each thread derives its own)
     */
    public record Options(String prefix, int tables, int tableSize, int threads, double rate, double xaShare, long seed) {
        public Options {
            List<String> problems = new ArrayList<>();
            if (prefix == null || !prefix.matches("[a-z][a-z0-9]*")) {
                problems.add("Invalid value " + prefix + " for prefix: lowercase letters and digits, starting with a letter");
            }
            if (tables < 1 || tables > 100) {
                problems.add("Invalid value " + tables + " for tables: 1 to 100");
            }
            if (tableSize < 1 || tableSize >= ID_STRIDE) {
                problems.add("Invalid value " + tableSize + " for tableSize: 1 to " + (ID_STRIDE - 1));
            }
            if (threads < 1 || threads > 256) {
                problems.add("Invalid value " + threads + " for threads: 1 to 256");
            }
            if (!(rate >= 0)) {
                problems.add("Invalid value " + rate + " for rate: transactions per second >= 0 (0 = no limit)");
            }
            if (!(xaShare >= 0 && xaShare <= 1)) {
                problems.add("Invalid value " + xaShare + " for xaShare: 0 to 1");
            }
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException(String.join("; ", problems));
            }
        }

        /** sysbench-like defaults: prefix sbtest, 4 tables of 1000 rows, 8 threads, no rate limit, 20 % XA. */
        public static Options defaults() {
            return new Options("sbtest", 4, 1000, 8, 0, 0.2, 42);
        }

        public Options withPrefix(String p) {
            return new Options(p, tables, tableSize, threads, rate, xaShare, seed);
        }

        public Options withTables(int n, int size) {
            return new Options(prefix, n, size, threads, rate, xaShare, seed);
        }

        public Options withThreads(int n) {
            return new Options(prefix, tables, tableSize, n, rate, xaShare, seed);
        }

        public Options withRate(double tps) {
            return new Options(prefix, tables, tableSize, threads, tps, xaShare, seed);
        }

        public Options withXaShare(double share) {
            return new Options(prefix, tables, tableSize, threads, rate, share, seed);
        }
    }

    private final List<ShardInfo> shards;
    private final Options options;
    private final AtomicBoolean running = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final java.util.Set<Integer> paused = ConcurrentHashMap.newKeySet();
    private final AtomicIntegerArray inFlight;
    private final AtomicIntegerArray epoch;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final LongAdder singleCommits = new LongAdder();
    private final LongAdder xaCommits = new LongAdder();
    private final LongAdder aborted = new LongAdder();
    private final LongAdder connectionErrors = new LongAdder();
    private final LongAdder statements = new LongAdder();
    private final AtomicLong xaIds = new AtomicLong();

    public OltpWriteOnlyLoad(List<ShardInfo> shards, Options options) {
        if (shards.isEmpty()) {
            throw new IllegalArgumentException("at least one shard required");
        }
        this.shards = List.copyOf(shards);
        this.options = options;
        this.inFlight = new AtomicIntegerArray(shards.size());
        this.epoch = new AtomicIntegerArray(shards.size());
    }

    public Options options() {
        return options;
    }

    /** The logical database the shards' databases map to. */
    public String logicalDatabase() {
        return options.prefix();
    }

    /** The logical table names ({@code sbtest1} ...). */
    public List<String> logicalTables() {
        List<String> t = new ArrayList<>();
        for (int k = 1; k <= options.tables(); k++) {
            t.add("sbtest" + k);
        }
        return t;
    }

    /** Shard {@code s}'s physical database. */
    public String database(int shard) {
        return options.prefix() + "_" + shard;
    }

    /** Shard {@code s}'s physical table behind logical table {@code sbtest<k>}. */
    public String table(int shard, int k) {
        return "sbtest" + k + "_" + shard;
    }

    /** The sysbench table definition (without the name). */
    public static String tableDefinition() {
        return "(id INT NOT NULL, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '',"
                + " pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_1 (k)) ENGINE=InnoDB";
    }

    /** Creates the databases and tables on every shard and fills them ({@code tableSize} rows each). */
    public void prepare() throws SQLException {
        Random random = new Random(options.seed());
        for (int s = 0; s < shards.size(); s++) {
            try (Connection c = shards.get(s).openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS " + database(s));
                for (int k = 1; k <= options.tables(); k++) {
                    st.execute("CREATE TABLE IF NOT EXISTS " + database(s) + "." + table(s, k) + " " + tableDefinition());
                }
                for (int k = 1; k <= options.tables(); k++) {
                    fill(c, s, k, random);
                }
            }
        }
    }

    private void fill(Connection c, int s, int k, Random random) throws SQLException {
        int batch = 500;
        for (int from = 1; from <= options.tableSize(); from += batch) {
            int to = Math.min(options.tableSize(), from + batch - 1);
            StringBuilder sql = new StringBuilder("INSERT INTO ").append(database(s)).append('.').append(table(s, k))
                    .append(" (id, k, c, pad) VALUES ");
            for (int n = from; n <= to; n++) {
                sql.append(n == from ? "" : ",").append('(').append(s * ID_STRIDE + n).append(',')
                        .append(randomK(random)).append(",'").append(cValue(random)).append("','").append(padValue(random))
                        .append("')");
            }
            try (Statement st = c.createStatement()) {
                st.executeUpdate(sql.toString());
            }
        }
    }

    /** Starts the client threads. */
    public synchronized void start() {
        if (!running.compareAndSet(false, true)) {
            throw new IllegalStateException("load already running");
        }
        for (int n = 0; n < options.threads(); n++) {
            int me = n;
            Thread t = new Thread(() -> run(me), "oltp-load-" + n);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
    }

    /** Stops the client threads after their current transaction; returns once they are gone. */
    public synchronized void stop() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            if (t.isAlive()) {
                failure.compareAndSet(null, new IllegalStateException(t.getName() + " did not stop within 60 s"));
            }
        }
        threads.clear();
    }

    /**
     * Takes shard {@code s} out of new transactions and waits until no transaction uses it any more.
     *
     * @return false when transactions still used it after {@code timeoutMillis}
     */
    public boolean pauseShard(int s, long timeoutMillis) throws InterruptedException {
        paused.add(s);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (inFlight.get(s) > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    /** Puts shard {@code s} back into use; threads reconnect to it (it may have been restarted). */
    public void resumeShard(int s) {
        epoch.incrementAndGet(s);
        paused.remove(s);
    }

    /** Committed single-shard transactions. */
    public long singleShardCommits() {
        return singleCommits.sum();
    }

    /** Committed XA transactions (each counted once, whatever its number of branches). */
    public long xaCommits() {
        return xaCommits.sum();
    }

    public long commits() {
        return singleCommits.sum() + xaCommits.sum();
    }

    /** Transactions rolled back after a deadlock, a lock wait timeout or a lost connection. */
    public long aborted() {
        return aborted.sum();
    }

    public long connectionErrors() {
        return connectionErrors.sum();
    }

    /** Row statements executed (in committed and aborted transactions). */
    public long statements() {
        return statements.sum();
    }

    /** The first error that means the load cannot vouch for what it committed; null when none. */
    public Throwable failure() {
        return failure.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    /** One client thread: its connections (one per shard, opened lazily) and its pacing. */
    private void run(int me) {
        Random random = new Random(options.seed() * 31 + me);
        Connection[] cs = new Connection[shards.size()];
        int[] connEpoch = new int[shards.size()];
        double perThreadRate = options.rate() / options.threads();
        long intervalNanos = perThreadRate > 0 ? (long) (1e9 / perThreadRate) : 0;
        long next = System.nanoTime() + (intervalNanos > 0 ? (long) (random.nextDouble() * intervalNanos) : 0);
        try {
            while (running.get()) {
                if (intervalNanos > 0) {
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    // a stall is not made up for with a burst
                    next = Math.max(next + intervalNanos, System.nanoTime() - intervalNanos);
                }
                List<Integer> use = pickShards(random);
                if (use.isEmpty()) {
                    Thread.sleep(10);
                    continue;
                }
                try {
                    for (int s : use) {
                        if (cs[s] == null || connEpoch[s] != epoch.get(s)) {
                            closeQuietly(cs[s]);
                            cs[s] = null;
                            cs[s] = open(s);
                            connEpoch[s] = epoch.get(s);
                        }
                    }
                    if (use.size() == 1) {
                        single(cs[use.get(0)], use.get(0), random);
                    } else {
                        xa(cs, use, random, "oltp-" + me + "-" + xaIds.incrementAndGet());
                    }
                } catch (SQLException e) {
                    if (isConnectionLoss(e)) {
                        connectionErrors.increment();
                        for (int s : use) {
                            closeQuietly(cs[s]);
                            cs[s] = null;
                        }
                        Thread.sleep(100);
                    } else if (!isRetryable(e)) {
                        throw e;
                    }
                    aborted.increment();
                } finally {
                    for (int s : use) {
                        inFlight.decrementAndGet(s);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        } finally {
            for (Connection c : cs) {
                closeQuietly(c);
            }
        }
    }

    /**
     * The shards of the next transaction, ascending, each already counted in flight; empty when none is
     * available. Counting before checking {@link #paused} means a pause that sees no transaction in flight
     * sees every later one skip the shard.
     */
    private List<Integer> pickShards(Random random) {
        int n = shards.size();
        int want = 1;
        if (n > 1 && random.nextDouble() < options.xaShare()) {
            want = 2 + random.nextInt(Math.min(3, n - 1));
        }
        List<Integer> order = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            order.add(s);
        }
        java.util.Collections.shuffle(order, random);
        List<Integer> use = new ArrayList<>();
        for (int s : order) {
            if (use.size() == want) {
                break;
            }
            inFlight.incrementAndGet(s);
            if (paused.contains(s)) {
                inFlight.decrementAndGet(s);
            } else {
                use.add(s);
            }
        }
        java.util.Collections.sort(use);
        return use;
    }

    private Connection open(int s) throws SQLException {
        Connection c = shards.get(s).openAdminConnection();
        try (Statement st = c.createStatement()) {
            st.execute("SET SESSION innodb_lock_wait_timeout = 10");
        }
        return c;
    }

    private void single(Connection c, int s, Random random) throws SQLException {
        c.setAutoCommit(false);
        try {
            statements(c, s, random);
            c.commit();
            singleCommits.increment();
        } catch (SQLException e) {
            rollbackQuietly(c);
            throw e;
        } finally {
            if (!c.isClosed()) {
                try {
                    c.setAutoCommit(true);
                } catch (SQLException ignored) {
                    // the connection is lost; it is reopened for the next transaction
                }
            }
        }
    }

    private void xa(Connection[] cs, List<Integer> use, Random random, String gtrid) throws SQLException {
        List<Integer> started = new ArrayList<>();
        List<Integer> prepared = new ArrayList<>();
        try {
            for (int s : use) {
                try (Statement st = cs[s].createStatement()) {
                    st.execute("XA START " + xid(gtrid, s));
                    started.add(s);
                    statements(cs[s], s, random);
                    st.execute("XA END " + xid(gtrid, s));
                    st.execute("XA PREPARE " + xid(gtrid, s));
                    prepared.add(s);
                }
            }
        } catch (SQLException e) {
            for (int s : started) {
                try (Statement st = cs[s].createStatement()) {
                    if (!prepared.contains(s)) {
                        executeQuietly(st, "XA END " + xid(gtrid, s));
                    }
                    st.execute("XA ROLLBACK " + xid(gtrid, s));
                } catch (SQLException rollback) {
                    if (prepared.contains(s)) {
                        // a prepared branch nobody can roll back holds its locks until someone does
                        failure.compareAndSet(null, new IllegalStateException("cannot roll back prepared XA branch "
                                + xid(gtrid, s) + " on " + shards.get(s).name() + ": " + rollback.getMessage(), rollback));
                    }
                    // not prepared: closing the connection rolls it back
                    closeQuietly(cs[s]);
                }
            }
            throw e;
        }
        for (int s : use) {
            try (Statement st = cs[s].createStatement()) {
                st.execute("XA COMMIT " + xid(gtrid, s));
            } catch (SQLException e) {
                IllegalStateException f = new IllegalStateException("XA COMMIT " + xid(gtrid, s) + " failed on "
                        + shards.get(s).name() + " after every branch prepared: " + e.getMessage(), e);
                failure.compareAndSet(null, f);
                throw f;
            }
        }
        xaCommits.increment();
    }

    private static String xid(String gtrid, int shard) {
        return "'" + gtrid + "','b" + shard + "'";
    }

    /** sysbench oltp_write_only's statements on one random table of shard {@code s}. */
    private void statements(Connection c, int s, Random random) throws SQLException {
        int k = 1 + random.nextInt(options.tables());
        String t = database(s) + "." + table(s, k);
        try (PreparedStatement p = c.prepareStatement("UPDATE " + t + " SET k = k + 1 WHERE id = ?")) {
            p.setInt(1, randomId(s, random));
            p.executeUpdate();
        }
        try (PreparedStatement p = c.prepareStatement("UPDATE " + t + " SET c = ? WHERE id = ?")) {
            p.setString(1, cValue(random));
            p.setInt(2, randomId(s, random));
            p.executeUpdate();
        }
        int id = randomId(s, random);
        try (PreparedStatement p = c.prepareStatement("DELETE FROM " + t + " WHERE id = ?")) {
            p.setInt(1, id);
            p.executeUpdate();
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO " + t + " (id, k, c, pad) VALUES (?, ?, ?, ?)")) {
            p.setInt(1, id);
            p.setInt(2, randomK(random));
            p.setString(3, cValue(random));
            p.setString(4, padValue(random));
            p.executeUpdate();
        }
        statements.add(4);
    }

    private int randomId(int s, Random random) {
        return s * ID_STRIDE + 1 + random.nextInt(options.tableSize());
    }

    private int randomK(Random random) {
        return 1 + random.nextInt(Math.max(1, options.tableSize()));
    }

    /** sysbench's {@code c}: 10 groups of 11 digits joined by dashes (119 characters). */
    private static String cValue(Random random) {
        return digitGroups(random, 10);
    }

    /** sysbench's {@code pad}: 5 groups of 11 digits (59 characters). */
    private static String padValue(Random random) {
        return digitGroups(random, 5);
    }

    private static String digitGroups(Random random, int groups) {
        StringBuilder b = new StringBuilder(groups * 12);
        for (int g = 0; g < groups; g++) {
            if (g > 0) {
                b.append('-');
            }
            for (int d = 0; d < 11; d++) {
                b.append((char) ('0' + random.nextInt(10)));
            }
        }
        return b.toString();
    }

    /** Deadlock (1213) and lock wait timeout (1205): sysbench rolls back and goes on. */
    private static boolean isRetryable(SQLException e) {
        return e.getErrorCode() == 1213 || e.getErrorCode() == 1205 || "40001".equals(e.getSQLState());
    }

    private static boolean isConnectionLoss(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLNonTransientConnectionException || (state != null && state.startsWith("08"));
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // a lost connection rolls back by itself
        }
    }

    private static void executeQuietly(Statement st, String sql) {
        try {
            st.execute(sql);
        } catch (SQLException ignored) {
            // the branch may already have ended (e.g. rolled back by a deadlock)
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing a broken connection
            }
        }
    }
}
