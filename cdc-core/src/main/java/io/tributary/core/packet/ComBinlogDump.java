package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * COM_BINLOG_DUMP: {@code 0x12}, binlog position (4), flags (2: {@code BINLOG_DUMP_NON_BLOCK},
 * MariaDB {@code BINLOG_SEND_ANNOTATE_ROWS_EVENT}), server id (4), binlog file name to the end.
 * Positions past 4 GB cannot be asked for with this command (use the GTID variant).
 */
public record ComBinlogDump(long position, int flags, long serverId, String fileName) implements MySqlMessage {

    public ComBinlogDump {
        if (position < 0 || position > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("COM_BINLOG_DUMP position must fit 4 bytes, got " + position);
        }
    }

    public static ComBinlogDump decode(ByteBuf in) {
        WireBuffers.expectCommand(in, MySqlProtocol.COM_BINLOG_DUMP, "COM_BINLOG_DUMP");
        WireBuffers.require(in, 10, "binlog dump position, flags and server id");
        return new ComBinlogDump(in.readUnsignedIntLE(), in.readUnsignedShortLE(), in.readUnsignedIntLE(),
                WireBuffers.readRestString(in));
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeByte(MySqlProtocol.COM_BINLOG_DUMP).writeIntLE((int) position).writeShortLE(flags)
                .writeIntLE((int) serverId).writeCharSequence(fileName, StandardCharsets.UTF_8);
    }
}
