package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Writes {@link MySqlPacket}s as physical packets: 3-byte little-endian length, sequence id,
 * payload. A payload of {@code 0xFFFFFF} bytes or more is split into packets of {@code 0xFFFFFF}
 * bytes followed by a shorter one (empty when the length is an exact multiple), with consecutive
 * sequence ids. Large payloads are written as slices, not copied. {@link FramedPackets}, framed by the
 * caller, pass as they are.
 *
 * <p>A packet carries either the id the shared {@link PacketSequence} expects next, or 0 (the start
 * of a command or of the handshake); anything else is a bug in the caller and is refused. After
 * writing, the sequence expects the id after the last physical packet.
 *
 * <p>One instance per channel; runs on the channel's event loop.
 */
public final class MySqlPacketEncoder extends MessageToMessageEncoder<Object> {
    /** Payloads up to this size are copied next to their header into one buffer. */
    private static final int COPY_THRESHOLD = 8 * 1024;

    private final PacketSequence sequence;

    public MySqlPacketEncoder(PacketSequence sequence) {
        this.sequence = sequence;
    }

    @Override
    public boolean acceptOutboundMessage(Object msg) {
        return msg instanceof MySqlPacket || msg instanceof FramedPackets;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Object msg, List<Object> out) {
        if (msg instanceof FramedPackets framed) {
            int first = framed.firstSequenceId();
            if (first != 0 && first != sequence.next()) {
                framed.bytes().release();
                throw new EncoderException("refusing to write framed packets out of order: sequence id " + first
                        + ", expected " + sequence.next() + " or 0");
            }
            out.add(framed.bytes());
            sequence.reset(framed.nextSequenceId());
            return;
        }
        encode(ctx, (MySqlPacket) msg, out);
    }

    private void encode(ChannelHandlerContext ctx, MySqlPacket msg, List<Object> out) {
        int seq = msg.sequenceId();
        if (seq != 0 && seq != sequence.next()) {
            throw new EncoderException("refusing to write a packet out of order: sequence id " + seq
                    + ", expected " + sequence.next() + " or 0");
        }
        ByteBuf payload = msg.payload();
        int remaining = payload.readableBytes();
        int index = payload.readerIndex();
        while (true) {
            int chunk = Math.min(remaining, MySqlProtocol.MAX_PACKET_PAYLOAD);
            if (chunk <= COPY_THRESHOLD) {
                ByteBuf buf = ctx.alloc().ioBuffer(MySqlProtocol.PACKET_HEADER_BYTES + chunk);
                buf.writeMediumLE(chunk).writeByte(seq);
                buf.writeBytes(payload, index, chunk);
                out.add(buf);
            } else {
                ByteBuf header = ctx.alloc().ioBuffer(MySqlProtocol.PACKET_HEADER_BYTES);
                header.writeMediumLE(chunk).writeByte(seq);
                out.add(header);
                out.add(payload.retainedSlice(index, chunk));
            }
            seq = (seq + 1) & 0xFF;
            index += chunk;
            remaining -= chunk;
            if (chunk < MySqlProtocol.MAX_PACKET_PAYLOAD) {
                break;
            }
        }
        sequence.reset(seq);
    }
}
