package io.tributary.core.packet;

import static io.tributary.core.packet.WireBuffers.require;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The server's greeting, Protocol::HandshakeV10
 * (<a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase_packets_protocol_handshake_v10.html">spec</a>):
 * protocol version 10, server version (NUL-terminated), connection id (4), auth plugin data part 1
 * (8), filler, capability flags low (2), character set (1), status flags (2), capability flags high
 * (2), auth plugin data length (1), reserved (10), auth plugin data part 2 (at least 13, NUL
 * terminated), auth plugin name (NUL-terminated).
 *
 * @param authPluginData the full scramble (part 1 and part 2, without the trailing NUL), usually 20 bytes
 */
public record HandshakeV10(int protocolVersion, String serverVersion, long connectionId, byte[] authPluginData,
                           int capabilities, int characterSet, int statusFlags, String authPluginName)
        implements MySqlMessage {

    public static final int PROTOCOL_VERSION = 10;

    /** MariaDB announces itself in the version string ({@code 5.5.5-10.11.6-MariaDB-log}). */
    public boolean isMariaDb() {
        return serverVersion.contains("MariaDB");
    }

    public boolean hasCapability(int flag) {
        return (capabilities & flag) != 0;
    }

    public static HandshakeV10 decode(ByteBuf in) {
        require(in, 1, "handshake protocol version");
        int protocol = in.readUnsignedByte();
        if (protocol != PROTOCOL_VERSION) {
            throw new MySqlProtocolException(MySqlError.ER_HANDSHAKE_ERROR, "unsupported handshake: expected protocol version "
                    + PROTOCOL_VERSION + ", found " + protocol);
        }
        String version = WireBuffers.readNulString(in, "server version");
        require(in, 4 + 8 + 1 + 2, "handshake connection id, auth data part 1 and capabilities");
        long connectionId = in.readUnsignedIntLE();
        byte[] part1 = new byte[8];
        in.readBytes(part1);
        in.skipBytes(1);
        int capabilities = in.readUnsignedShortLE();
        int charset = 0;
        int status = 0;
        byte[] part2 = new byte[0];
        String plugin = null;
        if (in.isReadable()) {
            require(in, 1 + 2 + 2 + 1 + 10, "handshake character set, status, capabilities and reserved bytes");
            charset = in.readUnsignedByte();
            status = in.readUnsignedShortLE();
            capabilities |= in.readUnsignedShortLE() << 16;
            int authDataLength = in.readUnsignedByte();
            in.skipBytes(10);
            if ((capabilities & MySqlProtocol.CLIENT_SECURE_CONNECTION) != 0) {
                int length = Math.min(in.readableBytes(), Math.max(13, authDataLength - 8));
                part2 = WireBuffers.readFixedBytes(in, length, "auth plugin data part 2");
                if (part2.length > 0 && part2[part2.length - 1] == 0) {
                    part2 = Arrays.copyOf(part2, part2.length - 1);
                }
            }
            if ((capabilities & MySqlProtocol.CLIENT_PLUGIN_AUTH) != 0 && in.isReadable()) {
                plugin = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0) >= 0
                        ? WireBuffers.readNulString(in, "auth plugin name") : WireBuffers.readRestString(in);
            }
        }
        byte[] data = new byte[part1.length + part2.length];
        System.arraycopy(part1, 0, data, 0, 8);
        System.arraycopy(part2, 0, data, 8, part2.length);
        return new HandshakeV10(protocol, version, connectionId, data, capabilities, charset, status, plugin);
    }

    @Override
    public void encode(ByteBuf out) {
        if (authPluginData.length < 8) {
            throw new IllegalArgumentException("auth plugin data must be at least 8 bytes, got " + authPluginData.length);
        }
        out.writeByte(protocolVersion);
        WireBuffers.writeNulString(out, serverVersion);
        out.writeIntLE((int) connectionId);
        out.writeBytes(authPluginData, 0, 8);
        out.writeByte(0);
        out.writeShortLE(capabilities & 0xFFFF);
        out.writeByte(characterSet);
        out.writeShortLE(statusFlags);
        out.writeShortLE(capabilities >>> 16);
        out.writeByte(authPluginData.length + 1);
        out.writeZero(10);
        int part2 = authPluginData.length - 8;
        out.writeBytes(authPluginData, 8, part2);
        out.writeZero(Math.max(1, 13 - part2));
        if (authPluginName != null) {
            WireBuffers.writeNulString(out, authPluginName);
        }
    }

    @Override
    public String toString() {
        return "HandshakeV10[protocol=" + protocolVersion + ", serverVersion=" + serverVersion + ", connectionId="
                + connectionId + ", capabilities=0x" + Integer.toHexString(capabilities) + ", characterSet="
                + characterSet + ", status=0x" + Integer.toHexString(statusFlags) + ", authPlugin=" + authPluginName
                + ", authPluginData=" + HexFormat.of().formatHex(authPluginData) + "]";
    }
}
