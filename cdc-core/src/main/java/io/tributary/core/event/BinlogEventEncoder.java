package io.tributary.core.event;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * Writes the events the global binlog is made of into a Netty {@link ByteBuf}: the 19-byte v4 header,
 * the body, and a CRC32 trailer on every event (the format description announces CRC32).
 *
 * <p>Each method takes the file offset at which the event will start ({@code position}) and fills
 * {@code log_pos} with the offset just past the event, as servers do; it returns the event's length.
 * {@code log_pos} is 4 bytes: past 4 GiB (a file that one large transaction carried over the limit) it
 * holds the offset modulo 2<sup>32</sup>, as MySQL's {@code Log_event::write_header_to_memory} stores
 * {@code static_cast<uint32>(log_pos)}; readers take positions from the file offset, not from the header.
 * Every event carries this encoder's {@code server_id}: the global binlog is its own source.
 *
 * <p>Row events and table maps are relayed as bytes: the source event's body is copied, only the table
 * id (and for table maps the database and table names) is rewritten, and the header and checksum are
 * made anew. Their column data and optional metadata are never decoded on this path.
 *
 * <p>Reference: MySQL {@code libbinlogevents} ({@code control_events.h}, {@code rows_event.h},
 * {@code statement_events.h}), MariaDB {@code sql/log_event.h}. Not thread-safe (one CRC32 state): one
 * encoder belongs to one writer thread.
 */
public final class BinlogEventEncoder {

    /** Set on events that exist only on the wire (fake rotate, heartbeat). */
    public static final int LOG_EVENT_ARTIFICIAL_F = 0x20;
    /** MariaDB GTID flags2. */
    public static final int MARIA_FL_STANDALONE = 0x01;
    public static final int MARIA_FL_TRANSACTIONAL = 0x04;
    public static final int MARIA_FL_DDL = 0x20;

    private static final int BINLOG_VERSION = 4;
    private static final int SERVER_VERSION_LENGTH = 50;
    private static final int CHECKSUM_ALG_CRC32 = 1;
    private static final int LOGICAL_TIMESTAMP_TYPECODE = 2;
    private static final long COMMIT_TS_MASK = (1L << 55) - 1;
    private static final int ROWS_V1_POST_HEADER = 8;
    private static final int ROWS_V2_POST_HEADER = 10;

    private final BinlogFlavor flavor;
    private final long serverId;
    private final int serverVersionNumber;
    private final CRC32 crc = new CRC32();
    /**
     * Table map bodies already written, by the source's decoded body. A decoded body stands for one body's
     * bytes (the decoder makes one per event, and the merge path shares one among the events with the same
     * body bytes), and a shard writes the same table map before every statement on the table, so its renamed
     * body is made once. Only the header and checksum are made per event.
     */
    private final Map<TableMapEvent, RenamedTableMap> renamedTableMaps = new IdentityHashMap<>();

    private record RenamedTableMap(long tableId, String database, String table, byte[] body) {
    }

    private static final int RENAMED_TABLE_MAPS = 4096;

    /**
     * @param flavor   the server the output looks like
     * @param serverId {@code server_id} stamped on every event (1 to 2^32-1)
     */
    public BinlogEventEncoder(BinlogFlavor flavor, long serverId) {
        if (serverId < 1 || serverId > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("Invalid value " + serverId + " for server id: must be 1 to 4294967295");
        }
        this.flavor = flavor;
        this.serverId = serverId;
        String[] v = flavor.serverVersion().split("[.-]");
        this.serverVersionNumber = Integer.parseInt(v[0]) * 10000 + Integer.parseInt(v[1]) * 100 + Integer.parseInt(v[2]);
    }

    public BinlogFlavor flavor() {
        return flavor;
    }

    /** FORMAT_DESCRIPTION (15), always at offset 4 after the magic. */
    public int formatDescription(ByteBuf out, long timestamp) {
        int start = begin(out, EventType.FORMAT_DESCRIPTION, timestamp, 0);
        out.writeShortLE(BINLOG_VERSION);
        byte[] version = flavor.serverVersion().getBytes(StandardCharsets.US_ASCII);
        out.writeBytes(version);
        out.writeZero(SERVER_VERSION_LENGTH - version.length);
        // create_timestamp 0, as a server writes in every file but the first after its start: a non-zero one tells
        // mariadb-binlog and replicas that the server (re)started there, which a global binlog never does; its
        // GTID-state check then refuses a file after one that says so ("Binary logs are missing data for domain")
        out.writeIntLE(0);
        out.writeByte(EventHeader.LENGTH);
        out.writeBytes(flavor.postHeaderLengths());
        out.writeByte(CHECKSUM_ALG_CRC32);
        return end(out, start, 4);
    }

