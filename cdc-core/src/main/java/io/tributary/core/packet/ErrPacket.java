package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Protocol::ERR_Packet: {@code 0xFF}, error code (2), then (protocol 4.1) {@code '#'} and a
 * 5-character SQLSTATE, then the message to the end of the payload. A payload without the
 * {@code '#'} marker gets SQLSTATE {@code HY000}.
 */
public record ErrPacket(int code, String sqlState, String message) implements MySqlMessage {

    public static ErrPacket decode(ByteBuf in) {
        WireBuffers.require(in, 3, "ERR header and code");
        int header = in.readUnsignedByte();
        if (header != MySqlProtocol.ERR_HEADER) {
            throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET,
                    "malformed ERR packet: expected header 0xFF, found 0x" + Integer.toHexString(header));
        }
        int code = in.readUnsignedShortLE();
        String state = "HY000";
        if (in.readableBytes() >= 6 && in.getByte(in.readerIndex()) == '#') {
            in.skipBytes(1);
            state = in.readCharSequence(5, StandardCharsets.US_ASCII).toString();
        }
        return new ErrPacket(code, state, WireBuffers.readRestString(in));
    }

    /** The matching known error, or {@code null}. */
    public MySqlError error() {
        return MySqlError.forCode(code);
    }

    @Override
    public void encode(ByteBuf out) {
        if (sqlState.length() != 5) {
            throw new IllegalArgumentException("SQLSTATE must have 5 characters, got '" + sqlState + "'");
        }
        out.writeByte(MySqlProtocol.ERR_HEADER).writeShortLE(code).writeByte('#');
        out.writeCharSequence(sqlState, StandardCharsets.US_ASCII);
        out.writeCharSequence(message, StandardCharsets.UTF_8);
    }
}
