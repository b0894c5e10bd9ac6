package io.tributary.daemon.dump;

import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.DurableMark;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A client's {@code START TRANSACTION WITH CONSISTENT SNAPSHOT} on the dump port, held on the shards: the global
 * binlog's durable end noted first ({@link #start}, G0), then on every shard a read-only connection at REPEATABLE READ
 * that ran {@code START TRANSACTION WITH CONSISTENT SNAPSHOT}, with the shard binlog position its snapshot stands at.
 * The client's {@code SELECT}s read through these connections ({@link ShardSelect}), so all of them see the same
 * snapshot; {@code COMMIT}, {@code ROLLBACK}, a new {@code START TRANSACTION} or a disconnect close it.
 *
 * <p>The position: MariaDB reports the binlog position of the snapshot itself ({@code SHOW STATUS LIKE
 * 'binlog_snapshot_%'}, exact: taken under the same commit order). MySQL has no such status: the position is read
 * with {@code SHOW MASTER STATUS} ({@code SHOW BINARY LOG STATUS} on 8.4) right after the snapshot starts, but a
 * transaction can be in the binlog before its InnoDB commit makes it visible, so that position may count one the
 * snapshot lacks: it is never taken as exact ({@link HeldShard#exact} false) and the snapshot is answered with G0,
 * which loses nothing (docs/architecture.md, "Snapshots and the stream").
 *
 * <p>Used by one statement at a time of its connection (the client waits for each answer); {@link #close} may come
 * from the event loop when the client goes away.
 */
final class SnapshotTransaction implements AutoCloseable {

    /**
     * One shard's part.
     *
     * @param exact whether {@code position} is exactly where the snapshot stands (MariaDB)
     */
    record HeldShard(String shard, Connection connection, ShardPosition position, boolean exact) {
        @Override
        public String toString() {
            return shard + " at " + position.file() + ":" + position.position() + (exact ? "" : " (approximate)");
        }
    }

    private final DurableMark start;
    private final List<HeldShard> shards;
    private volatile boolean closed;
    /** The position answered on this transaction, once asked (the same for every later question). */
    private volatile DurableMark answered;

    private SnapshotTransaction(DurableMark start, List<HeldShard> shards) {
        this.start = start;
        this.shards = List.copyOf(shards);
    }

    /**
     * Opens the snapshot on every shard, in configuration order.
     *
     * @param start the global binlog's durable end, noted before the first shard's snapshot starts
     * @throws SQLException naming the shard that could not start one; nothing stays open
     */
    static SnapshotTransaction open(ShardSource source, DurableMark start) throws SQLException {
        List<HeldShard> held = new ArrayList<>();
        try {
            for (String shard : source.shards()) {
                Connection c;
                try {
                    c = source.connectReadOnly(shard);
                } catch (SQLException e) {
                    throw new SQLException("shard " + shard + " cannot be reached: " + e.getMessage(), e);
                }
                try {
                    held.add(start(shard, c));
                } catch (SQLException e) {
                    abort(c);
                    throw new SQLException("shard " + shard + " cannot start a consistent snapshot: " + e.getMessage(),
                            e);
                }
            }
            return new SnapshotTransaction(start, held);
        } catch (SQLException | RuntimeException e) {
            held.forEach(h -> abort(h.connection()));
            throw e;
        }
    }

    private static HeldShard start(String shard, Connection c) throws SQLException {
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement s = c.createStatement()) {
            // MariaDB has these status variables (outside a snapshot: the binlog's end), MySQL does not
            boolean maria = status(s, "SHOW STATUS LIKE 'binlog_snapshot_%'").containsKey("binlog_snapshot_file");
            s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
            if (maria) {
                Map<String, String> status = status(s, "SHOW STATUS LIKE 'binlog_snapshot_%'");
                String file = status.get("binlog_snapshot_file");
                String pos = status.get("binlog_snapshot_position");
                if (file == null || file.isEmpty() || pos == null) {
                    throw new SQLException("SHOW STATUS LIKE 'binlog_snapshot_%' gives no position (is log_bin on?)");
                }
                return new HeldShard(shard, c, ShardPosition.at(file, Long.parseLong(pos)), true);
            }
            return new HeldShard(shard, c, binlogEnd(s), false);
        }
    }

    private static Map<String, String> status(Statement s, String sql) throws SQLException {
        Map<String, String> out = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getString(2));
            }
        }
        return out;
    }

    /** Where the shard's binlog ends now: {@code SHOW MASTER STATUS}, or {@code SHOW BINARY LOG STATUS} (MySQL 8.4+). */
    static ShardPosition binlogEnd(Statement s) throws SQLException {
        ResultSet rs;
        try {
            rs = s.executeQuery("SHOW MASTER STATUS");
        } catch (SQLException e) {
            if (e.getErrorCode() != 1064) {
                throw e;
            }
            rs = s.executeQuery("SHOW BINARY LOG STATUS");
        }
        try (ResultSet r = rs) {
            if (!r.next()) {
                throw new SQLException("SHOW MASTER STATUS is empty (is log_bin on?)");
            }
            return ShardPosition.at(r.getString(1), r.getLong(2));
        }
    }

    /** G0: the global binlog's durable end when the transaction started. */
    DurableMark start() {
        return start;
    }

    List<HeldShard> shards() {
        return shards;
    }

    /** The held connection of {@code shard}; null when it has none (not a shard of this snapshot). */
    Connection connection(String shard) {
        for (HeldShard h : shards) {
            if (h.shard().equals(shard)) {
                return h.connection();
            }
        }
        return null;
    }

    /** Whether every shard's position is exact (MariaDB shards). */
    boolean exact() {
        return shards.stream().allMatch(HeldShard::exact);
    }

    List<ShardPosition> positions() {
        return shards.stream().map(HeldShard::position).toList();
    }

    DurableMark answered() {
        return answered;
    }

    void answered(DurableMark mark) {
        this.answered = mark;
    }

    boolean isClosed() {
        return closed;
    }

    /** Ends the shards' transactions (rolled back: they only read) and closes their connections. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (HeldShard h : shards) {
            try (Statement s = h.connection().createStatement()) {
                s.execute("ROLLBACK");
            } catch (SQLException | RuntimeException e) {
                // ended by closing it
            }
            try {
                h.connection().close();
            } catch (SQLException | RuntimeException e) {
                abort(h.connection());
            }
        }
    }

    static void abort(Connection c) {
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            // gone either way
        }
    }

    @Override
    public String toString() {
        return "snapshot from global " + start + " on " + shards;
    }
}
