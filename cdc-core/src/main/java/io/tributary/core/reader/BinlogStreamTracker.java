package io.tributary.core.reader;

import io.netty.buffer.ByteBuf;
import io.tributary.core.event.EventChecksum;
import io.tributary.core.framing.Boundary;
import io.tributary.core.framing.FramingException;
import io.tributary.core.framing.TransactionFramer;
import io.tributary.core.position.MariaDbGtidPosition;
import io.tributary.core.position.MySqlGtidSet;
import io.tributary.core.position.ShardPosition;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * Reads the few facts the reader needs from each event of one dump stream and keeps the two
 * positions: where the stream stands ({@code current}) and where a restart resumes
 * ({@code restart}, moved only outside transactions).
 *
 * <p>Parsed here, and nothing more: the v4 header (19 bytes little-endian: timestamp 4, type 1,
 * server id 4, event size 4, log_pos 4, flags 2); ROTATE (position 8, file name) to follow file
 * names; FORMAT_DESCRIPTION for the checksum algorithm (the byte before the 4-byte CRC at the end
 * of its body); MySQL GTID (flags 1, SID 16, GNO 8) and MariaDB GTID (sequence 8, domain 4,
 * flags 1) for the GTID position. CRC32 trailers are verified.
 *
 * <p>Transaction boundaries are the {@link TransactionFramer}'s: this tracker frames each event once,
 * hands the {@link Boundary} on with it ({@link ShardEvent#boundary()}), adds a transaction's GTID to
 * the GTID position when the framer ends the transaction its GTID event opened, and moves the restart
 * position whenever the framer stands outside a transaction (every event outside one is a boundary of
 * its own).
 *
 * <p>Not thread-safe: one instance per connection, used on its event loop.
 */
final class BinlogStreamTracker {
    static final int HEADER_BYTES = 19;
    static final int QUERY = 2;
    static final int STOP = 3;
    static final int ROTATE = 4;
    static final int FORMAT_DESCRIPTION = 15;
    static final int XID = 16;
    static final int HEARTBEAT = 27;
    static final int GTID = 33;
    static final int ANONYMOUS_GTID = 34;
    static final int TRANSACTION_PAYLOAD = 40;
    static final int HEARTBEAT_V2 = 41;
    static final int MARIADB_GTID = 162;

    private enum Checksum { UNKNOWN, CRC32, NONE }

    private final String shard;
    private final boolean mariaDb;
    private final MySqlGtidSet.Builder mysqlGtids;
    private final MariaDbGtidPosition mariaGtids;
    private final CRC32 crc = new CRC32();
    /** The CRC's views of the read buffers events are sliced from (see {@link EventChecksum.SliceViews}). */
    private final EventChecksum.SliceViews views = new EventChecksum.SliceViews();
    private final TransactionFramer framer = new TransactionFramer();

    private String file;
    private long position;
    private String gtidText;
    private ShardPosition current;
    private ShardPosition restart;
    private Checksum checksum = Checksum.UNKNOWN;
    /** The GTID of the open group's GTID event, added to the GTID position when the group ends. */
    private UUID pendingUuid;
    private long pendingGno;
    private long pendingDomain;
    private long pendingServer;

    BinlogStreamTracker(String shard, boolean mariaDb, ShardPosition start) {
        this.shard = shard;
        this.mariaDb = mariaDb;
        this.file = start.file();
        this.position = start.position();
        if (start.hasGtidSet()) {
            mysqlGtids = mariaDb ? null : MySqlGtidSet.builder(start.gtidSet());
            mariaGtids = mariaDb ? MariaDbGtidPosition.parse(start.gtidSet()) : null;
            gtidText = mariaDb ? mariaGtids.toString() : mysqlGtids.toString();
        } else {
            mysqlGtids = null;
            mariaGtids = null;
        }
        current = new ShardPosition(file, position, gtidText);
        restart = current;
    }

    ShardPosition current() {
        return current;
    }

    ShardPosition restart() {
        return restart;
    }

    /**
     * Takes ownership of {@code event} (the whole event, header to checksum) and returns it with
     * its facts; releases it and throws {@link CorruptShardEventException} when a check fails.
     */
    ShardEvent accept(ByteBuf event) {
        try {
            return read(event);
        } catch (RuntimeException e) {
            event.release();
            throw e;
        }
    }

    private ShardEvent read(ByteBuf ev) {
        int base = ev.readerIndex();
        int length = ev.readableBytes();
        if (length < HEADER_BYTES) {
            throw corrupt("event of " + length + " bytes is shorter than the 19-byte header");
        }
        long timestamp = ev.getUnsignedIntLE(base);
        int type = ev.getUnsignedByte(base + 4);
        long serverId = ev.getUnsignedIntLE(base + 5);
        long size = ev.getUnsignedIntLE(base + 9);
        long logPos = ev.getUnsignedIntLE(base + 13);
        int flags = ev.getUnsignedShortLE(base + 17);
        if (size != length) {
            throw corrupt("event type " + type + " declares event_size " + size + " but the packet holds " + length + " bytes");
        }
        boolean hasChecksum = checksumOf(ev, type, length);
        int bodyEnd = length - (hasChecksum ? 4 : 0);
        boolean artificial = (flags & ShardEvent.ARTIFICIAL_FLAG) != 0;
        switch (type) {
            case ROTATE -> {
                need(type, bodyEnd, HEADER_BYTES + 8);
                long pos = ev.getLongLE(base + HEADER_BYTES);
                file = ev.toString(base + HEADER_BYTES + 8, bodyEnd - HEADER_BYTES - 8, StandardCharsets.UTF_8);
                position = pos;
            }
            case GTID -> {
                need(type, bodyEnd, HEADER_BYTES + 25);
                pendingUuid = new UUID(ev.getLong(base + HEADER_BYTES + 1), ev.getLong(base + HEADER_BYTES + 9));
                pendingGno = ev.getLongLE(base + HEADER_BYTES + 17);
            }
            case MARIADB_GTID -> {
                need(type, bodyEnd, HEADER_BYTES + 13);
                pendingGno = ev.getLongLE(base + HEADER_BYTES);
                pendingDomain = ev.getUnsignedIntLE(base + HEADER_BYTES + 8);
                pendingServer = serverId;
            }
            default -> {
            }
        }
        Boundary kind;
        try {
            kind = framer.frame(ev, base, type, bodyEnd);
        } catch (FramingException e) {
            throw corrupt(e.getMessage());
        }
        if (logPos != 0 && !artificial && type != ROTATE && type != HEARTBEAT && type != HEARTBEAT_V2) {
            position = endOf(logPos, size);
        }
        boolean end = framer.ended();
        if (end) {
            closeTransaction(framer.endedGtidGroup());
        }
        boolean boundary = !framer.state().inTransaction();
        if (current.position() != position || !Objects.equals(current.file(), file)
                || !Objects.equals(current.gtidSet(), gtidText)) {
            current = new ShardPosition(file, position, gtidText);
        }
        if (boundary && restart != current) {
            restart = current;
        }
        return new ShardEvent(shard, type, timestamp, serverId, size, logPos, flags, hasChecksum, current, restart,
                framer.opened(), end, ev, kind);
    }

    /**
     * Where an event with this {@code log_pos} ends. log_pos holds the end offset modulo 2<sup>32</sup>: a server
     * lets one transaction carry its file past 4 GiB and keeps writing the low 32 bits. An event that follows the
     * previous one directly ends at {@code position + size}, whatever the wrap; otherwise log_pos counts as is
     * when it moves forward (the first event after a start), and going backwards marks an event that does not
     * move the position (the FDE a server re-sends when a dump starts mid-file).
     */
    private long endOf(long logPos, long size) {
        long contiguous = position + size;
        if ((contiguous & 0xFFFF_FFFFL) == logPos) {
            return contiguous;
        }
        return Math.max(position, logPos);
    }

    /** Events of the open transaction handed on so far (0 outside a transaction). */
    long eventsInTransaction() {
        return framer.eventsInTransaction();
    }

    /** A transaction ended; {@code withGtid}: the GTID event that opened it carries its GTID. */
    private void closeTransaction(boolean withGtid) {
        if (withGtid) {
            if (mysqlGtids != null && pendingUuid != null && !mariaDb) {
                mysqlGtids.add(pendingUuid, pendingGno);
                gtidText = mysqlGtids.toString();
            } else if (mariaGtids != null && mariaDb) {
                mariaGtids.add(pendingDomain, pendingServer, pendingGno);
                gtidText = mariaGtids.toString();
            }
        }
        pendingUuid = null;
    }

    private boolean checksumOf(ByteBuf ev, int type, int length) {
        int base = ev.readerIndex();
        if (type == FORMAT_DESCRIPTION) {
            int alg = checksumAware(ev, base, length) ? ev.getUnsignedByte(base + length - 5) : 0;
            checksum = alg == 1 ? Checksum.CRC32 : Checksum.NONE;
            if (checksum == Checksum.CRC32 && !crcMatches(ev, base, length, true)) {
                throw corrupt("FORMAT_DESCRIPTION CRC32 mismatch: stored 0x" + Long.toHexString(ev.getUnsignedIntLE(base + length - 4))
                        + ", computed 0x" + Long.toHexString(computeCrc(ev, base, length, false)));
            }
            return checksum == Checksum.CRC32;
        }
        if (checksum == Checksum.UNKNOWN) {
            return length >= HEADER_BYTES + 4 && crcMatches(ev, base, length, false);
        }
        if (checksum == Checksum.NONE) {
            return false;
        }
        if (length < HEADER_BYTES + 4 || !crcMatches(ev, base, length, false)) {
            throw corrupt("event type " + type + " of " + length + " bytes: CRC32 mismatch, stored 0x"
                    + (length >= 4 ? Long.toHexString(ev.getUnsignedIntLE(base + length - 4)) : "-") + ", computed 0x"
                    + Long.toHexString(computeCrc(ev, base, length, false)));
        }
        return true;
    }

    /** Servers from MySQL 5.6.1 and MariaDB 5.3 write the checksum algorithm byte in the FDE. */
    private static boolean checksumAware(ByteBuf ev, int base, int length) {
        if (length < HEADER_BYTES + 2 + 50 + 5) {
            return false;
        }
        String version = ev.toString(base + HEADER_BYTES + 2, 50, StandardCharsets.ISO_8859_1);
        int[] v = new int[3];
        int part = 0;
        for (int i = 0; i < version.length() && part < 3; i++) {
            char c = version.charAt(i);
            if (c >= '0' && c <= '9') {
                v[part] = v[part] * 10 + (c - '0');
            } else if (c == '.') {
                part++;
            } else {
                break;
            }
        }
        if (version.contains("MariaDB")) {
            return v[0] > 5 || v[0] == 5 && v[1] >= 3;
        }
        return v[0] > 5 || v[0] == 5 && (v[1] > 6 || v[1] == 6 && v[2] >= 1);
    }

    private boolean crcMatches(ByteBuf ev, int base, int length, boolean fde) {
        long stored = ev.getUnsignedIntLE(base + length - 4);
        if (computeCrc(ev, base, length, false) == stored) {
            return true;
        }
        // The FDE's CRC is computed with LOG_EVENT_BINLOG_IN_USE_F cleared; the flag may still be set.
        return fde && computeCrc(ev, base, length, true) == stored;
    }

    private long computeCrc(ByteBuf ev, int base, int length, boolean clearInUse) {
        crc.reset();
        if (clearInUse) {
            views.update(crc, ev, base, 17);
            crc.update(ev.getByte(base + 17) & ~1);
            views.update(crc, ev, base + 18, length - 4 - 18);
        } else {
            views.update(crc, ev, base, length - 4);
        }
        return crc.getValue();
    }

    private void need(int type, int bodyEnd, int needed) {
        if (bodyEnd < needed) {
            throw corrupt("event type " + type + " needs " + needed + " bytes before its checksum, has " + bodyEnd);
        }
    }

    private CorruptShardEventException corrupt(String what) {
        return new CorruptShardEventException(shard, new ShardPosition(file, position, gtidText), what);
    }
}