    /** PREVIOUS_GTIDS (35, MySQL): the GTID set of all earlier files; intervals are [start, end). */
    public int previousGtids(ByteBuf out, long position, long timestamp, List<PreviousGtidsEvent.SidIntervals> set) {
        int start = begin(out, EventType.PREVIOUS_GTIDS, timestamp, 0);
        out.writeLongLE(set.size());
        for (PreviousGtidsEvent.SidIntervals sid : set) {
            if (sid.tag() != null) {
                throw new IllegalArgumentException("tagged GTIDs are not written: " + sid);
            }
            writeUuid(out, sid.sid());
            out.writeLongLE(sid.intervals().size());
            for (PreviousGtidsEvent.Interval i : sid.intervals()) {
                out.writeLongLE(i.start());
                out.writeLongLE(i.end());
            }
        }
        return end(out, start, position);
    }

    /** GTID_LIST (163, MariaDB): the last GTID of every domain and server in earlier files. */
    public int gtidList(ByteBuf out, long position, long timestamp, List<GtidListEvent.MariaGtid> gtids) {
        int start = begin(out, EventType.GTID_LIST, timestamp, 0);
        out.writeIntLE(gtids.size());
        for (GtidListEvent.MariaGtid g : gtids) {
            out.writeIntLE((int) g.domainId());
            out.writeIntLE((int) g.serverId());
            out.writeLongLE(g.sequence());
        }
        return end(out, start, position);
    }

    /**
     * GTID (33, MySQL 8.0 layout): {@code sid:gno}, the logical clock, the commit timestamp (immediate =
     * original: this binlog is the transaction's origin as far as its readers know), the transaction
     * length, and the server version.
     *
     * @param transactionLength bytes of the whole transaction including this event; use
     *                          {@link #gtidTransactionLength(long)} to get it from the bytes that follow
     */
    public int gtid(ByteBuf out, long position, long timestamp, UUID sid, long gno, long lastCommitted,
                    long sequenceNumber, long commitTimestampMicros, long transactionLength) {
        int start = begin(out, EventType.GTID, timestamp, 0);
        out.writeByte(0); // flags: row-based only, never "may have SBR"
        writeUuid(out, sid);
        out.writeLongLE(gno);
        out.writeByte(LOGICAL_TIMESTAMP_TYPECODE);
        out.writeLongLE(lastCommitted);
        out.writeLongLE(sequenceNumber);
        writeUint56(out, commitTimestampMicros & COMMIT_TS_MASK); // bit 55 clear: original = immediate
        writePacked(out, transactionLength);
        out.writeIntLE(serverVersionNumber); // bit 31 clear: original version = immediate version
        return end(out, start, position);
    }

    /** Size of a {@link #gtid} event whose transaction length field holds {@code transactionLength}. */
    public static int gtidEventSize(long transactionLength) {
        return EventHeader.LENGTH + 1 + 16 + 8 + 1 + 8 + 8 + 7 + packedSize(transactionLength) + 4 + 4;
    }

    /** The transaction length to put in a GTID event followed by {@code bytesAfterGtid} bytes of events. */
    public static long gtidTransactionLength(long bytesAfterGtid) {
        long total = bytesAfterGtid + gtidEventSize(bytesAfterGtid);
        // the packed length of the total may be longer than that of the rest; settle on a fixed point
        while (bytesAfterGtid + gtidEventSize(total) != total) {
            total = bytesAfterGtid + gtidEventSize(total);
        }
        return total;
    }

    /**
     * MariaDB GTID (162): {@code domain-server-sequence}, with the server id taken from the header. It
     * also begins the transaction (there is no separate BEGIN query in MariaDB's binlog).
     *
     * @param flags2 e.g. {@link #MARIA_FL_TRANSACTIONAL} for a row transaction,
     *               {@link #MARIA_FL_STANDALONE} | {@link #MARIA_FL_DDL} for DDL
     */
    public int mariaGtid(ByteBuf out, long position, long timestamp, long domainId, long sequence, int flags2) {
        int start = begin(out, EventType.MARIA_GTID, timestamp, 0);
        out.writeLongLE(sequence);
        out.writeIntLE((int) domainId);
        out.writeByte(flags2);
        out.writeZero(flavor.postHeaderLength(EventType.MARIA_GTID) - 13); // padding to the post-header length
        return end(out, start, position);
    }

