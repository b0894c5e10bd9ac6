package io.tributary.storage.merge;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.EventType;
import io.tributary.core.event.QueryEvent;
import io.tributary.core.naming.DdlDeduplicator;
import io.tributary.core.naming.DdlRewriter;
import io.tributary.core.naming.LogicalShape;
import io.tributary.core.naming.ShardServer;
import io.tributary.core.naming.ShardShapes;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.rows.RowsReshaper;
import io.tributary.core.schema.SchemaTable;
import io.tributary.core.naming.LogicalTable;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaChange;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.core.schema.TableDefinitionSource;
import io.tributary.core.schema.TableName;
import io.tributary.core.naming.GlobalTableRegistry;
import io.tributary.core.naming.LayoutConflict;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.sorter.Emission;
import io.tributary.core.sorter.ShardUnit;
import io.tributary.core.transaction.DdlHistory;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import io.tributary.storage.buffer.BufferedTransaction;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what the sorter emits into the {@link GlobalTransaction}s the global binlog writer appends.
 *
 * <ul>
 * <li>A {@link Emission.Single} transaction: its TABLE_MAPs renamed to logical names under global table ids
 *     and its rows events under those ids ({@link GlobalTableRegistry}); a DDL transaction (one QUERY event)
 *     rewritten with logical names once, whatever the number of shards that ran it ({@link DdlDeduplicator}).</li>
 * <li>An {@link Emission.Distributed} XA transaction: ONE transaction holding every branch's events, branch
 *     after branch in the order the sorter gives (shard index, then bqual); commit time the latest of its
 *     branches' commits.</li>
 * </ul>
 * An emission that writes nothing (a duplicate DDL, a transaction without row changes) yields no transaction;
 * its checkpoints are carried by the next transaction written, so a restart never reads it again (a later
 * checkpoint of the same shard replaces an earlier one).
 *
 * <p>Each DDL statement written is applied to the logical schema ({@link SchemaDdl}); what it changed travels
 * with its transaction ({@link GlobalTransaction#schemaChange()}) to the writer's schema history. A statement that
 * cannot be applied is logged with the statement and where it came from; the tables it names are then read again
 * from the shard that wrote it ({@link TableDefinitionSource}) where possible, else they keep their definition.
 *
 * <p>While a DDL rolls out one shard at a time, each DDL copy also moves the shape of the physical table it came
 * from ({@link ShardShapes}, stored with the checkpoint beside the DDL dedup's memory); a transaction keeps the
 * logical schema and the shapes of its position, and the TABLE_MAP and rows events of a physical table in another
 * shape are rewritten into the logical one as they are read ({@link LogicalShape}, {@link RowsReshaper}). Rows that
 * cannot be (a narrowing, another type) throw a {@link io.tributary.core.naming.ShapeConflictException} to the
 * writer, which writes nothing of the transaction; the pipeline stops.
 *
 * <p>Events are read from the buffers lazily, while the writer iterates, so a spilled transaction streams
 * from the spill store. Buffers are released by the caller once the transaction is durable
 * ({@link MergedTransaction#buffers()}).
 *
 * <p>Not thread-safe: it belongs to the thread that drains the sorter and appends to the writer.
 */
public final class TransactionMerger {

    private static final Logger log = LoggerFactory.getLogger(TransactionMerger.class);

    private final List<String> shards;
    private final GlobalTableRegistry registry;
    private final DdlDeduplicator ddl;
    private final Map<String, ShardCheckpoint> carried = new LinkedHashMap<>();
    private final List<BufferedTransaction> carriedBuffers = new ArrayList<>();
    /** {@link DdlDeduplicator#version()} as of the last history handed to a transaction. */
    private long ddlVersionStored;
    private final LogicalNames names;
    private final SchemaDdl schemaDdl;
    private LogicalSchema schema;
    /** The shapes of physical tables behind (or ahead of) their logical table while a DDL rolls out. */
    private ShardShapes shapes;
    private final DdlRewriter rewriter;
    private TableDefinitionSource tableDefinitions = TableDefinitionSource.NONE;
    /** DDL statements written, by what they did to the logical schema ({@link SchemaOutcome}); read by metrics. */
    private final java.util.concurrent.atomic.AtomicLongArray schemaOutcomes =
            new java.util.concurrent.atomic.AtomicLongArray(SchemaOutcome.values().length);

    /** What a DDL statement written did to the logical schema. */
    public enum SchemaOutcome {
        /** applied (or a TRUNCATE, which changes nothing) */
        APPLIED,
        /** not about tables or databases (views, routines, grants) */
        IGNORED,
        /** not applicable; its tables read again from the shard that wrote it */
        REREAD,
        /** not applicable and not read again: its tables keep their definitions */
        FAILED
    }

    /**
     * @param shards    shard names, in index order
     * @param names     the naming rules
     * @param conflicts told of each logical table whose physical tables differ in columns
     */
    public TransactionMerger(List<String> shards, LogicalNames names, Consumer<LayoutConflict> conflicts) {
        this(shards, names, conflicts, DdlHistory.EMPTY);
    }

    /**
     * @param shards     shard names, in index order
     * @param names      the naming rules
     * @param conflicts  told of each logical table whose physical tables differ in columns
     * @param ddlHistory the DDL deduplication's memory stored with the checkpoints this merger starts from
     */
    public TransactionMerger(List<String> shards, LogicalNames names, Consumer<LayoutConflict> conflicts,
            DdlHistory ddlHistory) {
        this(shards, names, conflicts, ddlHistory, LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci"),
                new SchemaDdl(io.tributary.core.event.BinlogFlavor.MARIADB));
    }

    /**
     * @param shards     shard names, in index order
     * @param names      the naming rules
     * @param conflicts  told of each logical table whose physical tables differ in columns
     * @param ddlHistory the DDL deduplication's memory stored with the checkpoints this merger starts from
     * @param schema     the logical schema as of those checkpoints
     * @param schemaDdl  applies DDL to it (in the output's flavor)
     */
    public TransactionMerger(List<String> shards, LogicalNames names, Consumer<LayoutConflict> conflicts,
            DdlHistory ddlHistory, LogicalSchema schema, SchemaDdl schemaDdl) {
        this.names = names;
        this.schema = java.util.Objects.requireNonNull(schema, "schema");
        this.schemaDdl = java.util.Objects.requireNonNull(schemaDdl, "schemaDdl");
        this.shards = List.copyOf(shards);
        this.registry = new GlobalTableRegistry(names, conflicts);
        this.ddl = new DdlDeduplicator(names, new LinkedHashSet<>(shards), ddlHistory, DdlDeduplicator.DEFAULT_CAPACITY);
        this.ddlVersionStored = ddl.version();
        this.rewriter = new DdlRewriter(names);
        this.shapes = ShardShapes.decode(ddlHistory.shapes(), schemaDdl);
    }

    /** The transaction to write for {@code emission}, or empty when it writes nothing (checkpoints carried). */
    public Optional<MergedTransaction> merge(Emission<BufferedTransaction> emission) {
        List<ShardUnit<BufferedTransaction>> parts;
        List<ShardUnit<BufferedTransaction>> commits;
        if (emission instanceof Emission.Single<BufferedTransaction> s) {
            parts = List.of(s.transaction());
            commits = parts;
        } else {
            Emission.Distributed<BufferedTransaction> d = (Emission.Distributed<BufferedTransaction>) emission;
            parts = d.branches();
            commits = d.commits();
        }
        for (ShardCheckpoint c : emission.checkpoints()) {
            carried.remove(c.shard());
            carried.put(c.shard(), c);
        }
        long commitTime = Long.MIN_VALUE;
        for (ShardUnit<BufferedTransaction> c : commits) {
            commitTime = Math.max(commitTime, c.commitTimeMicros());
        }
        Provenance provenance = new Provenance(parts,
                emission instanceof Emission.Distributed<BufferedTransaction> d ? d.gtrid() : null);
        List<BufferedTransaction> buffers = new ArrayList<>();
        for (ShardUnit<BufferedTransaction> p : parts) {
            if (p.payload() != null) {
                buffers.add(p.payload());
            }
        }
        long events = 0;
        for (BufferedTransaction b : buffers) {
            events += b.eventCount();
        }
        if (parts.size() == 1 && events == 1) {
            // the assembler buffers a lone event only for DDL (rows come with their TABLE_MAP)
            ShardUnit<BufferedTransaction> unit = parts.get(0);
            BinlogEvent e;
            try (BufferedTransaction.EventIterator it = unit.payload().events()) {
                e = it.next();
            }
            if (!(e.body() instanceof QueryEvent q)) {
                carriedBuffers.addAll(buffers);
                return Optional.empty();
            }
            String shard = shards.get(unit.shard());
            Optional<GlobalEvent.Query> out = ddl.accept(shard, e.header().timestamp(), q.database(), q.sql());
            LogicalSchema before = schema;
            SchemaChange change = out.isEmpty() ? null : applySchema(out.get(), shard, q.database(), q.sql(), provenance);
            followShapes(shard, q.database(), q.sql(), before, out.isPresent(),
                    q.status() == null ? null : q.status().timeZone());
            if (out.isEmpty()) {
                carriedBuffers.addAll(buffers);
                return Optional.empty();
            }
            return Optional.of(take(GlobalTransaction.Kind.DDL, commitTime, List.of(), out.get(), buffers, provenance,
                    change));
        }
        if (events == 0) {
            carriedBuffers.addAll(buffers);
            return Optional.empty();
        }
        return Optional.of(take(GlobalTransaction.Kind.ROWS, commitTime, parts, null, buffers, provenance, null));
    }

    /**
     * Moves the shape of the physical table a DDL copy altered ({@link ShardShapes}): statements naming one table
     * only (the others leave the shapes as they are).
     *
     * @param before  the logical schema before the statement (the copy written moved it)
     * @param written whether this copy is the one written
     */
    private void followShapes(String shard, String physicalDb, String physicalSql, LogicalSchema before,
            boolean written, String timeZone) {
        if (shapes.isEmpty() && !written) {
            return;
        }
        try {
            moveShapes(shard, physicalDb, physicalSql, before, written, timeZone);
        } catch (RuntimeException e) {
            // a statement the shapes cannot follow must not stop the merge: its table keeps the shapes it had
            log.warn("rollout shapes: cannot follow the DDL statement of shard {} [{}]: {}", shard, physicalSql,
                    e.toString());
        }
    }

    private void moveShapes(String shard, String physicalDb, String physicalSql, LogicalSchema before,
            boolean written, String timeZone) {
        DdlRewriter.Rewritten r = rewriter.rewrite(physicalDb, physicalSql);
        if (r.tables().size() != 1 || r.physicalTables().size() != 1) {
            return;
        }
        LogicalTable lt = r.tables().iterator().next();
        TableName t = new TableName(lt.database(), lt.table());
        String physical = r.physicalTables().get(0);
        int dot = physical.indexOf('.');
        String db = physicalDb == null || physicalDb.isEmpty() ? "" : names.database(physicalDb);
        shapes = shapes.afterCopy(shard, physical.substring(0, dot), physical.substring(dot + 1), t,
                before.table(t).orElse(null), schema.table(t).orElse(null), written, timeZone, current -> {
                    SchemaDdl.Outcome o = schemaDdl.apply(LogicalSchema.empty(schema.charset(), schema.collation())
                            .withTable(current), db, r.sql());
                    if (o instanceof SchemaDdl.Applied a) {
                        return a.schema().table(t);
                    }
                    return o instanceof SchemaDdl.Ignored ? Optional.of(current) : null;
                });
    }

    /** The shapes of physical tables during a rollout, as of the last DDL merged. */
    public ShardShapes shapes() {
        return shapes;
    }

    /** Where tables are read again when a DDL statement cannot be applied (default: nowhere). */
    public void tableDefinitions(TableDefinitionSource source) {
        this.tableDefinitions = java.util.Objects.requireNonNull(source, "source");
    }

    /** DDL statements written so far with this outcome for the logical schema (any thread). */
    public long schemaOutcomes(SchemaOutcome outcome) {
        return schemaOutcomes.get(outcome.ordinal());
    }

    /** The logical schema after the last DDL merged (written, not necessarily durable). */
    public LogicalSchema schema() {
        return schema;
    }

    /** Applies a DDL statement written to the logical schema; what it changed, or null. */
    private SchemaChange applySchema(GlobalEvent.Query query, String shard, String physicalDb, String physicalSql,
            Provenance provenance) {
        String db = query.database() == null ? "" : query.database();
        SchemaDdl.Outcome o = schemaDdl.apply(schema, db, query.sql());
        if (o instanceof SchemaDdl.Applied a) {
            schemaOutcomes.incrementAndGet(SchemaOutcome.APPLIED.ordinal());
            if (a.schema() == schema) {
                return null;
            }
            schema = a.schema();
            return new SchemaChange(db, query.sql(), schema, a.tables(), a.databases());
        }
        if (o instanceof SchemaDdl.Ignored) {
            schemaOutcomes.incrementAndGet(SchemaOutcome.IGNORED.ordinal());
            return null;
        }
        SchemaDdl.Failed f = (SchemaDdl.Failed) o;
        Set<TableName> tables = new java.util.LinkedHashSet<>(f.tables());
        if (tables.isEmpty()) {
            for (LogicalTable t : new DdlRewriter(names).rewrite(physicalDb, physicalSql).tables()) {
                tables.add(new TableName(t.database(), t.table()));
            }
        }
        LogicalSchema reread = schema;
        List<String> done = new ArrayList<>();
        for (TableName t : tables) {
            try {
                Optional<String> text = tableDefinitions.showCreateTable(shard, t);
                if (text.isPresent()) {
                    reread = reread.withTable(schemaDdl.parseCreateTable(reread, t.database(), text.get()).withName(t));
                    done.add(t.toString());
                }
            } catch (Exception e) {
                log.warn("logical schema: cannot read {} again from shard {}: {}", t, shard, e.toString());
            }
        }
        log.warn("logical schema: cannot apply the DDL statement written for {} ({}): {} [statement: {}]; {}", provenance,
                shard, f.reason(), query.sql(), done.isEmpty() ? "the tables it names keep their definitions"
                        : "read " + String.join(", ", done) + " again from shard " + shard + " (its definition now)");
        schemaOutcomes.incrementAndGet((done.isEmpty() ? SchemaOutcome.FAILED : SchemaOutcome.REREAD).ordinal());
        if (done.isEmpty()) {
            return null;
        }
        schema = reread;
        return new SchemaChange(db, query.sql(), schema, tables, Set.of());
    }

    private MergedTransaction take(GlobalTransaction.Kind kind, long commitTime, List<ShardUnit<BufferedTransaction>> parts,
            GlobalEvent.Query query, List<BufferedTransaction> buffers, Provenance provenance, SchemaChange change) {
        List<ShardCheckpoint> checkpoints = List.copyOf(carried.values());
        carried.clear();
        List<BufferedTransaction> all = new ArrayList<>(carriedBuffers);
        all.addAll(buffers);
        carriedBuffers.clear();
        DdlHistory history = null;
        if (ddl.version() != ddlVersionStored) {
            history = new DdlHistory(ddl.history().statements(), shapes.encode(schemaDdl.flavor()));
            ddlVersionStored = ddl.version();
        }
        return new MergedTransaction(kind, commitTime, parts, query, checkpoints, history, all, provenance, change,
                schema, shapes);
    }

    /** Buffers of emissions that wrote nothing, not yet carried by a written transaction (to free on close). */
    public List<BufferedTransaction> carriedBuffers() {
        return List.copyOf(carriedBuffers);
    }

    /** Checkpoints of emissions that wrote nothing, not yet carried by a written transaction. */
    public List<ShardCheckpoint> pendingCheckpoints() {
        return List.copyOf(carried.values());
    }

    /**
     * Where a global transaction comes from ({@code shard key, ...} and the XA gtrid), for messages: spelled
     * out only when a message needs it, not for every transaction written.
     */
    private final class Provenance {
        private final List<ShardUnit<BufferedTransaction>> parts;
        private final String gtrid;

        Provenance(List<ShardUnit<BufferedTransaction>> parts, String gtrid) {
            this.parts = parts;
            this.gtrid = gtrid;
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            for (ShardUnit<BufferedTransaction> p : parts) {
                b.append(b.length() == 0 ? "" : ", ").append(shards.get(p.shard())).append(' ').append(p.key());
            }
            if (gtrid != null) {
                b.append(" (XA ").append(gtrid).append(')');
            }
            return b.toString();
        }
    }

    /** One global transaction: its events come from the buffers of its parts, read once. */
    public final class MergedTransaction implements GlobalTransaction {
        private final Kind kind;
        private final long commitTime;
        private final List<ShardUnit<BufferedTransaction>> parts;
        private final GlobalEvent.Query query;
        private final List<ShardCheckpoint> checkpoints;
        private final DdlHistory ddlHistory;
        private final List<BufferedTransaction> buffers;
        private final Provenance provenance;
        private final SchemaChange schemaChange;
        /** The logical schema and the rollout shapes at this transaction's global position. */
        private final LogicalSchema schemaAt;
        private final ShardShapes shapesAt;
        private boolean read;

        private MergedTransaction(Kind kind, long commitTime, List<ShardUnit<BufferedTransaction>> parts,
                GlobalEvent.Query query, List<ShardCheckpoint> checkpoints, DdlHistory ddlHistory,
                List<BufferedTransaction> buffers, Provenance provenance, SchemaChange schemaChange,
                LogicalSchema schemaAt, ShardShapes shapesAt) {
            this.schemaChange = schemaChange;
            this.schemaAt = schemaAt;
            this.shapesAt = shapesAt;
            this.kind = kind;
            this.commitTime = commitTime;
            this.parts = parts;
            this.query = query;
            this.checkpoints = checkpoints;
            this.ddlHistory = ddlHistory;
            this.buffers = buffers;
            this.provenance = provenance;
        }

        @Override
        public Kind kind() {
            return kind;
        }

        @Override
        public long commitTimeMicros() {
            return commitTime;
        }

        @Override
        public Iterator<GlobalEvent> events() {
            if (read) {
                throw new IllegalStateException("events of " + provenance + " already read");
            }
            read = true;
            if (kind == Kind.DDL) {
                return List.<GlobalEvent>of(query).iterator();
            }
            return new RowsIterator(parts, schemaAt, shapesAt);
        }

        @Override
        public List<ShardCheckpoint> checkpoints() {
            return checkpoints;
        }

        @Override
        public DdlHistory ddlHistory() {
            return ddlHistory;
        }

        @Override
        public String provenance() {
            return provenance.toString();
        }

        @Override
        public SchemaChange schemaChange() {
            return schemaChange;
        }

        /** The buffers to release once this transaction is durable (including those of skipped emissions). */
        public List<BufferedTransaction> buffers() {
            return buffers;
        }

        @Override
        public String toString() {
            return kind + " " + provenance + " ts=" + commitTime + " checkpoints=" + checkpoints.size();
        }
    }

    /**
     * Each shard's server as the rewrite sees it: the output's flavor (the shards'), its time zone and its
     * binlog_row_image, asked of {@link #tableDefinitions} once each, when a rewrite first needs it (append thread).
     */
    private final Map<String, ShardServer> servers = new java.util.HashMap<>();

    private ShardServer server(String shard) {
        return servers.computeIfAbsent(shard, s -> new ShardServer(schemaDdl.flavor(), new java.util.function.Supplier<>() {
            private java.time.ZoneId zone;

            @Override
            public java.time.ZoneId get() {
                if (zone == null) {
                    try {
                        zone = tableDefinitions.timeZone(s).orElseThrow(() -> new IllegalStateException(
                                "the daemon cannot ask shard " + s + " for its time zone"));
                    } catch (IllegalStateException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException("asking shard " + s + " for its time zone failed: " + e, e);
                    }
                }
                return zone;
            }
        }, new java.util.function.Supplier<>() {
            private io.tributary.core.event.rows.RowsReshaper.RowImage image;

            @Override
            public io.tributary.core.event.rows.RowsReshaper.RowImage get() {
                if (image == null) {
                    try {
                        image = tableDefinitions.rowImage(s).map(ShardServer::rowImage)
                                .orElse(io.tributary.core.event.rows.RowsReshaper.RowImage.FULL);
                    } catch (Exception e) {
                        log.warn("rollout rewrite: cannot ask shard {} for its binlog_row_image ({}); added columns are"
                                + " written in every full image, as a FULL server does", s, e.toString());
                        image = io.tributary.core.event.rows.RowsReshaper.RowImage.FULL;
                    }
                }
                return image;
            }
        }, null));
    }

    /** A table map's rewrite (or none), valid for these shapes, schema and shard. */
    private record ShapeDecision(ShardShapes shapes, LogicalSchema schema, String shard, RowsReshaper reshaper) {
    }

    /**
     * Per decoded table map body (shard readers share the body of a table map that repeats), its rewrite as last
     * decided: the append thread's, like the events it reads.
     */
    private final Map<TableMapEvent, ShapeDecision> decisions = new java.util.IdentityHashMap<>();

    /**
     * The branches' TABLE_MAP and rows events, renamed, branch after branch; those of a physical table in another
     * shape than its logical table at this position (a DDL rolling out) rewritten into the logical shape.
     */
    private final class RowsIterator implements Iterator<GlobalEvent> {
        private final Iterator<ShardUnit<BufferedTransaction>> branches;
        private final LogicalSchema schemaAt;
        private final ShardShapes shapesAt;
        /** The current branch's rewrites, by the shard's table id (few: only during a rollout). */
        private final Map<Long, RowsReshaper> reshapers = new java.util.HashMap<>();
        private String shard;
        /** The current branch's commit time (microseconds: MySQL 8's GTID commit timestamp, else seconds). */
        private long commitMicros;
        private BufferedTransaction.EventIterator current;
        private GlobalEvent next;

        RowsIterator(List<ShardUnit<BufferedTransaction>> parts, LogicalSchema schemaAt, ShardShapes shapesAt) {
            this.branches = parts.iterator();
            this.schemaAt = schemaAt;
            this.shapesAt = shapesAt;
        }

        /** The rewrite of the rows of this table map's table into its logical shape, or null: none needed. */
        private RowsReshaper reshaper(BinlogEvent e) {
            TableMapEvent map = e.body(TableMapEvent.class);
            ShapeDecision d = decisions.get(map);
            if (d != null && d.shapes() == shapesAt && d.schema() == schemaAt && d.shard().equals(shard)) {
                return d.reshaper();
            }
            RowsReshaper r = decide(map);
            if (decisions.size() >= 4096) {
                decisions.clear();
            }
            decisions.put(map, new ShapeDecision(shapesAt, schemaAt, shard, r));
            return r;
        }

        private RowsReshaper decide(TableMapEvent map) {
            LogicalTable lt = names.logicalTable(map.database(), map.table());
            TableName t = new TableName(lt.database(), lt.table());
            if (!shapesAt.tables().contains(t)) {
                return null;
            }
            SchemaTable logical = schemaAt.table(t).orElse(null);
            if (logical == null) {
                return null;
            }
            Optional<SchemaTable> shape = shapesAt.shapeOf(shard, map.database(), map.table(), t, map, logical);
            if (shape.isEmpty()) {
                return null;
            }
            return LogicalShape.plan(shard, map.database() + "." + map.table(), map, shape.get(), logical,
                    server(shard).withDdlTimeZone(shapesAt.ddlTimeZone(t).orElse(null))).orElse(null);
        }

        /**
         * A row's own time, for columns whose default is CURRENT_TIMESTAMP: the rows event's timestamp (the
         * statement's start, in seconds), with the microseconds of its transaction's commit timestamp where the shard
         * writes one (MySQL 8) and it falls in the same second.
         */
        private long rowTime(BinlogEvent e) {
            long micros = e.header().timestamp() * 1_000_000L;
            return commitMicros / 1_000_000L == e.header().timestamp() ? commitMicros : micros;
        }

        @Override
        public boolean hasNext() {
            while (next == null) {
                if (current != null && current.hasNext()) {
                    BinlogEvent e = current.next();
                    EventType t = e.type();
                    if (t == EventType.TABLE_MAP) {
                        RowsReshaper r = shapesAt.isEmpty() ? null : reshaper(e);
                        if (r != null) {
                            reshapers.put(r.targetMap().tableId(), r);
                            next = registry.tableMap(shard, r.tableMap(e));
                        } else {
                            if (!reshapers.isEmpty()) {
                                reshapers.remove(e.body(TableMapEvent.class).tableId());
                            }
                            next = registry.tableMap(shard, e);
                        }
                    } else if (t != null && t.isRows()) {
                        GlobalEvent.Rows rows = registry.rows(shard, e);
                        RowsReshaper r = reshapers.isEmpty() ? null : reshapers.get(RowsEvent.tableIdOf(e));
                        next = r == null ? rows : new GlobalEvent.Rows(r.rows(e, rowTime(e)), rows.tableId());
                    }
                    continue;
                }
                if (current != null) {
                    current.close();
                    reshapers.clear();
                    registry.endTransaction(shard);
                    current = null;
                }
                if (!branches.hasNext()) {
                    return false;
                }
                ShardUnit<BufferedTransaction> b = branches.next();
                if (b.payload() != null) {
                    shard = shards.get(b.shard());
                    commitMicros = b.commitTimeMicros();
                    current = b.payload().events();
                }
            }
            return true;
        }

        @Override
        public GlobalEvent next() {
            if (!hasNext()) {
                throw new NoSuchElementException("no more events");
            }
            GlobalEvent e = next;
            next = null;
            return e;
        }
    }
}
