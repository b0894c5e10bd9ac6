package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Turns a byte stream into {@link MySqlPacket}s.
 *
 * <p>Format (<a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_basic_packets.html">
 * MySQL Packets</a>): each physical packet is a 3-byte little-endian payload length, a 1-byte
 * sequence id and the payload. A payload of exactly {@code 0xFFFFFF} bytes continues in the next
 * packet; the logical payload ends with the first shorter packet (possibly empty). The decoder
 * reassembles such payloads without copying (a composite of slices) and emits one packet carrying
 * the first sequence id.
 *
 * <p>Every physical packet must carry the id of the shared {@link PacketSequence}. On the server
 * side a packet with id 0 starts a new command and resets the sequence. A logical payload larger
 * than {@code maxPayloadBytes} is refused before any of it is buffered.
 *
 * <p>State machine: {@link State#HEADER} reads 4 header bytes, {@link State#PAYLOAD} waits for the
 * whole physical payload, {@link State#BAD_MESSAGE} is terminal: after the first error (raised once
 * as a {@link MySqlProtocolException}) all further input is discarded until the channel closes.
 * On the server side, after a client's SSL request ({@link SslRequest}: sequence id 1, 32 bytes,
 * {@code CLIENT_SSL} set) the decoder stops in {@link State#TLS_HANDOFF}: what follows is the TLS
 * handshake, which a client may send in the same TCP segment. The connection handler takes those bytes
 * with {@link #takeBytesAfterSslRequest()}, puts a TLS handler in front, and decoding resumes on the
 * decrypted stream.
 *
 * <p>One instance per channel; runs on the channel's event loop.
 */
public final class MySqlPacketDecoder extends ByteToMessageDecoder {

    /** Which end of the connection this decoder serves. */
    public enum Role {
        /** We are the client: packets come from a server and continue our command's sequence. */
        CLIENT,
        /** We are the server: a packet with id 0 from the client starts a new command. */
        SERVER
    }

    enum State { HEADER, PAYLOAD, TLS_HANDOFF, BAD_MESSAGE }

    private final Role role;
    private final PacketSequence sequence;
    private final int maxPayloadBytes;

    private State state = State.HEADER;
    private int chunkLength;
    private int firstSequenceId;
    private long assembledBytes;
    private int assembledChunks;
    private CompositeByteBuf assembling;

    public MySqlPacketDecoder(Role role, PacketSequence sequence, int maxPayloadBytes) {
        if (maxPayloadBytes < 1) {
            throw new IllegalArgumentException("maxPayloadBytes must be positive, got " + maxPayloadBytes);
        }
        this.role = role;
        this.sequence = sequence;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    public MySqlPacketDecoder(Role role, PacketSequence sequence) {
        this(role, sequence, MySqlProtocol.DEFAULT_MAX_PAYLOAD_BYTES);
    }

    State state() {
        return state;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (true) {
            switch (state) {
                case HEADER -> {
                    if (in.readableBytes() < MySqlProtocol.PACKET_HEADER_BYTES) {
                        return;
                    }
                    int length = in.getUnsignedMediumLE(in.readerIndex());
                    int seq = in.getUnsignedByte(in.readerIndex() + 3);
                    checkHeader(length, seq);
                    in.skipBytes(MySqlProtocol.PACKET_HEADER_BYTES);
                    sequence.advance();
                    chunkLength = length;
                    state = State.PAYLOAD;
                }
                case PAYLOAD -> {
                    if (in.readableBytes() < chunkLength) {
                        return;
                    }
                    ByteBuf chunk = in.readRetainedSlice(chunkLength);
                    state = State.HEADER;
                    if (chunkLength == MySqlProtocol.MAX_PACKET_PAYLOAD) {
                        if (assembling == null) {
                            assembling = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
                        }
                        assembling.addComponent(true, chunk);
                        assembledBytes += chunkLength;
                        assembledChunks++;
                    } else if (assembling != null) {
                        assembling.addComponent(true, chunk);
                        CompositeByteBuf whole = assembling;
                        assembling = null;
                        assembledBytes = 0;
                        assembledChunks = 0;
                        out.add(new MySqlPacket(firstSequenceId, whole));
                    } else {
                        out.add(new MySqlPacket(firstSequenceId, chunk));
                        if (isSslRequest(chunk)) {
                            state = State.TLS_HANDOFF;
                            return;
                        }
                    }
                }
                case TLS_HANDOFF -> {
                    return;
                }
                case BAD_MESSAGE -> {
                    in.skipBytes(in.readableBytes());
                    return;
                }
                default -> throw new IllegalStateException("unknown state " + state);
            }
        }
    }

    private boolean isSslRequest(ByteBuf payload) {
        return role == Role.SERVER && firstSequenceId == 1 && payload.readableBytes() == SslRequest.LENGTH
                && (payload.getIntLE(payload.readerIndex()) & MySqlProtocol.CLIENT_SSL) != 0;
    }

    /**
     * After an SSL request: the bytes received after it (the start of the client's TLS handshake, possibly
     * none), removed from this decoder, which then decodes packets again. The caller feeds them to the TLS
     * handler it put in front. Empty when the last packet was no SSL request.
     */
    public ByteBuf takeBytesAfterSslRequest() {
        if (state != State.TLS_HANDOFF) {
            return io.netty.buffer.Unpooled.EMPTY_BUFFER;
        }
        state = State.HEADER;
        ByteBuf rest = internalBuffer();
        return rest.isReadable() ? rest.readBytes(rest.readableBytes()) : io.netty.buffer.Unpooled.EMPTY_BUFFER;
    }

    private void checkHeader(int length, int seq) {
        boolean continuation = assembling != null;
        if (!continuation && role == Role.SERVER && seq == 0) {
            sequence.reset(0);
        }
        if (seq != sequence.next()) {
            fail(MySqlError.ER_NET_PACKETS_OUT_OF_ORDER, "packet out of order: expected sequence id "
                    + sequence.next() + ", found " + seq + (continuation
                    ? " in continuation packet " + (assembledChunks + 1) + " of a split payload"
                    : "") + " (payload length " + length + ")");
        }
        long total = assembledBytes + length;
        if (total > maxPayloadBytes) {
            fail(MySqlError.ER_NET_PACKET_TOO_LARGE, "packet too large: payload of at least " + total
                    + " bytes exceeds the limit of " + maxPayloadBytes + " bytes (sequence id " + seq + ")");
        }
        if (!continuation) {
            firstSequenceId = seq;
        }
    }

    private void fail(MySqlError error, String message) {
        state = State.BAD_MESSAGE;
        releaseAssembling();
        throw new MySqlProtocolException(error, message);
    }

    private void releaseAssembling() {
        if (assembling != null) {
            assembling.release();
            assembling = null;
        }
        assembledBytes = 0;
        assembledChunks = 0;
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (state != State.BAD_MESSAGE && (state == State.PAYLOAD || assembling != null || in.isReadable())) {
            String what = assembling != null ? "a split payload after " + assembledBytes + " bytes"
                    : state == State.PAYLOAD ? "a packet payload (" + chunkLength + " bytes announced, "
                    + in.readableBytes() + " received)" : "a packet header (" + in.readableBytes() + " of 4 bytes)";
            fail(MySqlError.ER_NET_READ_ERROR, "connection closed in the middle of " + what);
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releaseAssembling();
    }
}