    /**
     * QUERY (2).
     *
     * @param statusVariables the status variable block, e.g. from {@link #standardStatusVariables}
     */
    public int query(ByteBuf out, long position, long timestamp, long threadId, long execTimeSeconds,
                     String database, String sql, byte[] statusVariables) {
        byte[] db = database == null ? new byte[0] : database.getBytes(StandardCharsets.UTF_8);
        if (db.length > 255) {
            throw new IllegalArgumentException("database name longer than 255 bytes: " + database);
        }
        int start = begin(out, EventType.QUERY, timestamp, 0);
        out.writeIntLE((int) threadId);
        out.writeIntLE((int) execTimeSeconds);
        out.writeByte(db.length);
        out.writeShortLE(0); // error code
        out.writeShortLE(statusVariables.length);
        out.writeBytes(statusVariables);
        out.writeBytes(db);
        out.writeByte(0);
        out.writeBytes(sql.getBytes(StandardCharsets.UTF_8));
        return end(out, start, position);
    }

    /**
     * The status variables a server writes on every query, so that {@code mysqlbinlog | mysql} replays
     * the statement with the right session: flags2, sql_mode, catalog, and the client charset, connection
     * collation and server collation ids (e.g. 45 = utf8mb4_general_ci).
     */
    public static byte[] standardStatusVariables(long sqlMode, int clientCharset, int connectionCollation,
                                                 int serverCollation) {
        byte[] b = new byte[5 + 9 + 5 + 7];
        int i = 0;
        b[i++] = 0; // Q_FLAGS2_CODE, uint32 0
        i += 4;
        b[i++] = 1; // Q_SQL_MODE_CODE, uint64
        for (int k = 0; k < 8; k++) {
            b[i++] = (byte) (sqlMode >>> (8 * k));
        }
        b[i++] = 6; // Q_CATALOG_NZ_CODE, length-prefixed "std"
        b[i++] = 3;
        b[i++] = 's';
        b[i++] = 't';
        b[i++] = 'd';
        b[i++] = 4; // Q_CHARSET_CODE, three uint16
        for (int v : new int[] {clientCharset, connectionCollation, serverCollation}) {
            b[i++] = (byte) v;
            b[i++] = (byte) (v >>> 8);
        }
        return b;
    }

    /**
     * TABLE_MAP (19) relayed from a source table map under new names and a new table id. The column
     * section (count, types, metadata, null bitmap, optional metadata) is copied byte for byte.
     */
    public int tableMap(ByteBuf out, long position, BinlogEvent source, long newTableId, String database,
                        String table) {
        requireType(source, EventType.TABLE_MAP);
        TableMapEvent model = source.body() instanceof TableMapEvent t ? t : null;
        RenamedTableMap known = model == null ? null : renamedTableMaps.get(model);
        if (known == null || known.tableId() != newTableId || !known.database().equals(database)
                || !known.table().equals(table)) {
            ByteBuf body = Unpooled.buffer();
            writeTableMapBody(body, source, model, newTableId, database, table);
            known = new RenamedTableMap(newTableId, database, table, ByteBufUtil.getBytes(body));
            if (model != null) {
                if (renamedTableMaps.size() >= RENAMED_TABLE_MAPS) {
                    renamedTableMaps.clear();
                }
                renamedTableMaps.put(model, known);
            }
        }
        int start = begin(out, EventType.TABLE_MAP, source.header().timestamp(), source.header().flags());
        out.writeBytes(known.body());
        return end(out, start, position);
    }

