package io.tributary.core.naming;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.transaction.GlobalEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Gives every logical table a global table id and rewrites the shards' TABLE_MAP and rows events to it.
 *
 * <p>A global id stands for one (logical table, {@link ColumnLayout}) pair and is a function of that pair alone
 * ({@link #stableId}: 40 bits of its SHA-256), not of the order pairs are first seen in: a daemon restarted in the
 * middle of the shard binlogs, or a twin started later, gives every table the id it had (issue 20). Two pairs
 * whose hashes collide (about one chance in 10^6 with a thousand pairs) are told apart by giving the later one the
 * next free id; only then do the ids depend on the order. Physical tables of one
 * logical table with the same layout share the id. Physical tables whose layouts differ are NOT merged:
 * each layout keeps an id of its own (its table maps still carry the logical name, so its rows stay
 * decodable), and a {@link LayoutConflict} naming both physical tables and both layouts is reported, once
 * per pair of layouts, to the listener and in {@link #conflicts()}. The comparison is between the
 * CURRENT layouts (the last table map of each physical table), so a schema change applied to every shard
 * converges without a report once all have it, while a rolling one is reported once: meanwhile the
 * physical tables really do differ.
 *
 * <p>Rows events refer to the physical table id of the shard's last table map for it; the registry keeps
 * that mapping per shard until {@link #endTransaction} (MySQL writes the table maps of a statement before
 * its rows, within the transaction, so nothing needs to outlive it).
 *
 * <p>Not thread-safe: it belongs to the merger's thread.
 */
public final class GlobalTableRegistry {

    private record Key(LogicalTable table, ColumnLayout layout) {
    }

    private record Assigned(long id, String source) {
    }

    /** The outcome of a table map body already renamed, valid while no layout changed since. */
    private record Renamed(TableMapEvent body, LogicalTable table, long id, long layoutChanges) {
    }

    private final LogicalNames names;
    private final Consumer<LayoutConflict> listener;
    private final Map<Key, Assigned> ids = new HashMap<>();
    private final Map<LogicalTable, Map<String, ColumnLayout>> current = new HashMap<>();
    private final Map<LogicalTable, java.util.Set<java.util.Set<ColumnLayout>>> reportedPairs = new HashMap<>();
    private final Map<String, PhysicalIds> physicalIds = new HashMap<>();
    private final List<LayoutConflict> conflicts = new ArrayList<>();
    /** Per shard and physical table id, the last table map renamed (shard readers share decoded bodies). */
    private final Map<String, Map<Long, Renamed>> renamed = new HashMap<>();
    /** Changes of any physical table's current layout: a {@link Renamed} of an earlier count is stale. */
    private long layoutChanges;
    /** Ids handed out, and to which pair (for the rare collision of two pairs' hashes). */
    private final Map<Long, Key> idOwners = new HashMap<>();
    /** Table ids stay below this: TABLE_MAP holds 6 bytes, and ~0 of them is MySQL's dummy id. */
    static final long ID_LIMIT = 1L << 40;

    /**
     * @param names    the naming rules
     * @param listener told of each layout conflict as it is found (e.g. logs a warning)
     */
    public GlobalTableRegistry(LogicalNames names, Consumer<LayoutConflict> listener) {
        this.names = Objects.requireNonNull(names, "names");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** The table map under its logical name and global id. */
    public GlobalEvent.TableMap tableMap(String shard, BinlogEvent event) {
        TableMapEvent map = event.body(TableMapEvent.class);
        Map<Long, Renamed> byId = renamed.computeIfAbsent(shard, s -> new HashMap<>());
        Renamed r = byId.get(map.tableId());
        if (r != null && r.body() == map && r.layoutChanges() == layoutChanges) {
            // the same decoded body as last time, nothing changed since: same logical table, same id, no new conflict
            physicalIds.computeIfAbsent(shard, s -> new PhysicalIds()).put(map.tableId(), r.id());
            return new GlobalEvent.TableMap(event, r.id(), r.table().database(), r.table().table());
        }
        LogicalTable table = names.logicalTable(map.database(), map.table());
        ColumnLayout layout = ColumnLayout.of(map);
        Key key = new Key(table, layout);
        String source = shard + " " + map.database() + "." + map.table();
        Assigned assigned = ids.get(key);
        if (assigned == null) {
            long id = stableId(table, layout);
            while (idOwners.containsKey(id)) {
                id = id + 1 < ID_LIMIT ? id + 1 : 1;
            }
            idOwners.put(id, key);
            assigned = new Assigned(id, source);
            ids.put(key, assigned);
        }
        Map<String, ColumnLayout> layouts = current.computeIfAbsent(table, t -> new LinkedHashMap<>());
        for (Map.Entry<String, ColumnLayout> other : layouts.entrySet()) {
            if (!other.getKey().equals(source) && !other.getValue().equals(layout)
                    && reportedPairs.computeIfAbsent(table, t -> new java.util.HashSet<>())
                            .add(java.util.Set.of(other.getValue(), layout))) {
                LayoutConflict c = new LayoutConflict(table, other.getKey(), ids.get(new Key(table, other.getValue())).id(),
                        other.getValue(), source, assigned.id(), layout);
                conflicts.add(c);
                listener.accept(c);
            }
        }
        if (!layout.equals(layouts.put(source, layout))) {
            layoutChanges++;
        }
        if (byId.size() >= 4096) {
            byId.clear();
        }
        byId.put(map.tableId(), new Renamed(map, table, assigned.id(), layoutChanges));
        physicalIds.computeIfAbsent(shard, s -> new PhysicalIds()).put(map.tableId(), assigned.id());
        return new GlobalEvent.TableMap(event, assigned.id(), table.database(), table.table());
    }

    /** The rows event under the global id of the shard's table map it refers to. */
    public GlobalEvent.Rows rows(String shard, BinlogEvent event) {
        long tableId = RowsEvent.tableIdOf(event);
        PhysicalIds m = physicalIds.get(shard);
        long id = m == null ? -1 : m.get(tableId);
        if (id < 0) {
            throw new IllegalStateException("shard " + shard + ": " + event.type() + " at offset " + event.offset()
                    + " refers to table id " + tableId + ", but no TABLE_MAP for it precedes it in the transaction"
                    + " (known ids: " + (m == null ? "none" : m) + ")");
        }
        return new GlobalEvent.Rows(event, id);
    }

    /**
     * The global id a (logical table, layout) pair gets unless another pair's took it first: 40 bits (never 0) of the
     * SHA-256 of the names, column types, metadata, nullability and column names.
     */
    static long stableId(LogicalTable table, ColumnLayout layout) {
        StringBuilder sb = new StringBuilder();
        sb.append(table.database()).append('\0').append(table.table()).append('\0');
        for (int i = 0; i < layout.types().size(); i++) {
            sb.append(layout.types().get(i).code()).append(':').append(layout.metadata().get(i)).append(',');
        }
        sb.append('\0').append(layout.nullable()).append('\0').append(String.join("\0", layout.names()));
        byte[] d;
        try {
            d = java.security.MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(
                    java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        long id = 0;
        for (int i = 0; i < 5; i++) {
            id = (id << 8) | (d[i] & 0xff);
        }
        return id == 0 ? 1 : id;
    }

    /** Forgets the shard's physical table ids: its transaction ended. */
    public void endTransaction(String shard) {
        PhysicalIds m = physicalIds.get(shard);
        if (m != null) {
            m.clear();
        }
    }

    /**
     * One shard's physical table ids in the current transaction and their global ids, in the order mapped. A
     * transaction maps a handful of tables, so a scan of two arrays beats a map of boxed longs per rows event.
     */
    private static final class PhysicalIds {
        private long[] physical = new long[8];
        private long[] global = new long[8];
        private int size;

        void put(long physicalId, long globalId) {
            for (int i = 0; i < size; i++) {
                if (physical[i] == physicalId) {
                    global[i] = globalId;
                    return;
                }
            }
            if (size == physical.length) {
                physical = java.util.Arrays.copyOf(physical, size * 2);
                global = java.util.Arrays.copyOf(global, size * 2);
            }
            physical[size] = physicalId;
            global[size++] = globalId;
        }

        /** The global id of {@code physicalId}, or -1. */
        long get(long physicalId) {
            for (int i = size - 1; i >= 0; i--) {
                if (physical[i] == physicalId) {
                    return global[i];
                }
            }
            return -1;
        }

        void clear() {
            size = 0;
        }

        @Override
        public String toString() {
            return java.util.Arrays.toString(java.util.Arrays.copyOf(physical, size));
        }
    }

    /** Every layout conflict found so far, in the order found. */
    public List<LayoutConflict> conflicts() {
        return List.copyOf(conflicts);
    }

    /** The logical tables and layouts known, with their ids (for diagnostics). */
    public int size() {
        return ids.size();
    }
}
