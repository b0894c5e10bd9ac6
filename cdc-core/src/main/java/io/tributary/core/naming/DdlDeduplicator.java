package io.tributary.core.naming;

import io.tributary.core.transaction.DdlHistory;
import io.tributary.core.transaction.GlobalEvent;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Physical DDL to logical DDL, once: the same logical statement arriving as several physical copies (each
 * shard altering its own physical tables, and a shard holding several physical tables of one logical table,
 * {@code shop_01.orders_0001} and {@code shop_01.orders_0002}) appears ONCE in the output, with logical
 * names; the first copy wins.
 *
 * <p>A logical statement is recognised by the logical default database, the logical tables named and the
 * normalised statement ({@link DdlRewriter}); a physical copy's <em>source</em> is its shard, physical
 * default database and normalised physical statement. Rule: the n-th copy from one source belongs to the
 * n-th run of the logical statement. So a copy is written when its source has now delivered more copies
 * than the statement was written, and is a duplicate otherwise. Running {@code ADD INDEX}, {@code DROP
 * INDEX}, {@code ADD INDEX} on every physical table writes exactly those three statements, whatever the
 * interleaving of shards and tables. What the output holds depends only on the order copies arrive in
 * (invariant 4).
 *
 * <p>Memory: the {@value #DEFAULT_CAPACITY} statements seen most recently (digests only, see
 * {@link DdlHistory}); older ones are forgotten, logged, and a copy of a forgotten statement arriving later
 * is written again. The number of physical copies of a statement is not known in advance (tables may be
 * created at any time), so "every copy has arrived" is never certain and forgetting is by age.
 *
 * <p>Restart: {@link #history()} is stored with the checkpoint of the transaction it belongs to and given
 * back to {@link #DdlDeduplicator(LogicalNames, Set, DdlHistory, int)}.
 *
 * <p>Not thread-safe: it belongs to the merger's thread.
 */
public final class DdlDeduplicator {

    /** Statements remembered by default. */
    public static final int DEFAULT_CAPACITY = 1000;

    private static final Logger log = LoggerFactory.getLogger(DdlDeduplicator.class);

    private static final class Entry {
        int written;
        final Map<String, Integer> copies = new LinkedHashMap<>();
    }

    private final LogicalNames names;
    private final DdlRewriter rewriter;
    private final Set<String> shards;
    private final int capacity;
    /** Access order: least recently seen first. */
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long version;

    /** @param shards the configured shard names */
    public DdlDeduplicator(LogicalNames names, Set<String> shards) {
        this(names, shards, DdlHistory.EMPTY, DEFAULT_CAPACITY);
    }

    /**
     * @param shards   the configured shard names
     * @param history  what was remembered as of the last durable transaction ({@link DdlHistory#EMPTY} at first)
     * @param capacity statements to remember
     */
    public DdlDeduplicator(LogicalNames names, Set<String> shards, DdlHistory history, int capacity) {
        this.names = Objects.requireNonNull(names, "names");
        this.rewriter = new DdlRewriter(names);
        this.shards = new LinkedHashSet<>(shards);
        if (this.shards.isEmpty()) {
            throw new IllegalArgumentException("at least one shard required");
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("DDL dedup capacity " + capacity + ", expected at least 1");
        }
        this.capacity = capacity;
        for (DdlHistory.Statement s : history.statements()) {
            Entry e = new Entry();
            e.written = s.written();
            e.copies.putAll(s.copies());
            entries.put(s.key(), e);
        }
        evict();
    }

    /**
     * The statement as it goes to the output, or empty when it is a copy of one already written.
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
        String physicalDb = defaultDatabase == null ? "" : defaultDatabase;
        String db = physicalDb.isEmpty() ? "" : names.database(physicalDb);
        StringBuilder logical = new StringBuilder(db).append('\0');
        for (LogicalTable t : r.tables()) {
            logical.append(t.database()).append('.').append(t.table()).append(',');
        }
        String key = digest(logical.append('\0').append(r.normalized()).toString(), 15);
        String source = digest(shard + '\0' + physicalDb + '\0' + r.physicalNormalized(), 9);
        Entry e = entries.get(key);
        if (e == null) {
            e = new Entry();
            entries.put(key, e);
        }
        int n = e.copies.merge(source, 1, Integer::sum);
        version++;
        boolean write = n > e.written;
        if (write) {
            e.written = n;
        }
        evict();
        return write ? Optional.of(new GlobalEvent.Query(timestamp, db, r.sql())) : Optional.empty();
    }

    private void evict() {
        while (entries.size() > capacity) {
            var eldest = entries.entrySet().iterator();
            Map.Entry<String, Entry> gone = eldest.next();
            eldest.remove();
            log.info("DDL dedup forgets statement {} (written {} times, {} sources): the {} seen since are remembered;"
                    + " a copy of it arriving from now on is written again", gone.getKey(), gone.getValue().written,
                    gone.getValue().copies.size(), capacity);
        }
    }

    /** What is remembered now, to store with the next transaction written. */
    public DdlHistory history() {
        List<DdlHistory.Statement> list = new ArrayList<>(entries.size());
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            list.add(new DdlHistory.Statement(e.getKey(), e.getValue().written, e.getValue().copies));
        }
        return new DdlHistory(list);
    }

    /** Changes with every copy accepted: whether {@link #history()} needs storing again. */
    public long version() {
        return version;
    }

    /** Logical statements remembered. */
    public int rememberedStatements() {
        return entries.size();
    }

    private static String digest(String s, int bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(d, bytes));
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", ex);
        }
    }
}