    /** The body of {@link #tableMap}: the new table id and names, the source's column section. */
    private void writeTableMapBody(ByteBuf out, BinlogEvent source, TableMapEvent model, long newTableId,
                                   String database, String table) {
        byte[] db = database.getBytes(StandardCharsets.UTF_8);
        byte[] tbl = table.getBytes(StandardCharsets.UTF_8);
        if (db.length > 255 || tbl.length > 255) {
            throw new IllegalArgumentException("database or table name longer than 255 bytes: " + database + "." + table);
        }
        byte[] src = source.buffer();
        int body = source.bufferOffset() + EventHeader.LENGTH;
        int bodyEnd = source.bufferOffset() + source.length() - source.checksumLength();
        int flagsAt = body + 6;
        int dbLen = src[flagsAt + 2] & 0xFF;
        int tblLenAt = flagsAt + 2 + 1 + dbLen + 1;
        int tail = tblLenAt + 1 + (src[tblLenAt] & 0xFF) + 1;
        if (tail > bodyEnd) {
            throw new IllegalArgumentException("table map at offset " + source.offset() + " is shorter than its names");
        }
        writeTableId(out, newTableId);
        out.writeBytes(src, flagsAt, 2);
        out.writeByte(db.length);
        out.writeBytes(db);
        out.writeByte(0);
        out.writeByte(tbl.length);
        out.writeBytes(tbl);
        out.writeByte(0);
        if (model == null || !groupsDifferAcrossFlavors(model)) {
            out.writeBytes(src, tail, bodyEnd - tail);
        } else {
            // MySQL and MariaDB count YEAR and GEOMETRY columns differently in SIGNEDNESS and the charset
            // fields: write those for this binlog's flavor, copy the rest of the optional metadata as it is
            int optional = optionalMetadataStart(src, tail, model.columnCount());
            out.writeBytes(src, tail, optional - tail);
            model.optional().writeGroupedFields(out, model.columnTypes(),
                    model.metadata(), flavor.isMariaDb());
            copyFieldsExcept(out, src, optional, bodyEnd, java.util.Set.of(1, 2, 3));
        }
    }

    private static boolean groupsDifferAcrossFlavors(TableMapEvent model) {
        for (int i = 0; i < model.columnCount(); i++) {
            ColumnType t = model.realType(i);
            if (t == ColumnType.YEAR || t == ColumnType.GEOMETRY) {
                return true;
            }
        }
        return false;
    }

    /** Offset of the first optional metadata field: after column count, types, metadata block and null bitmap. */
    private static int optionalMetadataStart(byte[] src, int at, int columns) {
        int p = at + packedSize(src, at);
        p += columns;
        long metadataLength = readPacked(src, p);
        p += packedSize(src, p) + (int) metadataLength;
        return p + (columns + 7) / 8;
    }

    /** Copies the optional metadata fields in [from, end) except those of the given types. */
    private static void copyFieldsExcept(ByteBuf out, byte[] src, int from, int end, java.util.Set<Integer> skip) {
        int p = from;
        while (p < end) {
            int type = src[p] & 0xFF;
            int lengthAt = p + 1;
            long length = readPacked(src, lengthAt);
            int next = lengthAt + packedSize(src, lengthAt) + (int) length;
            if (!skip.contains(type)) {
                out.writeBytes(src, p, next - p);
            }
            p = next;
        }
    }

    private static int packedSize(byte[] b, int at) {
        int first = b[at] & 0xFF;
        return first < 251 ? 1 : first == 252 ? 3 : first == 253 ? 4 : 9;
    }

    private static long readPacked(byte[] b, int at) {
        int first = b[at] & 0xFF;
        if (first < 251) {
            return first;
        }
        int n = first == 252 ? 2 : first == 253 ? 3 : 8;
        long v = 0;
        for (int i = 0; i < n; i++) {
            v |= (b[at + 1 + i] & 0xFFL) << (8 * i);
        }
        return v;
    }

    /**
     * A rows event (WRITE/UPDATE/DELETE, v1 or v2) relayed with a new table id. Compressed and
     * partial-update events must have been expanded by the decoder first.
     */
    public int rows(ByteBuf out, long position, BinlogEvent source, long newTableId) {
        EventType type = source.type();
        int postHeader = switch (type) {
            case WRITE_ROWS_V1, UPDATE_ROWS_V1, DELETE_ROWS_V1 -> ROWS_V1_POST_HEADER;
            case WRITE_ROWS_V2, UPDATE_ROWS_V2, DELETE_ROWS_V2 -> ROWS_V2_POST_HEADER;
            default -> throw new IllegalArgumentException("not a relayable rows event: " + type + " at offset "
                    + source.offset() + " (compressed and partial events are expanded on the way in)");
        };
        byte[] src = source.buffer();
        int body = source.bufferOffset() + EventHeader.LENGTH;
        int bodyEnd = source.bufferOffset() + source.length() - source.checksumLength();
        if (bodyEnd - body < postHeader) {
            throw new IllegalArgumentException(type + " at offset " + source.offset() + " is shorter than its post-header");
        }
        int start = begin(out, type, source.header().timestamp(), source.header().flags());
        writeTableId(out, newTableId);
        out.writeBytes(src, body + 6, bodyEnd - body - 6);
        return end(out, start, position);
    }

    /** XID (16): commits the transaction. */
    public int xid(ByteBuf out, long position, long timestamp, long xid) {
        int start = begin(out, EventType.XID, timestamp, 0);
        out.writeLongLE(xid);
        return end(out, start, position);
    }

