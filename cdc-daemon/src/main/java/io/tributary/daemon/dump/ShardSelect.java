package io.tributary.daemon.dump;

import io.tributary.core.naming.LogicalNames;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaColumn;
import io.tributary.core.schema.TableName;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Runs a planned {@code SELECT} over a logical table ({@link TableSelect.Plan}) on the shards and streams the union to a
 * {@link ResultSink}: it connects to every shard (read-only, the shard's account), finds the physical tables of the
 * logical table there by the naming rules ({@code information_schema.TABLES}), runs the shard query on each physical
 * table over its own connection as a streaming result set ({@code setFetchSize}: rows are fetched in batches as they
 * are consumed, never held whole), and merges them ({@link MergedRows}): one after the other, or a k-way merge for
 * an {@code ORDER BY}. Aggregates are combined: counts summed, the least or greatest of the shards' MIN/MAX.
 *
 * <p>A shard that cannot be reached, or lacks a column, is reported before any row: error 1429 naming the shard and
 * its physical table. A shard that fails once rows have been sent ends the result with that error. When the client
 * goes away, or a LIMIT is reached, the shards' connections are aborted rather than drained. One thread per run.
 */
final class ShardSelect {

    static final int ER_CONNECT_TO_FOREIGN_DATA_SOURCE = 1429;
    static final int FETCH_ROWS = 1000;

    private final ShardSource source;
    /** The client's snapshot transaction, read through instead of new connections; null when none. */
    private final SnapshotTransaction snapshot;

    ShardSelect(ShardSource source) {
        this(source, null);
    }

    /**
     * @param snapshot the client's snapshot transaction ({@link SnapshotTransaction}): every physical table of a shard
     *                 is read on the shard's held connection, one after another (an ordered merge or a LIMIT over
     *                 several physical tables of one shard has the driver hold the rest of each earlier result in
     *                 memory while the next is read); null: new connections, one per physical table
     */
    ShardSelect(ShardSource source, SnapshotTransaction snapshot) {
        this.source = source;
        this.snapshot = snapshot;
    }

    private Connection connect(String shard) throws SQLException {
        if (snapshot == null) {
            return source.connectReadOnly(shard);
        }
        Connection held = snapshot.connection(shard);
        if (held == null || snapshot.isClosed()) {
            throw new SQLException("the snapshot transaction holds no connection to it (was it added since the"
                    + " transaction started?)");
        }
        return held;
    }

    /** A physical table of the logical table on one shard. */
    record PhysicalTable(String shard, String database, String table) {
        @Override
        public String toString() {
            return "shard " + shard + " (" + database + "." + table + ")";
        }
    }

    /** The physical tables of {@code logical} on the shard {@code c} is connected to, in name order. */
    static List<PhysicalTable> physicalTables(Connection c, String shard, LogicalNames names, TableName logical)
            throws SQLException {
        List<PhysicalTable> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT TABLE_SCHEMA, TABLE_NAME FROM"
                + " information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME")) {
            while (rs.next()) {
                String db = rs.getString(1);
                String t = rs.getString(2);
                if (!LogicalSchema.SYSTEM_DATABASES.contains(db.toLowerCase(Locale.ROOT))
                        && names.database(db).equals(logical.database()) && names.table(t).equals(logical.table())) {
                    out.add(new PhysicalTable(shard, db, t));
                }
            }
        }
        return out;
    }

    /**
     * The row-count estimates of the logical tables: for each, the sum over the shards of their physical tables'
     * {@code information_schema.TABLES.TABLE_ROWS} (InnoDB's estimate, as a server gives it).
     *
     * @throws SQLException naming the shard that cannot be read
     */
    static java.util.Map<TableName, Long> rowEstimates(ShardSource source) throws SQLException {
        java.util.Map<TableName, Long> sums = new java.util.HashMap<>();
        for (String shard : source.shards()) {
            try (Connection c = source.connectReadOnly(shard); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM"
                            + " information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE'")) {
                while (rs.next()) {
                    String db = rs.getString(1);
                    if (LogicalSchema.SYSTEM_DATABASES.contains(db.toLowerCase(Locale.ROOT))) {
                        continue;
                    }
                    TableName logical = new TableName(source.names().database(db), source.names().table(rs.getString(2)));
                    sums.merge(logical, rs.getLong(3), Long::sum);
                }
            } catch (SQLException e) {
                throw new SQLException("shard " + shard + " cannot give its tables' row estimates: " + e.getMessage(), e);
            }
        }
        return sums;
    }

    /** Runs the plan, writing the result (or the error) to the sink. */
    void run(TableSelect.Plan plan, ResultSink sink) {
        List<Connection> connections = new ArrayList<>();
        List<ShardCursor> cursors = new ArrayList<>();
        boolean drained = false;
        try {
            for (String shard : source.shards()) {
                Connection c;
                try {
                    c = connect(shard);
                } catch (SQLException e) {
                    sink.error(shardError("shard " + shard + " cannot be reached", e));
                    return;
                }
                if (snapshot == null) {
                    connections.add(c);
                }
                List<PhysicalTable> tables;
                try {
                    tables = physicalTables(c, shard, source.names(), plan.table().name());
                } catch (SQLException e) {
                    sink.error(shardError("shard " + shard + " cannot list its tables", e));
                    return;
                }
                for (int i = 0; i < tables.size(); i++) {
                    Connection own = c;
                    if (i > 0 && snapshot == null) {
                        try {
                            own = source.connectReadOnly(shard);
                        } catch (SQLException e) {
                            sink.error(shardError("shard " + shard + " cannot be reached", e));
                            return;
                        }
                        connections.add(own);
                    }
                    cursors.add(new ShardCursor(own, tables.get(i), plan));
                }
            }
            if (plan.isAggregate()) {
                drained = aggregate(plan, cursors, sink);
                return;
            }
            boolean ordered = !plan.orderBy().isEmpty();
            if (ordered || plan.limit() != Long.MAX_VALUE) {
                // open every stream before the first row: a missing column or a refused query is reported up front
                for (ShardCursor c : cursors) {
                    if (!open(c, sink)) {
                        return;
                    }
                }
            } else if (!cursors.isEmpty() && !open(cursors.get(0), sink)) {
                return;
            }
            sink.columns(plan.columns());
            int n = plan.selected().size();
            MergedRows rows = ordered ? MergedRows.ordered(new ArrayList<>(cursors), order(plan))
                    : MergedRows.concatenated(new ArrayList<>(cursors));
            rows.window(plan.offset(), plan.limit());
            try {
                byte[][] row;
                byte[][] picked = null;
                while ((row = rows.next()) != null) {
                    if (sink.cancelled()) {
                        return;
                    }
                    if (plan.pick() == null) {
                        sink.row(row, n);
                    } else if (picked == null || plan.pick() == TableSelect.Pick.LAST) {
                        picked = new byte[][] {row[0]};
                    }
                }
                if (plan.pick() != null) {
                    sink.row(picked != null ? picked : new byte[][] {null}, 1);
                }
            } catch (MergedRows.ShardReadFailure e) {
                sink.error(shardError(e.source() + " failed while its rows were read", (SQLException) e.getCause()));
                return;
            }
            drained = !rows.limitReached();
            sink.end();
        } finally {
            for (Connection c : connections) {
                release(c, drained);
            }
            if (snapshot != null) {
                // the held connections stay open: a result not read to the end is closed (a LIMIT's rest is bounded),
                // and cancelled first when the client went away or killed the statement
                boolean cancel = !drained && sink.cancelled();
                for (ShardCursor c : cursors) {
                    c.close(cancel);
                }
            }
        }
    }

    private static boolean open(ShardCursor c, ResultSink sink) {
        try {
            c.open();
            return true;
        } catch (SQLException e) {
            sink.error(shardError(c.table + " refused the query " + c.sql, e));
            return false;
        }
    }

    /** The row order of the plan's ORDER BY: its hidden keys follow the selected columns. */
    static Comparator<byte[][]> order(TableSelect.Plan plan) {
        int k = plan.orderBy().size();
        int[] keys = new int[k];
        ValueOrder[] orders = new ValueOrder[k];
        for (int i = 0; i < k; i++) {
            keys[i] = plan.selected().size() + i;
            orders[i] = LogicalColumn.order(plan.orderBy().get(i));
        }
        return MergedRows.rowOrder(keys, orders, plan.ascending());
    }

    private boolean aggregate(TableSelect.Plan plan, List<ShardCursor> cursors, ResultSink sink) {
        List<TableSelect.Aggregate> aggs = plan.aggregates();
        BigInteger[] counts = new BigInteger[aggs.size()];
        byte[][] best = new byte[aggs.size()][];
        byte[][] bestKey = new byte[aggs.size()][];
        for (ShardCursor c : cursors) {
            byte[][] row;
            try {
                c.open();
                row = c.next();
            } catch (SQLException e) {
                sink.error(shardError(c.table + " refused the query " + c.sql, e));
                return false;
            }
            int at = 0;
            for (int i = 0; i < aggs.size(); i++) {
                TableSelect.Aggregate a = aggs.get(i);
                if (a.column() == null || a.kind().equals("COUNT")) {
                    BigInteger v = new BigInteger(new String(row[at++], StandardCharsets.US_ASCII));
                    counts[i] = counts[i] == null ? v : counts[i].add(v);
                    continue;
                }
                byte[] value = row[at++];
                byte[] key = row[at++];
                if (value == null) {
                    continue;
                }
                ValueOrder o = aggregateOrder(a.column());
                int cmp = bestKey[i] == null ? 0 : o.compare(key, bestKey[i]);
                if (bestKey[i] == null || (a.kind().equals("MIN") ? cmp < 0 : cmp > 0)) {
                    best[i] = value;
                    bestKey[i] = key;
                }
            }
        }
        sink.columns(plan.columns());
        if (plan.offset() == 0 && plan.limit() > 0) {
            byte[][] out = new byte[aggs.size()][];
            for (int i = 0; i < aggs.size(); i++) {
                out[i] = counts[i] != null ? counts[i].toString().getBytes(StandardCharsets.US_ASCII)
                        : aggs.get(i).column() == null || aggs.get(i).kind().equals("COUNT")
                        ? "0".getBytes(StandardCharsets.US_ASCII) : best[i];
            }
            sink.row(out, out.length);
        }
        sink.end();
        return true;
    }

    /** MIN/MAX compare strings (also ENUM and SET, by their text as the server does) by their weights. */
    static ValueOrder aggregateOrder(SchemaColumn c) {
        if (c.isCharacterType() && !"binary".equals(c.charset())) {
            return ValueOrder.BYTES;
        }
        return LogicalColumn.order(c);
    }

    private static ErrPacket shardError(String what, SQLException e) {
        return new ErrPacket(ER_CONNECT_TO_FOREIGN_DATA_SOURCE, "HY000", "Tributary's dump server: " + what + ": "
                + e.getMessage());
    }

    /** Closes a connection; aborts it when its result was not read to the end (a close would drain it). */
    private static void release(Connection c, boolean drained) {
        try {
            if (drained) {
                c.close();
            } else {
                c.abort(Runnable::run);
            }
        } catch (SQLException | RuntimeException e) {
            // the connection is gone either way
        }
    }

    /** One physical table's result set, read as rows of bytes. */
    static final class ShardCursor implements RowCursor {
        private final Connection connection;
        private final PhysicalTable table;
        private final String sql;
        private final boolean[] bytes;
        /** Per column, the fractional-second digits a server sends for a time column, -1 for other columns. */
        private final int[] fractionDigits;
        private Statement statement;
        private ResultSet rs;
        private int width;
        private boolean ended;

        ShardCursor(Connection connection, PhysicalTable table, TableSelect.Plan plan) {
            this.connection = connection;
            this.table = table;
            this.sql = plan.shardQuery(table.database(), table.table());
            List<Boolean> raw = new ArrayList<>();
            if (plan.isAggregate()) {
                for (TableSelect.Aggregate a : plan.aggregates()) {
                    if (a.column() == null || a.kind().equals("COUNT")) {
                        raw.add(false);
                    } else {
                        raw.add(LogicalColumn.readsBytes(a.column()));
                        raw.add(LogicalColumn.readsBytes(a.column()) || aggregateOrder(a.column()) == ValueOrder.BYTES
                                && a.column().isCharacterType());
                    }
                }
            } else {
                for (SchemaColumn c : plan.selected()) {
                    // text as the bytes the shard sent (utf8mb4, the connection's): no String made and encoded again
                    raw.add(LogicalColumn.readsBytes(c) || c.isCharacterType() || LogicalColumn.readAsText(c));
                }
                for (SchemaColumn c : plan.orderBy()) {
                    raw.add(LogicalColumn.readsBytes(c) || LogicalColumn.orderedByWeight(c));
                }
            }
            this.bytes = new boolean[raw.size()];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = raw.get(i);
            }
            this.fractionDigits = new int[raw.size()];
            java.util.Arrays.fill(fractionDigits, -1);
            if (!plan.isAggregate()) {
                for (int i = 0; i < plan.selected().size(); i++) {
                    SchemaColumn c = plan.selected().get(i);
                    fractionDigits[i] = LogicalColumn.readAsText(c) ? -1 : LogicalColumn.fractionDigits(c);
                }
            } else {
                int at = 0;
                for (TableSelect.Aggregate a : plan.aggregates()) {
                    if (a.column() == null || a.kind().equals("COUNT")) {
                        at++;
                    } else {
                        fractionDigits[at] = LogicalColumn.fractionDigits(a.column());
                        at += 2;
                    }
                }
            }
        }

        void open() throws SQLException {
            if (rs != null) {
                return;
            }
            statement = connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
            statement.setFetchSize(FETCH_ROWS);
            rs = statement.executeQuery(sql);
            width = rs.getMetaData().getColumnCount();
            if (width != bytes.length) {
                throw new SQLException("expected " + bytes.length + " columns, got " + width);
            }
        }

        @Override
        public byte[][] next() throws SQLException {
            if (ended) {
                return null;
            }
            open();
            if (!rs.next()) {
                ended = true;
                rs.close();
                statement.close();
                return null;
            }
            byte[][] row = new byte[width][];
            for (int i = 0; i < width; i++) {
                if (bytes[i]) {
                    row[i] = rs.getBytes(i + 1);
                } else {
                    String s = rs.getString(i + 1);
                    if (s != null && fractionDigits[i] >= 0) {
                        s = LogicalColumn.withFraction(s, fractionDigits[i]);
                    }
                    row[i] = s == null ? null : s.getBytes(StandardCharsets.UTF_8);
                }
            }
            return row;
        }

        /**
         * Closes the result, first cancelling the query on the shard ({@code KILL QUERY}) with {@code cancel}. A kill
         * that reaches the shard after its query ended would interrupt the connection's next statement instead, so a
         * {@code DO 0} takes it (the snapshot transaction stays: an interrupted statement does not end it).
         */
        void close(boolean cancel) {
            if (rs == null || ended) {
                return;
            }
            try {
                if (cancel) {
                    statement.cancel();
                }
            } catch (SQLException | RuntimeException e) {
                // closing reads what is left
            }
            try {
                statement.close();
            } catch (SQLException | RuntimeException e) {
                // the connection reports it at its next statement
            }
            if (cancel) {
                try (Statement s = connection.createStatement()) {
                    s.execute("DO 0");
                } catch (SQLException | RuntimeException e) {
                    // the kill, taken here
                }
            }
        }

        @Override
        public String source() {
            return table.toString();
        }
    }
}
