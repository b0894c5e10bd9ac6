package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * Frames a run of binlog events as the packets {@code 0x00 + event} into one {@link FramedPackets} without copying
 * the large ones: each packet header (and each event under {@value #COPY_BELOW} bytes) is written into a small
 * scratch buffer, each larger event is added as a retained slice of the buffer it was read into, and the pieces are
 * joined in one composite buffer that the event loop hands to a single gathering write ({@code writev}). The bytes
 * the subscriber receives are those {@link FramedPackets#append} would give, packet for packet.
 *
 * <p>Why: serving from the files, the copy of every event into a framing buffer (and the JDK's copy of a file read
 * into a heap array) cost more CPU than the socket write itself; a slice costs the same whatever the event's size.
 *
 * <p>Not thread-safe; one gather per batch. {@link #finish()} hands the buffers over to the {@link FramedPackets}
 * it returns; {@link #discard()} releases them when the batch is abandoned.
 */
public final class EventPacketGather {
    /** Events shorter than this are copied next to their header: a slice of its own costs more than the copy. */
    static final int COPY_BELOW = 1024;
    private static final int SCRATCH = 16 * 1024;

    private final ByteBufAllocator alloc;
    private final int firstSequenceId;
    private final CompositeByteBuf gathered;
    private ByteBuf scratch;
    private int segmentStart;
    private int sequenceId;
    private int events;

    public EventPacketGather(ByteBufAllocator alloc, int sequenceId) {
        this.alloc = alloc;
        this.firstSequenceId = sequenceId & 0xFF;
        this.sequenceId = this.firstSequenceId;
        this.gathered = alloc.compositeDirectBuffer(Integer.MAX_VALUE);
    }

    /** Adds the event of {@code length} bytes of {@code src} from {@code offset}; {@code src} keeps its references. */
    public void add(ByteBuf src, int offset, int length) {
        if (length < COPY_BELOW) {
            room(MySqlProtocol.PACKET_HEADER_BYTES + 1 + length);
            scratch.writeMediumLE(1 + length).writeByte(sequenceId).writeByte(0).writeBytes(src, offset, length);
            sequenceId = (sequenceId + 1) & 0xFF;
        } else {
            long total = 1L + length; // the payload: 0x00 + event, split at MAX_PACKET_PAYLOAD as the encoder does
            int chunk = (int) Math.min(total, MySqlProtocol.MAX_PACKET_PAYLOAD);
            header(chunk, true);
            slice(src, offset, chunk - 1);
            int at = offset + chunk - 1;
            long remaining = total - chunk;
            while (chunk == MySqlProtocol.MAX_PACKET_PAYLOAD) {
                chunk = (int) Math.min(remaining, MySqlProtocol.MAX_PACKET_PAYLOAD);
                header(chunk, false);
                slice(src, at, chunk);
                at += chunk;
                remaining -= chunk;
            }
        }
        events++;
    }

    /**
     * Adds the event of {@code length} bytes of {@code src} from {@code offset} as a copy, and returns where its
     * first byte is in {@link #scratch()}, for a caller that changes it in place (the format description's flags).
     */
    public int addCopy(ByteBuf src, int offset, int length) {
        if (1L + length >= MySqlProtocol.MAX_PACKET_PAYLOAD) {
            throw new IllegalArgumentException("an event of " + length + " bytes is too large to be copied");
        }
        room(MySqlProtocol.PACKET_HEADER_BYTES + 1 + length);
        scratch.writeMediumLE(1 + length).writeByte(sequenceId).writeByte(0);
        int at = scratch.writerIndex();
        scratch.writeBytes(src, offset, length);
        sequenceId = (sequenceId + 1) & 0xFF;
        events++;
        return at;
    }

    /** The buffer the last {@link #addCopy} wrote into. */
    public ByteBuf scratch() {
        return scratch;
    }

    /** The events added so far. */
    public int events() {
        return events;
    }

    /** The sequence id the next packet carries. */
    public int sequenceId() {
        return sequenceId;
    }

    /** The packets gathered, owned by the caller; {@code null} when no event was added (nothing is left held). */
    public FramedPackets finish() {
        endSegment();
        releaseScratch();
        if (events == 0) {
            gathered.release();
            return null;
        }
        return new FramedPackets(gathered, firstSequenceId, sequenceId);
    }

    /** Releases everything gathered: the batch is not sent. */
    public void discard() {
        releaseScratch();
        gathered.release();
    }

    private void header(int payload, boolean first) {
        room(MySqlProtocol.PACKET_HEADER_BYTES + 1);
        scratch.writeMediumLE(payload).writeByte(sequenceId);
        if (first) {
            scratch.writeByte(0);
        }
        sequenceId = (sequenceId + 1) & 0xFF;
    }

    private void slice(ByteBuf src, int offset, int length) {
        endSegment();
        if (length > 0) {
            gathered.addComponent(true, src.retainedSlice(offset, length));
        }
    }

    /** Makes {@code bytes} writable in the scratch buffer, starting a new one when it is full (never growing one). */
    private void room(int bytes) {
        if (scratch != null && scratch.writableBytes() >= bytes) {
            return;
        }
        endSegment();
        releaseScratch();
        scratch = alloc.directBuffer(Math.max(SCRATCH, bytes));
        segmentStart = 0;
    }

    /** Adds what the scratch buffer holds since the last slice as one component. */
    private void endSegment() {
        if (scratch != null && scratch.writerIndex() > segmentStart) {
            gathered.addComponent(true, scratch.retainedSlice(segmentStart, scratch.writerIndex() - segmentStart));
            segmentStart = scratch.writerIndex();
        }
    }

    private void releaseScratch() {
        if (scratch != null) {
            scratch.release();
            scratch = null;
        }
    }
}
