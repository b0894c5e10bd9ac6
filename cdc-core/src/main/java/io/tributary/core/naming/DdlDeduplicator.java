package io.tributary.core.naming;

import io.tributary.core.order.GlobalEvent;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Physical DDL to logical DDL, once: the same logical statement arriving from several shards (each shard
 * altering its own physical table) appears ONCE in the output, with logical names; the first occurrence
 * wins.
 *
 * <p>Occurrences are recognised by the logical default database, the logical tables named and the
 * normalised statement ({@link DdlRewriter}). An occurrence is a duplicate when another shard already
 * delivered it and this shard has not; once every shard has delivered it, it is forgotten, and a shard
 * delivering it a second time starts a new logical statement (e.g. the same {@code ALTER} run again a
 * day later). So what the output holds depends only on the order the statements arrive in (invariant 4).
 *
 * <p>Not thread-safe: it belongs to the merger's thread.
 */
public final class DdlDeduplicator {

    private record Key(String database, Set<LogicalTable> tables, String normalized) {
    }

    private final LogicalNames names;
    private final DdlRewriter rewriter;
    private final Set<String> shards;
    private final Map<Key, Set<String>> pending = new HashMap<>();

    /** @param shards the configured shard names: a statement is complete once all of them delivered it */
    public DdlDeduplicator(LogicalNames names, Set<String> shards) {
        this.names = Objects.requireNonNull(names, "names");
        this.rewriter = new DdlRewriter(names);
        this.shards = new LinkedHashSet<>(shards);
        if (this.shards.isEmpty()) {
            throw new IllegalArgumentException("at least one shard required");
        }
    }

    /**
     * The statement as it goes to the output, or empty when it duplicates one already emitted.
     *
     * @param shard           the shard it came from
     * @param timestamp       seconds since the epoch (event header)
     * @param defaultDatabase the QUERY event's default database, physical, or empty
     * @param sql             the physical statement
     */
    public Optional<GlobalEvent.Query> accept(String shard, long timestamp, String defaultDatabase, String sql) {
        if (!shards.contains(shard)) {
            throw new IllegalArgumentException("unknown shard " + shard + " (configured: " + shards + ")");
        }
        DdlRewriter.Rewritten r = rewriter.rewrite(defaultDatabase, sql);
        String db = defaultDatabase == null || defaultDatabase.isEmpty() ? "" : names.database(defaultDatabase);
        Key key = new Key(db, r.tables(), r.normalized());
        Set<String> seen = pending.get(key);
        if (seen != null && !seen.contains(shard)) {
            seen.add(shard);
            if (seen.size() == shards.size()) {
                pending.remove(key);
            }
            return Optional.empty();
        }
        if (shards.size() > 1) {
            Set<String> s = new HashSet<>();
            s.add(shard);
            pending.put(key, s);
        }
        return Optional.of(new GlobalEvent.Query(timestamp, db, r.sql()));
    }

    /** Logical statements emitted that not every shard has delivered yet. */
    public int pendingStatements() {
        return pending.size();
    }
}
