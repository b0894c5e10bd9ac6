package io.tributary.storage.binlog;

import java.util.OptionalLong;

/**
 * The names of everything under {@code binlog.dir}, in one place.
 *
 * <pre>
 * binlog.000001 ... binlog.NNNNNN   the global binlog files (6 digits, more past 999999, as MySQL does)
 * binlog.index                      their names, one per line, oldest first
 * binlog.checkpoint                 the last durable position with every shard's resume position
 * auto.cnf                          the GTIDs' server UUID ({@code binlog.server.uuid} or derived), kept once ({@code [auto] server-uuid=...})
 * *.tmp                             a state file being replaced; left over only by a crash, then ignored
 * </pre>
 */
public final class BinlogFiles {
    public static final String BASE_NAME = "binlog";
    public static final String INDEX_FILE = "binlog.index";
    public static final String CHECKPOINT_FILE = "binlog.checkpoint";
    public static final String SERVER_UUID_FILE = "auto.cnf";
    /** The logical schema's history ({@link io.tributary.storage.schema.SchemaHistory}). */
    public static final String SCHEMA_HISTORY_FILE = "schema.history";
    public static final String TEMP_SUFFIX = ".tmp";
    /** The first event of every file starts here, after the 4-byte magic. */
    public static final long FIRST_EVENT = 4;

    private BinlogFiles() {
    }

    /** {@code binlog.000042} for 42. */
    public static String fileName(long number) {
        if (number < 1) {
            throw new IllegalArgumentException("binlog file numbers start at 1, got " + number);
        }
        return String.format("%s.%06d", BASE_NAME, number);
    }

    /** The number of {@code binlog.000042}, or empty when the name is not a binlog file's. */
    public static OptionalLong fileNumber(String name) {
        long n = parseFileNumber(name);
        return n > 0 ? OptionalLong.of(n) : OptionalLong.empty();
    }

    /** The number of a name known to be a binlog file's; fails with the name otherwise. */
    public static long requireFileNumber(String name) {
        long n = parseFileNumber(name);
        if (n <= 0) {
            throw new IllegalArgumentException("not a binlog file name: '" + name + "' (expected " + BASE_NAME
                    + ".NNNNNN)");
        }
        return n;
    }

    /**
     * {@code binlog.} then at least 6 ASCII digits (at most 18) making a number from 1 on; 0 when the name is not
     * such. Without a substring or a boxed result: positions are compared and made per event (the tail cache's
     * indexing thread spent half its samples here).
     */
    private static long parseFileNumber(String name) {
        int from = BASE_NAME.length() + 1;
        int digits = name.length() - from;
        if (digits < 6 || digits > 18 || !name.startsWith(BASE_NAME) || name.charAt(from - 1) != '.') {
            return 0;
        }
        long n = 0;
        for (int i = from; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
