package io.tributary.core.packet;

import static io.tributary.core.packet.WireBuffers.require;

import io.netty.buffer.ByteBuf;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The client's answer to the greeting, Protocol::HandshakeResponse41
 * (<a href="https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase_packets_protocol_handshake_response.html">spec</a>):
 * capability flags (4), max packet size (4), character set (1), 23 zero bytes, user name
 * (NUL-terminated), auth response (length-encoded, or 1-byte length, or NUL-terminated by
 * capability), database if {@code CLIENT_CONNECT_WITH_DB}, auth plugin name if
 * {@code CLIENT_PLUGIN_AUTH}, connection attributes if {@code CLIENT_CONNECT_ATTRS}.
 *
 * @param database null when not sent
 * @param authPluginName null when not sent
 */
public record HandshakeResponse41(int capabilities, int maxPacketSize, int characterSet, String user,
                                  byte[] authResponse, String database, String authPluginName,
                                  Map<String, String> attributes) implements MySqlMessage {

    public HandshakeResponse41 {
        attributes = Map.copyOf(attributes);
    }

    public static HandshakeResponse41 decode(ByteBuf in) {
        require(in, 32, "handshake response fixed part");
        int caps = in.readIntLE();
        if ((caps & MySqlProtocol.CLIENT_PROTOCOL_41) == 0) {
            throw new MySqlProtocolException(MySqlError.ER_HANDSHAKE_ERROR,
                    "unsupported handshake response: client lacks CLIENT_PROTOCOL_41 (capabilities 0x" + Integer.toHexString(caps) + ")");
        }
        int maxPacket = in.readIntLE();
        int charset = in.readUnsignedByte();
        in.skipBytes(23);
        String user = WireBuffers.readNulString(in, "user name");
        byte[] auth;
        if ((caps & MySqlProtocol.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) != 0) {
            auth = WireBuffers.readLenEncBytes(in, "auth response");
        } else if ((caps & MySqlProtocol.CLIENT_SECURE_CONNECTION) != 0) {
            require(in, 1, "auth response length");
            auth = WireBuffers.readFixedBytes(in, in.readUnsignedByte(), "auth response");
        } else {
            auth = WireBuffers.readNulBytes(in, "auth response");
        }
        String db = null;
        if ((caps & MySqlProtocol.CLIENT_CONNECT_WITH_DB) != 0 && in.isReadable()) {
            db = WireBuffers.readNulString(in, "database");
        }
        String plugin = null;
        if ((caps & MySqlProtocol.CLIENT_PLUGIN_AUTH) != 0 && in.isReadable()) {
            plugin = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) 0) >= 0
                    ? WireBuffers.readNulString(in, "auth plugin name") : WireBuffers.readRestString(in);
        }
        Map<String, String> attrs = new LinkedHashMap<>();
        if ((caps & MySqlProtocol.CLIENT_CONNECT_ATTRS) != 0 && in.isReadable()) {
            long length = WireBuffers.readLenEncInt(in, "connection attributes length");
            require(in, length, "connection attributes");
            ByteBuf block = in.readSlice((int) length);
            while (block.isReadable()) {
                attrs.put(WireBuffers.readLenEncString(block, "attribute name"),
                        WireBuffers.readLenEncString(block, "attribute value"));
            }
        }
        return new HandshakeResponse41(caps, maxPacket, charset, user, auth, db, plugin, attrs);
    }

    @Override
    public void encode(ByteBuf out) {
        int caps = capabilities;
        out.writeIntLE(caps).writeIntLE(maxPacketSize).writeByte(characterSet).writeZero(23);
        WireBuffers.writeNulString(out, user);
        if ((caps & MySqlProtocol.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) != 0) {
            WireBuffers.writeLenEncBytes(out, authResponse);
        } else if ((caps & MySqlProtocol.CLIENT_SECURE_CONNECTION) != 0) {
            if (authResponse.length > 255) {
                throw new IllegalArgumentException("auth response of " + authResponse.length
                        + " bytes needs CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA");
            }
            out.writeByte(authResponse.length).writeBytes(authResponse);
        } else {
            out.writeBytes(authResponse).writeByte(0);
        }
        if ((caps & MySqlProtocol.CLIENT_CONNECT_WITH_DB) != 0) {
            WireBuffers.writeNulString(out, database == null ? "" : database);
        }
        if ((caps & MySqlProtocol.CLIENT_PLUGIN_AUTH) != 0) {
            WireBuffers.writeNulString(out, authPluginName == null ? "" : authPluginName);
        }
        if ((caps & MySqlProtocol.CLIENT_CONNECT_ATTRS) != 0) {
            ByteBuf block = out.alloc().buffer();
            try {
                attributes.forEach((k, v) -> {
                    WireBuffers.writeLenEncString(block, k);
                    WireBuffers.writeLenEncString(block, v);
                });
                WireBuffers.writeLenEncInt(out, block.readableBytes());
                out.writeBytes(block);
            } finally {
                block.release();
            }
        }
    }

    @Override
    public String toString() {
        return "HandshakeResponse41[capabilities=0x" + Integer.toHexString(capabilities) + ", maxPacketSize="
                + maxPacketSize + ", characterSet=" + characterSet + ", user=" + user + ", authResponse=<"
                + authResponse.length + " bytes>, database=" + database + ", authPlugin=" + authPluginName
                + ", attributes=" + attributes + "]";
    }
}
