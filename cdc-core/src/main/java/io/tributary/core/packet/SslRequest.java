package io.tributary.core.packet;

import static io.tributary.core.packet.WireBuffers.require;

import io.netty.buffer.ByteBuf;

/**
 * Protocol::SSLRequest: the first 32 bytes of a handshake response (capabilities with
 * {@code CLIENT_SSL}, max packet size, character set, 23 zero bytes), sent before the TLS handshake.
 * A server tells it from a full {@link HandshakeResponse41} by its length of exactly 32 bytes.
 */
public record SslRequest(int capabilities, int maxPacketSize, int characterSet) implements MySqlMessage {
    public static final int LENGTH = 32;

    public static SslRequest decode(ByteBuf in) {
        require(in, LENGTH, "SSL request");
        SslRequest r = new SslRequest(in.readIntLE(), in.readIntLE(), in.readUnsignedByte());
        in.skipBytes(23);
        return r;
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeIntLE(capabilities | MySqlProtocol.CLIENT_SSL).writeIntLE(maxPacketSize).writeByte(characterSet).writeZero(23);
    }
}
