package io.tributary.core.naming;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.schema.CreateTableText;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.core.schema.SchemaTable;
import io.tributary.core.schema.TableName;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The shape each shard's physical tables are in while a DDL rolls out shard by shard (issue 16): the logical
 * table moves at the DDL's first copy (the one written), each physical table at its own copy.
 *
 * <p>A <em>rollout</em> starts when a DDL that changes a logical table's columns is written. It holds the shape
 * the table had before it (the <em>base</em>, the shape of every physical table that has delivered no copy since)
 * and the shape of each physical table that has, moved by applying the logical statement of each of its own copies
 * to its own shape. So a shard two DDLs behind is in the shape before both; one that ran a statement the others did
 * not is in a shape of its own. A physical table that delivered no copy and whose TABLE_MAP does not fit the base
 * but fits the logical shape (created after the DDL, or altered before the daemon followed it) is taken to be in
 * the logical shape. A rollout ends once every physical table it knows and its base have the logical row layout
 * again (say an {@code ADD} then a {@code DROP} of one column), or when more than {@value #CAPACITY} rollouts are
 * open (the oldest is forgotten, with a warning: a physical table still behind it then stops the pipeline with a
 * {@link ShapeConflictException} rather than writing rows in a wrong shape).
 *
 * <p>Restart: {@link #encode} gives printable tokens stored with the checkpoint (with the DDL deduplication's
 * memory, which changes with the same copies); {@link #decode} reads them back.
 *
 * <p>Immutable: each copy gives a new value, so a transaction keeps the shapes of its global position while later
 * DDL moves on. Thread-safe.
 */
public final class ShardShapes {

    /** Rollouts open at once, at most. */
    public static final int CAPACITY = 64;

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ShardShapes.class);

    /**
     * @param tables   by {@link #key}: the shape of each physical table that delivered a copy since the base
     * @param timeZone the session time zone of the last DDL written ({@code Q_TIME_ZONE_CODE}), in which its
     *                 TIMESTAMP literals are read; null when its session had none set (the server's then)
     */
    private record Rollout(SchemaTable base, Map<String, SchemaTable> tables, String timeZone) {
    }

    /** Nothing rolling out. */
    public static final ShardShapes NONE = new ShardShapes(new LinkedHashMap<>());

    /** Least recently moved first. */
    private final Map<TableName, Rollout> rollouts;

    private ShardShapes(LinkedHashMap<TableName, Rollout> rollouts) {
        this.rollouts = Collections.unmodifiableMap(rollouts);
    }

    public boolean isEmpty() {
        return rollouts.isEmpty();
    }

    /** Logical tables with a rollout open. */
    public java.util.Set<TableName> tables() {
        return rollouts.keySet();
    }

    private static String key(String shard, String physicalDb, String physicalTable) {
        return shard + "/" + physicalDb.toLowerCase(Locale.ROOT) + "." + physicalTable.toLowerCase(Locale.ROOT);
    }

    /**
     * The shape physical table {@code physicalDb.physicalTable} of {@code shard} is in, when a rollout of its
     * logical table is open; empty when it follows the logical shape.
     *
     * @param map          its TABLE_MAP (tells a physical table that delivered no copy from one in the logical shape)
     * @param logicalShape the logical table's shape at this position
     */
    public Optional<SchemaTable> shapeOf(String shard, String physicalDb, String physicalTable, TableName logical,
            TableMapEvent map, SchemaTable logicalShape) {
        Rollout r = rollouts.get(logical);
        if (r == null) {
            return Optional.empty();
        }
        SchemaTable own = r.tables().get(key(shard, physicalDb, physicalTable));
        if (own != null) {
            return Optional.of(own);
        }
        if (!LogicalShape.fits(map, r.base()) && logicalShape != null && LogicalShape.fits(map, logicalShape)) {
            return Optional.empty();
        }
        return Optional.of(r.base());
    }

    /**
     * The session time zone of the last DDL written of the rollout of {@code logical} ({@code Q_TIME_ZONE_CODE}),
     * the zone its TIMESTAMP literal defaults are read in; empty when none is open or the session had none set.
     */
    public Optional<String> ddlTimeZone(TableName logical) {
        Rollout r = rollouts.get(logical);
        return r == null ? Optional.empty() : Optional.ofNullable(r.timeZone());
    }

    /** {@link #afterCopy(String, String, String, TableName, SchemaTable, SchemaTable, boolean, String, Function)}
     * of a statement whose session had no time zone set. */
    public ShardShapes afterCopy(String shard, String physicalDb, String physicalTable, TableName logical,
            SchemaTable logicalBefore, SchemaTable logicalAfter, boolean written,
            Function<SchemaTable, Optional<SchemaTable>> apply) {
        return afterCopy(shard, physicalDb, physicalTable, logical, logicalBefore, logicalAfter, written, null, apply);
    }

    /**
     * After a copy of a DDL statement on one physical table.
     *
     * @param logicalBefore the logical table before the statement was applied to it (null: none)
     * @param logicalAfter  the logical table now (null: none, e.g. dropped)
     * @param written       whether this copy is the one written (the first)
     * @param timeZone      the statement's session time zone ({@code Q_TIME_ZONE_CODE}), or null when not set
     * @param apply         the logical statement applied to a shape: the shape after it, or empty when it leaves
     *                      no table, or null when it cannot be applied
     */
    public ShardShapes afterCopy(String shard, String physicalDb, String physicalTable, TableName logical,
            SchemaTable logicalBefore, SchemaTable logicalAfter, boolean written, String timeZone,
            Function<SchemaTable, Optional<SchemaTable>> apply) {
        Rollout r = rollouts.get(logical);
        if (r == null) {
            if (!written || logicalBefore == null || logicalAfter == null
                    || LogicalShape.sameRowLayout(logicalBefore, logicalAfter)) {
                return this;
            }
            r = new Rollout(logicalBefore, Map.of(), null);
        }
        String zone = written ? timeZone : r.timeZone();
        String key = key(shard, physicalDb, physicalTable);
        SchemaTable current = r.tables().getOrDefault(key, r.base());
        Optional<SchemaTable> next = apply.apply(current);
        Map<String, SchemaTable> tables = new LinkedHashMap<>(r.tables());
        if (next == null) {
            log.warn("rollout of {}: the statement of shard {} cannot be applied to the shape of {}.{}; taking it to"
                    + " be in the logical shape", logical, shard, physicalDb, physicalTable);
            if (logicalAfter == null) {
                tables.remove(key);
            } else {
                tables.put(key, logicalAfter);
            }
        } else if (next.isEmpty()) {
            tables.remove(key);
        } else {
            tables.put(key, next.get().withName(logical));
        }
        LinkedHashMap<TableName, Rollout> out = new LinkedHashMap<>(rollouts);
        out.remove(logical);
        boolean done = logicalAfter == null || LogicalShape.sameRowLayout(r.base(), logicalAfter)
                && tables.values().stream().allMatch(t -> LogicalShape.sameRowLayout(t, logicalAfter));
        if (!done) {
            out.put(logical, new Rollout(r.base(), tables, zone));
        }
        while (out.size() > CAPACITY) {
            TableName oldest = out.keySet().iterator().next();
            out.remove(oldest);
            log.warn("rollout of {} forgotten: more than {} rollouts open; a physical table still in its old shape"
                    + " will stop the pipeline", oldest, CAPACITY);
        }
        return new ShardShapes(out);
    }

    /** Printable tokens without spaces, one per rollout, oldest first. */
    public List<String> encode(BinlogFlavor flavor) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<TableName, Rollout> e : rollouts.entrySet()) {
            StringBuilder sb = new StringBuilder();
            sb.append(e.getKey().database()).append('\0').append(e.getKey().table()).append('\0')
                    .append(CreateTableText.render(e.getValue().base(), flavor));
            e.getValue().tables().forEach((k, t) -> sb.append('\0').append(k).append('\0')
                    .append(CreateTableText.render(t, flavor)));
            if (e.getValue().timeZone() != null) {
                sb.append('\0').append(e.getValue().timeZone()); // a last field of its own: an even count
            }
            out.add(Base64.getUrlEncoder().withoutPadding().encodeToString(sb.toString().getBytes(StandardCharsets.UTF_8)));
        }
        return out;
    }

    /**
     * The shapes of {@link #encode}'s tokens.
     *
     * @throws IllegalArgumentException naming the token that cannot be read
     */
    public static ShardShapes decode(List<String> tokens, SchemaDdl ddl) {
        LinkedHashMap<TableName, Rollout> out = new LinkedHashMap<>();
        LogicalSchema empty = LogicalSchema.empty("utf8mb4", "utf8mb4_general_ci");
        for (String token : tokens) {
            try {
                String[] f = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8).split("\0", -1);
                if (f.length < 3) {
                    throw new IllegalArgumentException(f.length + " fields");
                }
                String timeZone = f.length % 2 == 0 ? f[f.length - 1] : null;
                int end = f.length - (timeZone == null ? 0 : 1);
                TableName name = new TableName(f[0], f[1]);
                SchemaTable base = ddl.parseCreateTable(empty, f[0], f[2]).withName(name);
                Map<String, SchemaTable> tables = new LinkedHashMap<>();
                for (int i = 3; i < end; i += 2) {
                    tables.put(f[i], ddl.parseCreateTable(empty, f[0], f[i + 1]).withName(name));
                }
                out.put(name, new Rollout(base, tables, timeZone));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("stored rollout shapes: cannot read token " + abbreviate(token)
                        + ": " + e.getMessage(), e);
            }
        }
        return new ShardShapes(out);
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShardShapes s && rollouts.equals(s.rollouts);
    }

    @Override
    public int hashCode() {
        return rollouts.hashCode();
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        rollouts.forEach((t, r) -> parts.add(t + ": base " + LogicalShape.describe(r.base()) + ", moved "
                + r.tables().keySet()));
        return "ShardShapes" + parts;
    }
}
