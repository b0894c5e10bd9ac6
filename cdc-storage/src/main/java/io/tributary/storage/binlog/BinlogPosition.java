package io.tributary.storage.binlog;

import java.util.Objects;

/**
 * A place in the global binlog: a file and a byte offset in it. Ordered by file number, then offset.
 *
 * @param file     e.g. {@code binlog.000003}
 * @param position byte offset in {@code file} (4 = the first event)
 */
public record BinlogPosition(String file, long position) implements Comparable<BinlogPosition> {
    public BinlogPosition {
        Objects.requireNonNull(file, "file");
        BinlogFiles.requireFileNumber(file);
        if (position < 0) {
            throw new IllegalArgumentException("negative position " + position + " in " + file);
        }
    }

    public long fileNumber() {
        return BinlogFiles.requireFileNumber(file);
    }

    @Override
    public int compareTo(BinlogPosition o) {
        int c = Long.compare(fileNumber(), o.fileNumber());
        return c != 0 ? c : Long.compare(position, o.position);
    }

    @Override
    public String toString() {
        return file + ":" + position;
    }
}
