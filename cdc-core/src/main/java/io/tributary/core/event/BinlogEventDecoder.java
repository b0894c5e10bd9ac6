package io.tributary.core.event;

import java.util.HexFormat;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.zip.CRC32;

/**
 * Reads a binlog stream held in memory (the 4-byte magic {@code fe 62 69 6e}, a FORMAT_DESCRIPTION event,
 * then events) and yields its events one at a time.
 *
 * <p>An explicit state machine ({@link State}): {@code READ_MAGIC -> READ_FORMAT_DESCRIPTION -> READ_EVENT}
 * (with {@code READ_PAYLOAD_EVENT} while the inner events of a TRANSACTION_PAYLOAD are yielded) and ends
 * in {@code DONE} exactly at the end of the input, or in {@code FAILED}. Every read is bounded by the
 * event's declared size, which in turn must fit the input. On bad input the decoder throws a
 * {@link BinlogFormatException} naming the source, the offset, the event type and expected against found,
 * then stays FAILED and throws the same exception on every later call (a torn tail is never skipped
 * silently). Checksums are verified when the format description says CRC32 (the FDE's own with
 * {@code LOG_EVENT_BINLOG_IN_USE_F} cleared). Unknown type codes pass through as {@link OpaqueEvent}s
 * when flagged {@code LOG_EVENT_IGNORABLE_F} and fail otherwise.
 *
 * <p>With {@link DecoderOptions#expand()} a TRANSACTION_PAYLOAD is replaced by its inner events (zstd,
 * no checksums, log_pos 0) and MariaDB compressed events by the plain events they stand for; with
 * {@link DecoderOptions#decodeBodies()} off only headers are parsed (the fast relay mode).
 *
 * <p>Reference: MySQL {@code libbinlogevents/include/binlog_event.h}, "Binary Log Event Format".
 *
 * <p>Not thread-safe: one decoder belongs to one reader thread. The input array is shared with the
 * yielded events, never copied, and must not change while they are in use.
 */
public final class BinlogEventDecoder implements Iterator<BinlogEvent> {

    /** Where the decoder stands in the stream. */
    public enum State {
        READ_MAGIC, READ_FORMAT_DESCRIPTION, READ_EVENT, READ_PAYLOAD_EVENT, DONE, FAILED
    }

    /** The binlog file magic: {@code 0xfe 'b' 'i' 'n'}. */
    public static final byte[] MAGIC = {(byte) 0xFE, 'b', 'i', 'n'};

    private final String sourceName;
    private final byte[] buf;
    private final int start;
    private final int end;
    private final long base;
    private final DecoderOptions options;
    /** Made on the first checksum verified: a decoder of one event with checksums off never needs it. */
    private CRC32 crc;

    private State state = State.READ_MAGIC;
    private int pos;
    private FormatDescription fde;
    private BinlogEvent pending;
    private BinlogFormatException failure;

    private byte[] payload;
    private int payloadPos;
    private long payloadEventOffset;

    public BinlogEventDecoder(String sourceName, byte[] bytes) {
        this(sourceName, bytes, 0, bytes.length, DecoderOptions.FULL);
    }

    public BinlogEventDecoder(String sourceName, byte[] bytes, DecoderOptions options) {
        this(sourceName, bytes, 0, bytes.length, options);
    }

    /**
     * @param sourceName named in every error (e.g. the file name, or shard and file)
     * @param bytes      holds the stream in {@code [offset, offset + length)}, starting with the magic
     */
    public BinlogEventDecoder(String sourceName, byte[] bytes, int offset, int length, DecoderOptions options) {
        this(sourceName, bytes, offset, length, options, 0, null);
    }

    private BinlogEventDecoder(String sourceName, byte[] bytes, int offset, int length, DecoderOptions options,
            long base, FormatDescription fde) {
        if (offset < 0 || length < 0 || offset + length > bytes.length) {
            throw new IllegalArgumentException("range [" + offset + ", " + (offset + length) + ") outside an array of "
                    + bytes.length + " bytes");
        }
        this.sourceName = sourceName;
        this.buf = bytes;
        this.start = offset;
        this.end = offset + length;
        this.pos = offset;
        this.options = options;
        this.base = base;
        if (fde != null) {
            this.fde = fde;
            this.state = State.READ_EVENT;
        }
    }

    /**
     * A decoder for events that continue a stream whose format description is already known: a binlog
     * read from a position after its FDE, or events received over replication. No magic is expected.
     *
     * @param sourceOffset the offset in the source of {@code bytes[offset]}, used in events and errors
     */
    public static BinlogEventDecoder continuing(String sourceName, FormatDescription fde, long sourceOffset, byte[] bytes,
            int offset, int length, DecoderOptions options) {
        return new BinlogEventDecoder(sourceName, bytes, offset, length, options, sourceOffset,
                java.util.Objects.requireNonNull(fde, "fde"));
    }

    public State state() {
        return state;
    }

    /** The format description in force, or {@code null} before it has been read. */
    public FormatDescription formatDescription() {
        return fde;
    }

    /** Offset in the source of the next top-level event (the end of the input once DONE). */
    public long position() {
        return base + pos - start;
    }

