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
        String prefix = BASE_NAME + ".";
        if (!name.startsWith(prefix) || name.length() < prefix.length() + 6) {
            return OptionalLong.empty();
        }
        String digits = name.substring(prefix.length());
        for (int i = 0; i < digits.length(); i++) {
            if (!Character.isDigit(digits.charAt(i))) {
                return OptionalLong.empty();
            }
        }
        try {
            long n = Long.parseLong(digits);
            return n >= 1 ? OptionalLong.of(n) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** The number of a name known to be a binlog file's; fails with the name otherwise. */
    public static long requireFileNumber(String name) {
        OptionalLong n = fileNumber(name);
        if (n.isEmpty()) {
            throw new IllegalArgumentException("not a binlog file name: '" + name + "' (expected " + BASE_NAME
                    + ".NNNNNN)");
        }
        return n.getAsLong();
    }
}
