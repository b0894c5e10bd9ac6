package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * Protocol::OK_Packet (protocol 4.1): header {@code 0x00} (or {@code 0xFE} when it ends a result
 * set under {@code CLIENT_DEPRECATE_EOF}), affected rows and last insert id (length-encoded),
 * status flags (2), warnings (2), human-readable info to the end (session-state tracking is not
 * requested and so not decoded).
 */
public record OkPacket(long affectedRows, long lastInsertId, int statusFlags, int warnings, String info)
        implements MySqlMessage {

    public static final OkPacket EMPTY = new OkPacket(0, 0, MySqlProtocol.SERVER_STATUS_AUTOCOMMIT, 0, "");

    public static OkPacket decode(ByteBuf in) {
        WireBuffers.require(in, 1, "OK header");
        int header = in.readUnsignedByte();
        if (header != MySqlProtocol.OK_HEADER && header != MySqlProtocol.EOF_HEADER) {
            throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET,
                    "malformed OK packet: expected header 0x00 or 0xFE, found 0x" + Integer.toHexString(header));
        }
        long affected = WireBuffers.readLenEncInt(in, "OK affected rows");
        long insertId = WireBuffers.readLenEncInt(in, "OK last insert id");
        int status = 0;
        int warnings = 0;
        if (in.readableBytes() >= 4) {
            status = in.readUnsignedShortLE();
            warnings = in.readUnsignedShortLE();
        }
        return new OkPacket(affected, insertId, status, warnings, WireBuffers.readRestString(in));
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(MySqlProtocol.OK_HEADER);
        WireBuffers.writeLenEncInt(out, affectedRows);
        WireBuffers.writeLenEncInt(out, lastInsertId);
        out.writeShortLE(statusFlags).writeShortLE(warnings);
        out.writeCharSequence(info, java.nio.charset.StandardCharsets.UTF_8);
    }
}