    /** ROTATE (4) at the end of a file: the next file starts at {@code nextPosition} (4). */
    public int rotate(ByteBuf out, long position, long timestamp, String nextFile, long nextPosition) {
        int start = begin(out, EventType.ROTATE, timestamp, 0);
        out.writeLongLE(nextPosition);
        out.writeBytes(nextFile.getBytes(StandardCharsets.UTF_8));
        return end(out, start, position);
    }

    /**
     * The artificial ROTATE a dump server sends first: timestamp 0, log_pos 0, telling the client which
     * file and position follow.
     */
    public int fakeRotate(ByteBuf out, String file, long position) {
        int start = begin(out, EventType.ROTATE, 0, LOG_EVENT_ARTIFICIAL_F);
        out.writeLongLE(position);
        out.writeBytes(file.getBytes(StandardCharsets.UTF_8));
        return endAt(out, start, 0);
    }

    /** HEARTBEAT (27): sent when idle; log_pos is the current end of {@code currentFile}. */
    public int heartbeat(ByteBuf out, String currentFile, long currentPosition) {
        int start = begin(out, EventType.HEARTBEAT, 0, LOG_EVENT_ARTIFICIAL_F);
        out.writeBytes(currentFile.getBytes(StandardCharsets.UTF_8));
        return endAt(out, start, currentPosition);
    }

    /** STOP (3): the server stopped; the file ends here without a rotate. */
    public int stop(ByteBuf out, long position, long timestamp) {
        int start = begin(out, EventType.STOP, timestamp, 0);
        return end(out, start, position);
    }

    private int begin(ByteBuf out, EventType type, long timestamp, int flags) {
        int start = out.writerIndex();
        out.writeIntLE((int) timestamp);
        out.writeByte(type.code());
        out.writeIntLE((int) serverId);
        out.writeIntLE(0); // event_size, patched in end()
        out.writeIntLE(0); // log_pos, patched in end()
        out.writeShortLE(flags);
        return start;
    }

    private int end(ByteBuf out, int start, long position) {
        int length = out.writerIndex() - start + FormatDescription.CHECKSUM_LENGTH;
        return endAt(out, start, position + length);
    }

    private int endAt(ByteBuf out, int start, long logPos) {
        int length = out.writerIndex() - start + FormatDescription.CHECKSUM_LENGTH;
        out.setIntLE(start + 9, length);
        out.setIntLE(start + 13, (int) logPos); // the low 32 bits, see the class comment
        crc.reset();
        // no view object per event: a fresh nioBuffer per event was a visible cost of the merge path
        EventChecksum.update(crc, out, start, length - FormatDescription.CHECKSUM_LENGTH);
        out.writeIntLE((int) crc.getValue());
        return length;
    }

    private static void requireType(BinlogEvent source, EventType expected) {
        if (source.type() != expected) {
            throw new IllegalArgumentException("expected " + expected + " but got " + source.type() + " at offset "
                    + source.offset());
        }
    }

    private static void writeTableId(ByteBuf out, long tableId) {
        if (tableId < 0 || tableId > 0xFFFF_FFFF_FFFFL) {
            throw new IllegalArgumentException("table id " + tableId + " does not fit 6 bytes");
        }
        out.writeIntLE((int) tableId);
        out.writeShortLE((int) (tableId >>> 32));
    }

    private static void writeUint56(ByteBuf out, long v) {
        out.writeIntLE((int) v);
        out.writeShortLE((int) (v >>> 32));
        out.writeByte((int) (v >>> 48));
    }

    private static void writeUuid(ByteBuf out, UUID uuid) {
        out.writeLong(uuid.getMostSignificantBits());
        out.writeLong(uuid.getLeastSignificantBits());
    }

    /** MySQL's packed integer ({@code net_store_length}). */
    static void writePacked(ByteBuf out, long v) {
        if (v < 0) {
            throw new IllegalArgumentException("negative packed integer " + v);
        } else if (v < 251) {
            out.writeByte((int) v);
        } else if (v < 1 << 16) {
            out.writeByte(252);
            out.writeShortLE((int) v);
        } else if (v < 1 << 24) {
            out.writeByte(253);
            out.writeMediumLE((int) v);
        } else {
            out.writeByte(254);
            out.writeLongLE(v);
        }
    }

    static int packedSize(long v) {
        return v < 251 ? 1 : v < 1 << 16 ? 3 : v < 1 << 24 ? 4 : 9;
    }
}
