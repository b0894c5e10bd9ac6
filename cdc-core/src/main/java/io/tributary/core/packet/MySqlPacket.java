package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * One logical MySQL packet: the payload (already reassembled when it spanned several physical
 * packets) and the sequence id of its first physical packet.
 *
 * <p>Reference counted: whoever receives one from the pipeline releases it.
 */
public final class MySqlPacket extends DefaultByteBufHolder {
    private final int sequenceId;

    public MySqlPacket(int sequenceId, ByteBuf payload) {
        super(payload);
        if (sequenceId < 0 || sequenceId > 0xFF) {
            throw new IllegalArgumentException("sequence id must be 0..255, got " + sequenceId);
        }
        this.sequenceId = sequenceId;
    }

    public int sequenceId() {
        return sequenceId;
    }

    public ByteBuf payload() {
        return content();
    }

    @Override
    public MySqlPacket replace(ByteBuf content) {
        return new MySqlPacket(sequenceId, content);
    }

    @Override
    public String toString() {
        ByteBuf p = content();
        String first = p.refCnt() > 0 && p.isReadable() ? String.format("0x%02X", p.getUnsignedByte(p.readerIndex())) : "-";
        return "MySqlPacket[seq=" + sequenceId + ", length=" + (p.refCnt() > 0 ? p.readableBytes() : -1) + ", first=" + first + "]";
    }
}
