package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * Protocol::AuthMoreData: {@code 0x01} then plugin-specific data to the end of the payload
 * (for caching_sha2_password: one status byte, 0x03 fast auth success or 0x04 perform full
 * authentication, or the server's RSA public key in PEM).
 */
public record AuthMoreData(byte[] data) implements MySqlMessage {

    public static AuthMoreData decode(ByteBuf in) {
        WireBuffers.require(in, 1, "auth more data header");
        int header = in.readUnsignedByte();
        if (header != MySqlProtocol.AUTH_MORE_DATA_HEADER) {
            throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET,
                    "malformed auth more data: expected header 0x01, found 0x" + Integer.toHexString(header));
        }
        return new AuthMoreData(WireBuffers.readRestBytes(in));
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(MySqlProtocol.AUTH_MORE_DATA_HEADER).writeBytes(data);
    }

    @Override
    public String toString() {
        return "AuthMoreData[" + data.length + " bytes" + (data.length == 1 ? ", status=0x" + Integer.toHexString(data[0]) : "") + "]";
    }
}
