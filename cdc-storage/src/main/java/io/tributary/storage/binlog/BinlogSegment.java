package io.tributary.storage.binlog;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The global binlog file being appended to. {@link #size()} is what has been handed to the operating
 * system; a failed write is undone ({@link #write} truncates back to where it started), so the file
 * always ends on an event boundary.
 *
 * <p>Owned by the writer thread; {@link #force()} may be called by the syncer concurrently (a
 * {@link FileChannel} allows that) and fails with {@link java.nio.channels.ClosedChannelException} once
 * the writer has rotated away, by which time the writer has forced it itself.
 */
final class BinlogSegment implements Closeable {
    private final Path path;
    private final String name;
    private final FileChannel channel;
    private volatile long size;

    private BinlogSegment(Path path, FileChannel channel, long size) {
        this.path = path;
        this.name = path.getFileName().toString();
        this.channel = channel;
        this.size = size;
    }

    /** Creates a new empty file (fails if it exists). */
    static BinlogSegment create(Path path) throws IOException {
        return new BinlogSegment(path, FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                StandardOpenOption.READ), 0);
    }

    /** Opens an existing file to append at {@code size} (recovery has truncated it there). */
    static BinlogSegment openAt(Path path, long size) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE, StandardOpenOption.READ);
        if (ch.size() != size) {
            ch.close();
            throw new IOException(path + " is " + ch.size() + " bytes, expected " + size + " after recovery");
        }
        return new BinlogSegment(path, ch, size);
    }

    String name() {
        return name;
    }

    Path path() {
        return path;
    }

    long size() {
        return size;
    }

    /** Appends all of {@code bytes}; on failure truncates back to the size before the call and rethrows. */
    void write(ByteBuffer bytes) throws IOException {
        long start = size;
        long at = start;
        try {
            while (bytes.hasRemaining()) {
                at += channel.write(bytes, at);
            }
        } catch (IOException e) {
            undo(start, e);
            throw e;
        }
        size = at;
    }

    /** Overwrites bytes already written (the GTID event's transaction length). */
    void overwrite(ByteBuffer bytes, long position) throws IOException {
        if (position + bytes.remaining() > size) {
            throw new IllegalStateException("overwrite past the end of " + name + ": " + position + "+" + bytes.remaining()
                    + " > " + size);
        }
        long at = position;
        while (bytes.hasRemaining()) {
            at += channel.write(bytes, at);
        }
    }

    /** Cuts the file back to {@code newSize} (a transaction boundary) and forgets what was after it. */
    void truncate(long newSize) throws IOException {
        channel.truncate(newSize);
        size = newSize;
    }

    /** Sets or clears the format description's in-use flag ({@link InUseFlag}); not forced. */
    void inUse(boolean inUse) throws IOException {
        InUseFlag.write(channel, inUse);
    }

    void force() throws IOException {
        channel.force(false);
    }

    private void undo(long start, IOException cause) {
        try {
            channel.truncate(start);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public String toString() {
        return name + " (" + size + " bytes)";
    }
}
