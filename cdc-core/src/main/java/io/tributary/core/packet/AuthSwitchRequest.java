package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Protocol::AuthSwitchRequest: {@code 0xFE}, plugin name (NUL-terminated), plugin data (the new
 * scramble, usually 20 bytes followed by a NUL) to the end of the payload.
 *
 * @param pluginData as sent, including a trailing NUL if the server wrote one
 */
public record AuthSwitchRequest(String pluginName, byte[] pluginData) implements MySqlMessage {

    public static AuthSwitchRequest decode(ByteBuf in) {
        WireBuffers.require(in, 1, "auth switch header");
        int header = in.readUnsignedByte();
        if (header != MySqlProtocol.AUTH_SWITCH_HEADER) {
            throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET,
                    "malformed auth switch request: expected header 0xFE, found 0x" + Integer.toHexString(header));
        }
        String name = WireBuffers.readNulString(in, "auth switch plugin name");
        return new AuthSwitchRequest(name, WireBuffers.readRestBytes(in));
    }

    /** The scramble: the plugin data without a trailing NUL. */
    public byte[] seed() {
        int n = pluginData.length;
        return n > 0 && pluginData[n - 1] == 0 ? Arrays.copyOf(pluginData, n - 1) : pluginData.clone();
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(MySqlProtocol.AUTH_SWITCH_HEADER);
        WireBuffers.writeNulString(out, pluginName);
        out.writeBytes(pluginData);
    }

    @Override
    public String toString() {
        return "AuthSwitchRequest[plugin=" + pluginName + ", data=<" + pluginData.length + " bytes>]";
    }
}
