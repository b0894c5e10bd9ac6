package io.tributary.storage.binlog;

import io.tributary.core.event.EventHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code LOG_EVENT_BINLOG_IN_USE_F} (0x1) in the header flags of a file's format description, as MySQL and
 * MariaDB keep it: set while the file is open for writing, cleared once the file is closed cleanly (after
 * its ROTATE, or after the STOP of a shutdown). {@code mysqlbinlog} / {@code mariadb-binlog} print
 * "Warning: this binlog is either in use or was not closed properly" for a file that has it. The flag is
 * written in place; the event's CRC32 is computed with the flag cleared, so changing it leaves the checksum
 * valid (see {@link io.tributary.core.event.BinlogEventDecoder}).
 */
final class InUseFlag {
    /** The low byte of the format description's 2-byte flags: magic (4) + header offset of flags (17). */
    static final long OFFSET = BinlogFiles.FIRST_EVENT + 17;

    private InUseFlag() {
    }

    /** Whether {@code file}'s format description has the flag (false for a file too short to have one). */
    static boolean isSet(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            return ch.read(b, OFFSET) == 1 && (b.get(0) & EventHeader.LOG_EVENT_BINLOG_IN_USE_F) != 0;
        }
    }

    /** Sets or clears the flag in the file open on {@code ch} (not forced). */
    static void write(FileChannel ch, boolean inUse) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(1);
        if (ch.read(b, OFFSET) != 1) {
            throw new IOException("no format description to flag: file is " + ch.size() + " bytes");
        }
        byte flags = b.get(0);
        flags = (byte) (inUse ? flags | EventHeader.LOG_EVENT_BINLOG_IN_USE_F : flags & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F);
        b.clear();
        b.put(0, flags);
        while (b.hasRemaining()) {
            ch.write(b, OFFSET + b.position());
        }
    }

    /** Sets or clears the flag in {@code file} and forces it when {@code force}. */
    static void write(Path file, boolean inUse, boolean force) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            write(ch, inUse);
            if (force) {
                ch.force(false);
            }
        }
    }
}