    @Override
    public boolean hasNext() {
        if (pending != null) {
            return true;
        }
        if (state == State.FAILED) {
            throw failure;
        }
        pending = advance();
        return pending != null;
    }

    @Override
    public BinlogEvent next() {
        if (!hasNext()) {
            throw new NoSuchElementException(sourceName + ": no more events after offset " + position());
        }
        BinlogEvent e = pending;
        pending = null;
        return e;
    }

    private BinlogEvent advance() {
        while (true) {
            switch (state) {
                case READ_MAGIC -> readMagic();
                case READ_FORMAT_DESCRIPTION, READ_EVENT -> {
                    if (pos == end) {
                        state = State.DONE;
                        return null;
                    }
                    BinlogEvent e = readTopLevel();
                    if (e != null) {
                        return e;
                    }
                }
                case READ_PAYLOAD_EVENT -> {
                    if (payloadPos == payload.length) {
                        payload = null;
                        state = State.READ_EVENT;
                    } else {
                        return readPayloadEvent();
                    }
                }
                default -> {
                    return null;
                }
            }
        }
    }

    private void readMagic() {
        int n = Math.min(MAGIC.length, end - start);
        for (int i = 0; i < MAGIC.length; i++) {
            if (i >= n || buf[start + i] != MAGIC[i]) {
                throw fail(base, null, "bad magic: expected fe62696e, found "
                        + HexFormat.of().formatHex(buf, start, start + n) + (n < MAGIC.length ? " (" + n + " bytes)" : ""),
                        null);
            }
        }
        pos = start + MAGIC.length;
        state = State.READ_FORMAT_DESCRIPTION;
    }

    /** Reads the event at {@code pos}; null when it was a payload whose inner events come next. */
    private BinlogEvent readTopLevel() {
        long offset = base + pos - start;
        int available = end - pos;
        if (available < EventHeader.LENGTH) {
            throw fail(offset, null, "truncated event header: " + available + " bytes left, a header needs "
                    + EventHeader.LENGTH, null);
        }
        EventHeader raw = EventHeader.parse(buf, pos);
        boolean isFde = raw.typeCode() == EventType.FORMAT_DESCRIPTION.code();
        String typeName = EventType.nameOf(fde == null ? raw.typeCode() : fde.canonicalTypeCode(raw.typeCode()));
        checkSize(raw, offset, available, typeName);
        int size = (int) raw.eventSize();
        FormatDescription desc = fde;
        if (isFde) {
            try {
                desc = FormatDescription.parse(buf, pos + EventHeader.LENGTH, size - EventHeader.LENGTH);
            } catch (MalformedEventException e) {
                throw fail(offset, typeName, e.getMessage(), e);
            }
        } else if (desc == null) {
            throw fail(offset, typeName, "expected FORMAT_DESCRIPTION(15) as the first event, found " + typeName, null);
        }
        int crcLength = desc.checksumLength();
        if (size < desc.headerLength() + crcLength) {
            throw fail(offset, typeName, "event size " + size + " cannot hold the " + desc.headerLength()
                    + "-byte header and " + crcLength + "-byte checksum", null);
        }
        if (crcLength > 0 && options.verifyChecksums()) {
            verifyChecksum(offset, size, isFde, raw.flags(), typeName);
        }
        int canonical = desc.canonicalTypeCode(raw.typeCode());
        EventHeader header = canonical == raw.typeCode() ? raw : raw.withTypeAndSize(canonical, raw.eventSize());
        int eventStart = pos;
        pos += size;
        if (isFde) {
            fde = desc;
            state = State.READ_EVENT;
            return new BinlogEvent(header, offset, -1, raw.typeCode(), buf, eventStart, size, crcLength, desc);
        }
        EventType type = header.type();
        if (type == null && !header.isIgnorable()) {
            throw fail(offset, typeName, "unknown event type " + raw.typeCode() + " without the LOG_EVENT_IGNORABLE_F"
                    + " flag (flags 0x" + Integer.toHexString(raw.flags()) + "): cannot be skipped safely", null);
        }
        if (type == EventType.START_ENCRYPTION) {
            throw fail(offset, typeName, "encrypted binlog: the events after START_ENCRYPTION cannot be read without"
                    + " the server's key", null);
        }
        try {
            if (type != null && options.expand() && type.isMariaCompressed()) {
                byte[] plain = MariaCompressedEvents.expand(type, buf, eventStart, size, fde, options.maxDecompressedBytes());
                EventHeader plainHeader = EventHeader.parse(plain, 0);
                EventBody body = options.decodeBodies()
                        ? EventBodyDecoder.decode(plainHeader, plain, 0, plain.length - fde.headerLength() - crcLength, fde)
                        : null;
                return new BinlogEvent(plainHeader, offset, -1, raw.typeCode(), plain, 0, plain.length, crcLength, body);
            }
            int bodyLength = size - fde.headerLength() - crcLength;
            if (type == EventType.TRANSACTION_PAYLOAD && options.expand()) {
                openPayload(header, eventStart, bodyLength, offset);
                return null;
            }
            EventBody body = options.decodeBodies() ? EventBodyDecoder.decode(header, buf, eventStart, bodyLength, fde) : null;
            return new BinlogEvent(header, offset, -1, raw.typeCode(), buf, eventStart, size, crcLength, body);
        } catch (MalformedEventException e) {
            throw fail(offset, typeName, e.getMessage(), e);
        }
    }

