package io.tributary.core.packet;

import static io.tributary.core.packet.WireBuffers.require;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * COM_BINLOG_DUMP_GTID (MySQL 5.6+): {@code 0x1E}, flags (2), server id (4), file name length (4),
 * file name, position (8), then, when {@code BINLOG_THROUGH_GTID} is set, the SID block: its
 * length (4), the number of SIDs (8) and per SID the UUID (16 bytes, big-endian), the number of
 * intervals (8) and each interval as start (8) and end exclusive (8), little-endian.
 *
 * @param sids the GTID set the replica already has; the server sends every transaction not in it
 */
public record ComBinlogDumpGtid(int flags, long serverId, String fileName, long position, List<Sid> sids)
        implements MySqlMessage {

    /** One source UUID and the transaction numbers already seen from it. */
    public record Sid(UUID uuid, List<Interval> intervals) {
        public Sid {
            intervals = List.copyOf(intervals);
        }
    }

    /** Transaction numbers {@code start} to {@code endExclusive - 1}. */
    public record Interval(long start, long endExclusive) {
        public Interval {
            if (start < 1 || endExclusive <= start) {
                throw new IllegalArgumentException("GTID interval must satisfy 1 <= start < end, got " + start + "-" + endExclusive);
            }
        }
    }

    public ComBinlogDumpGtid {
        sids = List.copyOf(sids);
    }

    public static ComBinlogDumpGtid decode(ByteBuf in) {
        WireBuffers.expectCommand(in, MySqlProtocol.COM_BINLOG_DUMP_GTID, "COM_BINLOG_DUMP_GTID");
        require(in, 10, "binlog dump GTID flags, server id and name length");
        int flags = in.readUnsignedShortLE();
        long serverId = in.readUnsignedIntLE();
        long nameLength = in.readUnsignedIntLE();
        require(in, nameLength, "binlog dump GTID file name");
        String name = in.readCharSequence((int) nameLength, StandardCharsets.UTF_8).toString();
        require(in, 8, "binlog dump GTID position");
        long position = in.readLongLE();
        List<Sid> sids = new ArrayList<>();
        // a MySQL server reads the SID block whatever the flags say; mysql-binlog-connector-java sends flags 0
        if ((flags & MySqlProtocol.BINLOG_THROUGH_GTID) != 0 || in.isReadable()) {
            require(in, 4, "SID block length");
            long dataSize = in.readUnsignedIntLE();
            require(in, dataSize, "SID block");
            ByteBuf block = in.readSlice((int) dataSize);
            require(block, 8, "SID count");
            long n = block.readLongLE();
            if (n < 0 || n > block.readableBytes() / 24) {
                throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET, "malformed SID block: " + n
                        + " SIDs cannot fit in " + block.readableBytes() + " bytes");
            }
            for (long i = 0; i < n; i++) {
                require(block, 24, "SID " + i);
                UUID uuid = new UUID(block.readLong(), block.readLong());
                long count = block.readLongLE();
                if (count < 0 || count > block.readableBytes() / 16) {
                    throw new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET, "malformed SID block: " + count
                            + " intervals for " + uuid + " cannot fit in " + block.readableBytes() + " bytes");
                }
                List<Interval> intervals = new ArrayList<>();
                for (long j = 0; j < count; j++) {
                    intervals.add(new Interval(block.readLongLE(), block.readLongLE()));
                }
                sids.add(new Sid(uuid, intervals));
            }
        }
        return new ComBinlogDumpGtid(flags, serverId, name, position, sids);
    }

    @Override
    public void encode(ByteBuf out) {
        byte[] name = fileName.getBytes(StandardCharsets.UTF_8);
        out.writeByte(MySqlProtocol.COM_BINLOG_DUMP_GTID).writeShortLE(flags).writeIntLE((int) serverId)
                .writeIntLE(name.length).writeBytes(name).writeLongLE(position);
        if ((flags & MySqlProtocol.BINLOG_THROUGH_GTID) != 0) {
            int size = 8;
            for (Sid s : sids) {
                size += 24 + 16 * s.intervals().size();
            }
            out.writeIntLE(size).writeLongLE(sids.size());
            for (Sid s : sids) {
                out.writeLong(s.uuid().getMostSignificantBits()).writeLong(s.uuid().getLeastSignificantBits());
                out.writeLongLE(s.intervals().size());
                for (Interval i : s.intervals()) {
                    out.writeLongLE(i.start()).writeLongLE(i.endExclusive());
                }
            }
        }
    }
}
