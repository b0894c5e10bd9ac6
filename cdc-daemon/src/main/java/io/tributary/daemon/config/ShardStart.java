package io.tributary.daemon.config;

import io.tributary.core.position.ShardPosition;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a shard's reader starts the first time ({@code cdc.shards[i].start}); once the global binlog holds a
 * checkpoint for the shard, the reader always resumes from that instead.
 *
 * <ul>
 * <li>{@code earliest} (default): the first binlog file the shard still has, as a new MySQL replica
 *     without a position would; the global binlog then holds the shard's whole available history, DDL
 *     included, so a replica of Tributary can build its tables;</li>
 * <li>{@code current}: the shard's binlog end when Tributary first starts (what the shard did before is
 *     not in the global binlog);</li>
 * <li>{@code <file>:<position>}: exactly there, e.g. {@code mysql-bin.000042:4}.</li>
 * </ul>
 *
 * @param kind     which of the three
 * @param position for {@link Kind#POSITION}, the position; else null
 */
public record ShardStart(Kind kind, ShardPosition position) {

    public enum Kind { EARLIEST, CURRENT, POSITION }

    public static final ShardStart EARLIEST = new ShardStart(Kind.EARLIEST, null);
    public static final ShardStart CURRENT = new ShardStart(Kind.CURRENT, null);

    private static final Pattern FILE_POSITION = Pattern.compile("([^:\\s]+):(\\d{1,19})");

    /** Parses the configuration text; null when it is none of the three forms. */
    public static ShardStart parse(String text) {
        String t = text.strip();
        switch (t.toLowerCase(Locale.ROOT)) {
            case "earliest":
                return EARLIEST;
            case "current":
                return CURRENT;
            default:
                Matcher m = FILE_POSITION.matcher(t);
                if (m.matches()) {
                    long pos = Long.parseLong(m.group(2));
                    if (pos >= ShardPosition.FIRST_EVENT) {
                        return new ShardStart(Kind.POSITION, ShardPosition.at(m.group(1), pos));
                    }
                }
                return null;
        }
    }

    @Override
    public String toString() {
        return kind == Kind.POSITION ? position.toString() : kind.name().toLowerCase(Locale.ROOT);
    }
}
