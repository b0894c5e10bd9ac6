package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;

/** Protocol::EOF_Packet (protocol 4.1): {@code 0xFE}, warnings (2), status flags (2); payload under 9 bytes. */
public record EofPacket(int warnings, int statusFlags) implements MySqlMessage {

    /** Whether a payload is an EOF packet: header 0xFE and shorter than 9 bytes. */
    public static boolean isEof(ByteBuf payload) {
        return payload.readableBytes() < MySqlProtocol.EOF_MAX_PAYLOAD && payload.isReadable()
                && payload.getUnsignedByte(payload.readerIndex()) == MySqlProtocol.EOF_HEADER;
    }

    public static EofPacket decode(ByteBuf in) {
        WireBuffers.require(in, 1, "EOF header");
        int header = in.readUnsignedByte();
        if (header != MySqlProtocol.EOF_HEADER) {
            throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET,
                    "malformed EOF packet: expected header 0xFE, found 0x" + Integer.toHexString(header));
        }
        if (in.readableBytes() >= 4) {
            return new EofPacket(in.readUnsignedShortLE(), in.readUnsignedShortLE());
        }
        in.skipBytes(in.readableBytes());
        return new EofPacket(0, 0);
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(MySqlProtocol.EOF_HEADER).writeShortLE(warnings).writeShortLE(statusFlags);
    }
}
