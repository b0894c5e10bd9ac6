package io.tributary.core.transaction;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the DDL deduplication remembers of the output, as of one global transaction: for each logical
 * statement recently seen, how many times it was written and how many copies each physical source
 * (shard and physical statement) delivered. It travels with the transaction it belongs to
 * ({@link GlobalTransaction#ddlHistory()}) and is stored in the same checkpoint, so after a restart it
 * agrees exactly with what is durable: a copy already absorbed is never read again, and a copy that comes
 * again is recognised.
 *
 * <p>Statements and sources are digests (printable, no spaces), so the stored form stays small whatever
 * the statement text.
 *
 * <p>Beside it, and changing with the same copies: the shapes of the physical tables while a DDL rolls out shard by
 * shard ({@code io.tributary.core.naming.ShardShapes}, as its printable tokens), so that a restarted merger rewrites
 * the rows of a shard not yet altered as the first run did.
 *
 * @param statements oldest first (least recently seen first)
 * @param shapes     the rollout shapes' tokens (printable ASCII, no spaces), oldest first
 */
public record DdlHistory(List<Statement> statements, List<String> shapes) {

    /** Nothing remembered: a fresh global binlog. */
    public static final DdlHistory EMPTY = new DdlHistory(List.of());

    /** Statements alone, no rollout open. */
    public DdlHistory(List<Statement> statements) {
        this(statements, List.of());
    }

    /**
     * @param key     digest of the logical statement (logical default database, logical tables, normalised text)
     * @param written how many times it was written to the output
     * @param copies  per source digest, how many copies that source delivered (each at most {@code written})
     */
    public record Statement(String key, int written, Map<String, Integer> copies) {
        public Statement {
            requireToken(key, "statement key");
            if (written < 1) {
                throw new IllegalArgumentException("statement " + key + " written " + written + " times, expected at least 1");
            }
            Map<String, Integer> c = new LinkedHashMap<>();
            for (Map.Entry<String, Integer> e : copies.entrySet()) {
                requireToken(e.getKey(), "source of statement " + key);
                if (e.getValue() < 1 || e.getValue() > written) {
                    throw new IllegalArgumentException("statement " + key + ": source " + e.getKey() + " delivered "
                            + e.getValue() + " copies, expected 1.." + written);
                }
                c.put(e.getKey(), e.getValue());
            }
            copies = java.util.Collections.unmodifiableMap(c);
        }
    }

    public DdlHistory {
        statements = List.copyOf(statements);
        shapes = List.copyOf(shapes);
        for (String t : shapes) {
            requireToken(t, "rollout shapes");
        }
    }

    private static void requireToken(String s, String what) {
        Objects.requireNonNull(s, what);
        if (s.isEmpty() || s.chars().anyMatch(ch -> ch <= ' ' || ch > '~')) {
            throw new IllegalArgumentException(what + " must be printable ASCII without spaces, found '" + s + "'");
        }
    }
}
