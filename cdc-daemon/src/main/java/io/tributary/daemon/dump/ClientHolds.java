package io.tributary.daemon.dump;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one client connection holds beyond its statement: its snapshot transaction on the shards
 * ({@link SnapshotTransaction}), the shard connections its sync points ask for binlog ends on (opened once, kept while
 * it is connected: a Flink CDC reader asks twice per chunk), and the locks it took. Locks are recorded, never passed
 * to a shard: a {@code FLUSH TABLES WITH READ LOCK} or {@code LOCK TABLES} on the dump port does not stop anyone's
 * writes; the positions answered are right without them (docs/architecture.md, "Snapshots and the stream").
 *
 * <p>Thread-safe: statements run on a worker thread, one at a time, and the connection's event loop closes it when
 * the client goes away ({@link #close} hands nothing back: whatever is opened after it is closed at once).
 */
final class ClientHolds implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClientHolds.class);

    private final long connectionId;
    private SnapshotTransaction snapshot;
    private final Map<String, Connection> positionConnections = new LinkedHashMap<>();
    private boolean globalReadLock;
    private final Set<String> tableLocks = new LinkedHashSet<>();
    private boolean closed;

    ClientHolds(long connectionId) {
        this.connectionId = connectionId;
    }

    /** The open snapshot transaction; null when there is none. */
    synchronized SnapshotTransaction snapshot() {
        return snapshot;
    }

    /**
     * Makes {@code next} (null: none) the snapshot transaction; returns the one it replaces, for the caller to close
     * off the event loop. After {@link #close}, {@code next} is closed at once.
     */
    synchronized SnapshotTransaction replaceSnapshot(SnapshotTransaction next) {
        if (closed) {
            if (next != null) {
                next.close();
            }
            return null;
        }
        SnapshotTransaction previous = snapshot;
        snapshot = next;
        return previous;
    }

    /** The connection sync points ask {@code shard} on, opened on first use. */
    synchronized Connection positionConnection(String shard, ShardSource source) throws SQLException {
        if (closed) {
            throw new SQLException("the client connection is closed");
        }
        Connection c = positionConnections.get(shard);
        if (c == null) {
            c = source.connectReadOnly(shard);
            positionConnections.put(shard, c);
        }
        return c;
    }

    /** Drops a position connection that failed (the next sync point opens a new one). */
    synchronized void dropPositionConnection(String shard) {
        Connection c = positionConnections.remove(shard);
        if (c != null) {
            SnapshotTransaction.abort(c);
        }
    }

    /** {@code FLUSH TABLES [t, ...] WITH READ LOCK} ({@code tables} empty: all) or {@code LOCK TABLES t, ...}. */
    synchronized void lock(String statement, List<String> tables, boolean global) {
        if (global) {
            globalReadLock = true;
        }
        tableLocks.addAll(tables);
        LOG.debug("dump connection {}: '{}' recorded, not passed to the shards (holds: {})", connectionId, statement,
                locksText());
    }

    /** {@code UNLOCK TABLES} / {@code UNLOCK INSTANCE}. */
    synchronized void unlock(String statement) {
        String was = locksText();
        globalReadLock = false;
        tableLocks.clear();
        LOG.debug("dump connection {}: '{}' recorded (held: {})", connectionId, statement, was);
    }

    synchronized boolean globalReadLock() {
        return globalReadLock;
    }

    private String locksText() {
        List<String> held = new ArrayList<>();
        if (globalReadLock) {
            held.add("global read lock");
        }
        if (!tableLocks.isEmpty()) {
            held.add("table locks " + tableLocks);
        }
        return held.isEmpty() ? "none" : String.join(", ", held);
    }

    /** Closes the snapshot transaction and the position connections; blocking (shard round trips). */
    @Override
    public void close() {
        SnapshotTransaction s;
        List<Connection> connections;
        synchronized (this) {
            closed = true;
            s = snapshot;
            snapshot = null;
            connections = new ArrayList<>(positionConnections.values());
            positionConnections.clear();
        }
        if (s != null) {
            s.close();
        }
        for (Connection c : connections) {
            try {
                c.close();
            } catch (SQLException | RuntimeException e) {
                SnapshotTransaction.abort(c);
            }
        }
    }
}