    private void openPayload(EventHeader header, int eventStart, int bodyLength, long offset) {
        TransactionPayloadEvent p = (TransactionPayloadEvent) EventBodyDecoder.decode(header, buf, eventStart, bodyLength, fde);
        if (p.compressionType() == TransactionPayloadEvent.COMPRESSION_NONE) {
            if (p.payloadSize() > options.maxDecompressedBytes()) {
                throw new MalformedEventException("payload size " + p.payloadSize() + " exceeds the limit of "
                        + options.maxDecompressedBytes() + " bytes");
            }
            payload = java.util.Arrays.copyOfRange(buf, p.payloadOffset(), p.payloadOffset() + (int) p.payloadSize());
        } else {
            payload = Decompression.zstd(buf, p.payloadOffset(), (int) p.payloadSize(), p.uncompressedSize(),
                    options.maxDecompressedBytes());
        }
        payloadPos = 0;
        payloadEventOffset = offset;
        state = State.READ_PAYLOAD_EVENT;
    }

    private BinlogEvent readPayloadEvent() {
        long offset = payloadEventOffset;
        int inner = payloadPos;
        String where = "TRANSACTION_PAYLOAD inner offset " + inner + ": ";
        int available = payload.length - payloadPos;
        if (available < EventHeader.LENGTH) {
            throw fail(offset, EventType.nameOf(EventType.TRANSACTION_PAYLOAD.code()), where + "truncated event header: "
                    + available + " bytes left, a header needs " + EventHeader.LENGTH, null);
        }
        EventHeader header = EventHeader.parse(payload, payloadPos);
        String typeName = EventType.nameOf(header.typeCode());
        if (header.eventSize() < fde.headerLength() || header.eventSize() > available) {
            throw fail(offset, typeName, where + "length past the end: event declares " + header.eventSize()
                    + " bytes, the payload has " + available + " left", null);
        }
        int size = (int) header.eventSize();
        EventType type = header.type();
        if (type == null && !header.isIgnorable()) {
            throw fail(offset, typeName, where + "unknown event type " + header.typeCode()
                    + " without the LOG_EVENT_IGNORABLE_F flag: cannot be skipped safely", null);
        }
        if (type == EventType.TRANSACTION_PAYLOAD || type == EventType.FORMAT_DESCRIPTION) {
            throw fail(offset, typeName, where + typeName + " cannot appear inside a transaction payload", null);
        }
        EventBody body = null;
        if (options.decodeBodies()) {
            try {
                body = EventBodyDecoder.decode(header, payload, payloadPos, size - fde.headerLength(), fde);
            } catch (MalformedEventException e) {
                throw fail(offset, typeName, where + e.getMessage(), e);
            }
        }
        payloadPos += size;
        return new BinlogEvent(header, offset, inner, header.typeCode(), payload, inner, size, 0, body);
    }

    private void checkSize(EventHeader raw, long offset, int available, String typeName) {
        if (raw.eventSize() < EventHeader.LENGTH) {
            throw fail(offset, typeName, "event size " + raw.eventSize() + " is smaller than the " + EventHeader.LENGTH
                    + "-byte header", null);
        }
        if (raw.eventSize() > available) {
            throw fail(offset, typeName, "length past the end: event declares " + raw.eventSize() + " bytes, only "
                    + available + " remain", null);
        }
    }

    private void verifyChecksum(long offset, int size, boolean isFde, int flags, String typeName) {
        if (crc == null) {
            crc = new CRC32();
        }
        crc.reset();
        int covered = size - FormatDescription.CHECKSUM_LENGTH;
        if (isFde && (flags & EventHeader.LOG_EVENT_BINLOG_IN_USE_F) != 0) {
            // The server sets the in-use flag in place after writing, so the CRC was computed without it.
            crc.update(buf, pos, EventHeader.FLAGS_OFFSET);
            crc.update(buf[pos + EventHeader.FLAGS_OFFSET] & ~EventHeader.LOG_EVENT_BINLOG_IN_USE_F);
            crc.update(buf, pos + EventHeader.FLAGS_OFFSET + 1, covered - EventHeader.FLAGS_OFFSET - 1);
        } else {
            crc.update(buf, pos, covered);
        }
        long stored = Bytes.u32(buf, pos + covered);
        long computed = crc.getValue();
        if (stored != computed) {
            throw fail(offset, typeName, String.format("checksum mismatch: stored 0x%08x, computed 0x%08x over %d bytes",
                    stored, computed, covered), null);
        }
    }

    private BinlogFormatException fail(long offset, String typeName, String problem, Throwable cause) {
        failure = new BinlogFormatException(sourceName, offset, typeName, problem, cause);
        state = State.FAILED;
        payload = null;
        return failure;
    }
}
