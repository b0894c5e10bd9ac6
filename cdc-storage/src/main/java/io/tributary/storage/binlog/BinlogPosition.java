package io.tributary.storage.binlog;

import io.tributary.core.event.EventHeader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
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

    /**
     * Where a ROTATE event sends a reader: its file name and position. The event is {@code length} bytes of
     * {@code raw} from {@code offset} (header included), ending with a checksum of {@code checksumLength} bytes.
     */
    public static BinlogPosition afterRotate(byte[] raw, int offset, int length, int checksumLength) {
        int body = offset + EventHeader.LENGTH;
        long position = ByteBuffer.wrap(raw, body, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        int nameEnd = offset + length - checksumLength;
        return new BinlogPosition(new String(raw, body + 8, nameEnd - body - 8, StandardCharsets.UTF_8), position);
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
