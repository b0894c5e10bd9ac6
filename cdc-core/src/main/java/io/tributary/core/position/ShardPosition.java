package io.tributary.core.position;

/**
 * A place in one shard's binlog: a file and the byte offset of the next event in it, and/or the
 * GTID set of every transaction before that place.
 *
 * <p>The GTID set is in the shard's own flavor: MySQL {@code 3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7}
 * (several UUIDs separated by commas), MariaDB {@code 0-101-42,1-102-7} (one domain-server-sequence
 * per domain). A reader started from a position with a GTID set resumes by GTID; otherwise by file
 * and offset. {@link #latest()} asks for the shard's current end.
 *
 * @param file binlog file name, or {@code null} when only the GTID set is known
 * @param position offset in {@code file} of the next event (4 is the first event after the magic)
 * @param gtidSet GTID set, or {@code null} when resuming by file and offset
 */
public record ShardPosition(String file, long position, String gtidSet) {
    /** The offset of the first event in a binlog file (after the 4-byte magic). */
    public static final long FIRST_EVENT = 4;

    public ShardPosition {
        if (position < 0) {
            throw new IllegalArgumentException("binlog position must be >= 0, got " + position);
        }
        if (gtidSet != null) {
            gtidSet = gtidSet.strip();
        }
    }

    public static ShardPosition at(String file, long position) {
        if (file == null || file.isEmpty()) {
            throw new IllegalArgumentException("binlog file name required");
        }
        return new ShardPosition(file, position, null);
    }

    public static ShardPosition ofGtidSet(String gtidSet) {
        if (gtidSet == null) {
            throw new IllegalArgumentException("GTID set required (may be empty)");
        }
        return new ShardPosition(null, 0, gtidSet);
    }

    /** The shard's current end, resolved when the reader first connects. */
    public static ShardPosition latest() {
        return new ShardPosition(null, 0, null);
    }

    public boolean isLatest() {
        return file == null && gtidSet == null;
    }

    public boolean hasGtidSet() {
        return gtidSet != null;
    }

    public ShardPosition withFilePosition(String newFile, long newPosition) {
        return new ShardPosition(newFile, newPosition, gtidSet);
    }

    public ShardPosition withGtidSet(String newGtidSet) {
        return new ShardPosition(file, position, newGtidSet);
    }

    @Override
    public String toString() {
        String fp = file == null ? (isLatest() ? "latest" : "?") : file + ":" + position;
        return gtidSet == null ? fp : fp + " gtid=[" + gtidSet + "]";
    }
}
