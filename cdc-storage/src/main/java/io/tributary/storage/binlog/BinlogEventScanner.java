package io.tributary.storage.binlog;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogFormatException;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventChecksum;
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
 * core decoder (size, checksum); bodies are decoded only on request ({@link #decode}). On the {@link #nextRaw} path a
 * scanner that {@linkplain #shareChecks shares checks} skips the checksum of an event other readers already checked.
 *
 * <p>{@link #next} reads ahead in heap chunks of up to {@value #CHUNK} bytes, each new, so returned events stay
 * valid. {@link #nextRaw} (the dump server's path) reads ahead in direct chunks of up to {@value #RAW_CHUNK} bytes
 * with no copy between the file and the socket's gathering write; the chunks are reference counted, so a slice of
 * one the caller retained stays valid. An event larger than a chunk gets a buffer of its own size, which is checked
 * against the limit first.
 *
 * <p>Not thread-safe: one scanner belongs to one reader.
 */
final class BinlogEventScanner implements Closeable {
    static final int CHUNK = 1 << 20;
    /** What {@link #nextRaw} reads at a time. */
    static final int RAW_CHUNK = 256 * 1024;

    private final String name;
    private final FileChannel channel;
    private FormatDescription fde;
    private long position;
    private byte[] buf = new byte[0];
    private long bufStart;
    private int bufLen;
    private int rawOffset;
    /** The chunk {@link #nextRaw} reads into, and the file offset of its first byte. */
    private ByteBuf raw;
    private long rawStart;
    /** Time spent in the {@link #nextRaw} path's file reads, in nanoseconds. */
    private long readNanos;
    private final java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    /** The file's verified part, shared with other readers; null: {@link #nextRaw} checks every event. */
    private VerifiedChecksums.Extent verified;
    /** Where {@link #verified} ended when last looked at. */
    private long verifiedEnd;
    /** Where the first event after the format description starts (0 until it was read). */
    private long firstEvent;
    /** The events this scanner checked itself, one run {@code [runFrom, runTo)}, not yet all added to {@link #verified}. */
    private long runFrom;
    private long runTo = -1;
    /** How far {@link #runTo} was when the run was last published. */
    private long runPublished;

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

    /**
     * Shares the checking of checksums on the {@link #nextRaw} path with the other readers of this file: an event inside
     * {@code extent} is not checked again, and the events this scanner checks are added to it.
     */
    void shareChecks(VerifiedChecksums.Extent extent) {
        this.verified = extent;
    }

    /**
     * Nanoseconds the {@link #nextRaw} path spent reading the file: tens of microseconds per chunk from the page cache,
     * milliseconds from the disk. Unlike the time a batch takes, it does not grow when the thread is kept off the CPU
     * by other busy threads.
     */
    long readNanos() {
        return readNanos;
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
        publishRun();
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
            firstEvent = position + size;
        } else {
            event = BinlogEventDecoder.continuing(name, fde, position, buf, at, (int) size, DecoderOptions.HEADERS_ONLY)
                    .next();
        }
        position += size;
        return event;
    }

    /**
     * The next event's size if it ends at or before {@code limit}, else -1, without an event object: its bytes are
     * {@link #rawBuffer()} from {@link #rawOffset()}. The size and, where the format description
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
        if (position + EventHeader.LENGTH > limit || !ensureRaw(EventHeader.LENGTH, limit)) {
            publishRun();
            return -1;
        }
        int at = (int) (position - rawStart);
        long size = raw.getUnsignedIntLE(at + 9);
        int checksum = fde.checksumLength();
        if (size < fde.headerLength() + checksum) {
            throw new BinlogFormatException(name, position, EventType.nameOf(raw.getUnsignedByte(at + 4)), "event size "
                    + size + " cannot hold the " + fde.headerLength() + "-byte header and " + checksum + "-byte checksum",
                    null);
        }
        if (position + size > limit) {
            throw new BinlogFormatException(name, position, EventType.nameOf(raw.getUnsignedByte(at + 4)), "event size "
                    + size + " runs past the durable end of the file at " + limit + ": the size is damaged", null);
        }
        if (!ensureRaw((int) size, limit)) {
            throw new BinlogFormatException(name, position, EventType.nameOf(raw.getUnsignedByte(at + 4)), "event size "
                    + size + " runs past the end of the file although its durable end is " + limit, null);
        }
        at = (int) (position - rawStart);
        if (checksum > 0 && needsCheck(position + size)) {
            int end = at + (int) size - checksum;
            crc.reset();
            EventChecksum.update(crc, raw, at, end - at);
            int stored = raw.getIntLE(end);
            if ((int) crc.getValue() != stored) {
                throw new BinlogFormatException(name, position, EventType.nameOf(raw.getUnsignedByte(at + 4)),
                        "checksum mismatch: the event's CRC32 is 0x" + Integer.toHexString(stored) + ", its bytes give 0x"
                                + Integer.toHexString((int) crc.getValue()), null);
            }
            checked(position, position + size);
        }
        rawOffset = at;
        position += size;
        return (int) size;
    }

    /** Whether the event ending at {@code eventEnd} still needs its checksum checked (not in the verified part). */
    private boolean needsCheck(long eventEnd) {
        if (verified == null) {
            return true;
        }
        if (eventEnd <= verifiedEnd) {
            return false;
        }
        verifiedEnd = verified.end();
        return eventEnd > verifiedEnd;
    }

    /** Records that the event {@code [from, to)} matched its checksum; publishes the run every {@value #RAW_CHUNK} bytes. */
    private void checked(long from, long to) {
        if (verified == null) {
            return;
        }
        if (runTo != from) {
            publishRun();
            runFrom = from;
            runPublished = from;
        }
        runTo = to;
        if (runTo - runPublished >= RAW_CHUNK) {
            publishRun();
        }
    }

    /** Adds the run of events this scanner checked to the shared verified part (where it joins it). */
    private void publishRun() {
        if (verified != null && runTo > runFrom && firstEvent > 0) {
            verified.extend(runFrom, runTo, firstEvent);
            verifiedEnd = verified.end();
            runPublished = runTo;
        }
    }

    /**
     * The buffer holding the event {@link #nextRaw} returned last (a direct buffer the file was read into, with no
     * copy in between); a caller that keeps a slice of it retains the slice.
     */
    ByteBuf rawBuffer() {
        return raw;
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
        long end = bufStart + bufLen;
        int have = position >= bufStart && position <= end ? (int) (end - position) : 0; // 0: nextRaw moved past it
        if (have >= need) {
            return true;
        }
        long want = Math.max(need, Math.min(CHUNK, limit - position));
        int size = (int) Math.max(need, Math.min(want, Integer.MAX_VALUE - 16));
        byte[] next = new byte[size]; // never reused: events returned by next() refer to it
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

    /**
     * Makes {@code need} bytes from {@code position} available in {@link #raw}, a direct buffer read straight from
     * the file (one copy, the kernel's); false if the file ends first. A new buffer is taken for every chunk: the
     * previous one lives on for as long as slices of it wait to be written.
     */
    private boolean ensureRaw(int need, long limit) throws IOException {
        long end = raw == null ? rawStart : rawStart + raw.writerIndex();
        int have = raw != null && position >= rawStart && position <= end ? (int) (end - position) : 0;
        if (have >= need) {
            return true;
        }
        ByteBuf next = read(need, limit, have);
        releaseRaw();
        raw = next;
        rawStart = position;
        return raw.writerIndex() >= need;
    }

    /** A direct buffer holding the bytes from {@link #position} on: what {@link #raw} holds of them, then the file's. */
    private ByteBuf read(int need, long limit, int have) throws IOException {
        int size = (int) Math.max(need, Math.min(RAW_CHUNK, limit - position));
        ByteBuf next = ByteBufAllocator.DEFAULT.directBuffer(size, size);
        try {
            if (have > 0) {
                next.writeBytes(raw, (int) (position - rawStart), have);
            }
            long started = System.nanoTime();
            while (next.isWritable()) {
                if (next.writeBytes(channel, position + next.writerIndex(), next.writableBytes()) <= 0) {
                    break;
                }
            }
            readNanos += System.nanoTime() - started;
        } catch (IOException | RuntimeException e) {
            next.release();
            throw e;
        }
        return next;
    }

    private void releaseRaw() {
        if (raw != null) {
            raw.release();
            raw = null;
        }
    }

    @Override
    public void close() throws IOException {
        publishRun();
        releaseRaw();
        channel.close();
    }
}
