package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;

/** COM_PING: the single byte {@code 0x0E}; answered with OK. */
public record ComPing() implements MySqlMessage {

    public static ComPing decode(ByteBuf in) {
        WireBuffers.expectCommand(in, MySqlProtocol.COM_PING, "COM_PING");
        return new ComPing();
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(MySqlProtocol.COM_PING);
    }
}
