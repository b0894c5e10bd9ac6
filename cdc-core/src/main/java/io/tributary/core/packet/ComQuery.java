package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/** COM_QUERY: {@code 0x03} then the statement text to the end of the payload. */
public record ComQuery(String sql) implements MySqlMessage {

    public static ComQuery decode(ByteBuf in) {
        WireBuffers.expectCommand(in, MySqlProtocol.COM_QUERY, "COM_QUERY");
        return new ComQuery(WireBuffers.readRestString(in));
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(MySqlProtocol.COM_QUERY).writeCharSequence(sql, StandardCharsets.UTF_8);
    }
}
