package io.tributary.storage.binlog;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogFormatException;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.event.FormatDescription;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads one global binlog file event by event, from the start (magic and format description) or from a
 * position after it, never past a limit the caller sets (the durable end). Each event is checked by the
 * core decoder (size, checksum); bodies are decoded only on request ({@link #decode}).
 *
 * <p>Reads ahead in chunks of up to {@value #CHUNK} bytes. A chunk is never reused once an event from it
 * has been returned, so returned events stay valid. An event larger than a chunk gets a buffer of its
 * own size, which is checked against the limit first.
 *
 * <p>Not thread-safe: one scanner belongs to one reader.
 */
final class BinlogEventScanner implements Closeable {
    static final int CHUNK = 1 << 20;

    private final String name;
    private final FileChannel channel;
    private FormatDescription fde;
    private long position;
    private byte[] buf = new byte[0];
    private long bufStart;
    private int bufLen;
    private int rawOffset;
    private final java.util.zip.CRC32 crc = new java.util.zip.CRC32();

    private BinlogEventScanner(Path file, FileChannel channel, FormatDescription fde, long position) {
        this.name = file.getFileName().toString();
        this.channel = channel;
        this.fde = fde;
        this.position = position;
        this.bufStart = position;
    }

    /** A scanner at the start of {@code file}: the magic is checked, the format description is next. */
    static BinlogEventScanner open(Path file) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        BinlogEventScanner s = new BinlogEventScanner(file, ch, null, 0);
        try {
            s.readMagic();
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        return s;
    }

    String name() {
        return name;
    }

    /** Offset of the next event. */
    long position() {
        return position;
    }

    /** The file's format description, once read. */
    FormatDescription formatDescription() {
        return fde;
    }

    /** Current size of the file on disk. */
    long fileSize() throws IOException {
        return channel.size();
    }

    /**
     * Continues at {@code newPosition}, an event boundary after the format description (already read).
     */
    void seek(long newPosition) {
        if (fde == null) {
            throw new IllegalStateException("seek before the format description of " + name + " was read");
        }
        position = newPosition;
        bufStart = newPosition;
        bufLen = 0;
        buf = new byte[0];
    }

    /**
     * The next event if it ends at or before {@code limit}, else {@code null} (not yet written, or not yet
     * durable).
     *
     * @throws BinlogFormatException when the bytes there are not a valid event
     */
    BinlogEvent next(long limit) throws IOException {
        if (position + EventHeader.LENGTH > limit) {
            return null;
        }
        if (!ensure(EventHeader.LENGTH, limit)) {
            return null;
        }
        int at = (int) (position - bufStart);
        long size = EventHeader.parse(buf, at).eventSize();
        if (size < EventHeader.LENGTH) {
            throw new BinlogFormatException(name, position, "?", "event size " + size + " is smaller than a header ("
                    + EventHeader.LENGTH + ")", null);
        }
        if (position + size > limit) {
            return null;
        }
        if (!ensure((int) size, limit)) {
            return null;
        }
        at = (int) (position - bufStart);
        BinlogEvent event;
        if (fde == null) {
            // the format description: decode it behind a copy of the magic so the decoder reads it as a stream start
            byte[] withMagic = new byte[4 + (int) size];
            System.arraycopy(BinlogEventDecoder.MAGIC, 0, withMagic, 0, 4);
            System.arraycopy(buf, at, withMagic, 4, (int) size);
            BinlogEventDecoder d = new BinlogEventDecoder(name, withMagic, DecoderOptions.FULL);
            event = d.next();
            fde = d.formatDescription();
        } else {
            event = BinlogEventDecoder.continuing(name, fde, position, buf, at, (int) size, DecoderOptions.HEADERS_ONLY)
                    .next();
        }
        position += size;
        return event;
    }

    /**
     * The next event's size if it ends at or before {@code limit}, else -1, without an event object: its bytes are
     * {@link #rawBuffer()} from {@link #rawOffset()} until the next call. The size and, where the format description
     * turns checksums on, the CRC32 are checked as {@link #next} checks them; as {@code limit} is a durable end, which
     * always falls between events, an event that starts before it and ends after it has a damaged size. The format description itself (the
     * first event of a file) is read with {@link #next}.
     *
     * @throws BinlogFormatException when the bytes there are not a valid event
     */
    int nextRaw(long limit) throws IOException {
        if (fde == null) {
            throw new IllegalStateException("nextRaw before the format description of " + name + " was read");
        }
        if (position + EventHeader.LENGTH > limit || !ensure(EventHeader.LENGTH, limit)) {
            return -1;
        }
        int at = (int) (position - bufStart);
        long size = (buf[at + 9] & 0xffL) | (buf[at + 10] & 0xffL) << 8 | (buf[at + 11] & 0xffL) << 16
                | (buf[at + 12] & 0xffL) << 24;
        int checksum = fde.checksumLength();
        if (size < fde.headerLength() + checksum) {
            throw new BinlogFormatException(name, position, EventType.nameOf(buf[at + 4] & 0xff), "event size " + size
                    + " cannot hold the " + fde.headerLength() + "-byte header and " + checksum + "-byte checksum", null);
        }
        if (position + size > limit) {
            throw new BinlogFormatException(name, position, EventType.nameOf(buf[at + 4] & 0xff), "event size " + size
                    + " runs past the durable end of the file at " + limit + ": the size is damaged", null);
        }
        if (!ensure((int) size, limit)) {
            throw new BinlogFormatException(name, position, EventType.nameOf(buf[at + 4] & 0xff), "event size " + size
                    + " runs past the end of the file although its durable end is " + limit, null);
        }
        at = (int) (position - bufStart);
        if (checksum > 0) {
            crc.reset();
            crc.update(buf, at, (int) size - checksum);
            int end = at + (int) size - checksum;
            int stored = (buf[end] & 0xff) | (buf[end + 1] & 0xff) << 8 | (buf[end + 2] & 0xff) << 16
                    | (buf[end + 3] & 0xff) << 24;
            if ((int) crc.getValue() != stored) {
                throw new BinlogFormatException(name, position, EventType.nameOf(buf[at + 4] & 0xff),
                        "checksum mismatch: the event's CRC32 is 0x" + Integer.toHexString(stored) + ", its bytes give 0x"
                                + Integer.toHexString((int) crc.getValue()), null);
            }
        }
        rawOffset = at;
        position += size;
        return (int) size;
    }

    /** The buffer holding the event {@link #nextRaw} returned last. */
    byte[] rawBuffer() {
        return buf;
    }

    /** Where the event {@link #nextRaw} returned last starts in {@link #rawBuffer()}. */
    int rawOffset() {
        return rawOffset;
    }

    /** The event with its body decoded (GTIDs, rotate, previous GTIDs). */
    BinlogEvent decode(BinlogEvent headersOnly) {
        if (headersOnly.body() != null) {
            return headersOnly;
        }
        return BinlogEventDecoder.continuing(name, fde, headersOnly.offset(), headersOnly.buffer(),
                headersOnly.bufferOffset(), headersOnly.length(), DecoderOptions.FULL).next();
    }

    private void readMagic() throws IOException {
        if (!ensure(4, Long.MAX_VALUE)) {
            throw new BinlogFormatException(name, 0, "magic", "file is shorter than the 4-byte magic", null);
        }
        for (int i = 0; i < 4; i++) {
            if (buf[i] != BinlogEventDecoder.MAGIC[i]) {
                throw new BinlogFormatException(name, 0, "magic", "bad magic: expected fe62696e", null);
            }
        }
        position = 4;
    }

    /** Makes {@code need} bytes from {@code position} available in {@code buf}; false if the file ends first. */
    private boolean ensure(int need, long limit) throws IOException {
        int have = (int) (bufStart + bufLen - position);
        if (have >= need) {
            return true;
        }
        long want = Math.max(need, Math.min(CHUNK, limit - position));
        byte[] next = new byte[(int) Math.max(need, Math.min(want, Integer.MAX_VALUE - 16))];
        if (have > 0) {
            System.arraycopy(buf, (int) (position - bufStart), next, 0, have);
        }
        ByteBuffer b = ByteBuffer.wrap(next, have, next.length - have);
        long readAt = position + have;
        while (b.hasRemaining()) {
            int n = channel.read(b, readAt);
            if (n < 0) {
                break;
            }
            readAt += n;
        }
        buf = next;
        bufStart = position;
        bufLen = b.position();
        return bufLen >= need;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
