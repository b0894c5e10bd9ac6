package io.tributary.core.packet;

import static io.tributary.core.packet.WireBuffers.require;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * COM_REGISTER_SLAVE: {@code 0x15}, server id (4), host, user and password (each a 1-byte length
 * and the bytes), port (2), replication rank (4, ignored by servers), master id (4).
 */
public record ComRegisterSlave(long serverId, String host, String user, String password, int port,
                               long replicationRank, long masterId) implements MySqlMessage {

    public static ComRegisterSlave decode(ByteBuf in) {
        WireBuffers.expectCommand(in, MySqlProtocol.COM_REGISTER_SLAVE, "COM_REGISTER_SLAVE");
        require(in, 4, "register slave server id");
        long serverId = in.readUnsignedIntLE();
        String host = shortString(in, "register slave host");
        String user = shortString(in, "register slave user");
        String password = shortString(in, "register slave password");
        require(in, 10, "register slave port, rank and master id");
        return new ComRegisterSlave(serverId, host, user, password, in.readUnsignedShortLE(), in.readUnsignedIntLE(),
                in.readUnsignedIntLE());
    }

    private static String shortString(ByteBuf in, String what) {
        require(in, 1, what + " length");
        return new String(WireBuffers.readFixedBytes(in, in.readUnsignedByte(), what), StandardCharsets.UTF_8);
    }

    private static void writeShortString(ByteBuf out, String s, String what) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > 255) {
            throw new IllegalArgumentException(what + " longer than 255 bytes: " + b.length);
        }
        out.writeByte(b.length).writeBytes(b);
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(MySqlProtocol.COM_REGISTER_SLAVE).writeIntLE((int) serverId);
        writeShortString(out, host, "host");
        writeShortString(out, user, "user");
        writeShortString(out, password, "password");
        out.writeShortLE(port).writeIntLE((int) replicationRank).writeIntLE((int) masterId);
    }

    @Override
    public String toString() {
        return "ComRegisterSlave[serverId=" + serverId + ", host=" + host + ", user=" + user + ", port=" + port
                + ", masterId=" + masterId + "]";
    }
}
