package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;

/** COM_QUIT: the single byte {@code 0x01}; the server closes the connection. */
public record ComQuit() implements MySqlMessage {

    public static ComQuit decode(ByteBuf in) {
        WireBuffers.expectCommand(in, MySqlProtocol.COM_QUIT, "COM_QUIT");
        return new ComQuit();
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(MySqlProtocol.COM_QUIT);
    }
}
