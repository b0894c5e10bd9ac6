package io.tributary.storage.assembler;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.event.GtidEvent;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.QueryEvent;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.event.XaPrepareEvent;
import io.tributary.core.event.XaXid;
import io.tributary.core.event.rows.RowChange;
import io.tributary.core.event.rows.RowsEventDecoder;
import io.tributary.core.framing.Boundary;
import io.tributary.core.framing.TransactionFramer;
import io.tributary.core.heartbeat.HeartbeatWriter;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardEvent;
import io.tributary.core.sorter.ShardUnit;
import io.tributary.storage.buffer.BufferedTransaction;
import io.tributary.storage.buffer.TransactionBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one shard's event stream into the {@link ShardUnit}s the {@link io.tributary.core.sorter.GlobalSorter}
 * orders, buffering each transaction's events in a {@link BufferedTransaction} (the unit's payload).
 *
 * <p><b>State machine</b> (one per shard): IDLE until a GTID event (MySQL GTID / anonymous GTID, MariaDB
 * GTID) or a {@code BEGIN} opens a group; in the group, TABLE_MAP and rows events are buffered, other
 * events (BEGIN, XA START/END, annotations, ROWS_QUERY) are dropped, and the group ends at:
 * <ul>
 * <li>XID or a {@code COMMIT} query: a TRANSACTION (or a HEARTBEAT, below);</li>
 * <li>XA_PREPARE_LOG (MySQL, and MariaDB 10.5+ whose GTID carries {@code FL_PREPARED_XA}): an XA_PREPARE
 *     of its xid, or a TRANSACTION when it is {@code XA COMMIT ... ONE PHASE};</li>
 * <li>{@code XA COMMIT} inside the group its {@code XA START} opened (one phase): a TRANSACTION;
 *     {@code XA ROLLBACK} there: nothing;</li>
 * <li>the first query of a group not opened by {@code BEGIN}/{@code XA START}: {@code XA COMMIT} /
 *     {@code XA ROLLBACK} (xid from the MariaDB GTID's {@code FL_COMPLETED_XA} xid, else parsed from the
 *     statement) become XA_COMMIT / XA_ROLLBACK; any other statement is DDL, a TRANSACTION holding that
 *     one QUERY event;</li>
 * <li>a {@code ROLLBACK} query: nothing (the group is dropped).</li>
 * </ul>
 * What a query is ({@code BEGIN}, {@code COMMIT}, {@code XA END}, ...) is the reader's
 * {@link TransactionFramer}'s finding, carried with the event ({@link ShardEvent#boundary()}); a
 * {@code BEGIN}, {@code XA START}, {@code XA END}, {@code COMMIT} or {@code ROLLBACK} so found is acted on
 * without decoding the event. Queries the reader did not frame (inside a compressed transaction, MariaDB
 * compressed queries, events built without a reader) are classified by the same rules
 * ({@link TransactionFramer#statement}) from their decoded text. This group state is the assembler's own: it
 * opens a group at a table map or rows event outside one, and ends one at {@code XA COMMIT}/{@code XA ROLLBACK}
 * inside its {@code XA START}, where the reader's framing does neither.
 *
 * <p>A transaction whose table maps name {@code __cdc__.__cdc_heartbeat__} is a HEARTBEAT: its row's
 * {@code heartbeat} column is the value; it is consumed and never buffered. DDL on {@code __cdc__} is
 * dropped as well.
 *
 * <p><b>Positions.</b> A unit's {@code start} is the stream position before its first event (where a reader
 * resumes to read it again), {@code end} the position after its last; its key is the shard GTID, else
 * {@code file:offset} of its first event; its sequence is {@code file number << 40 | offset}, strictly
 * increasing along the shard's binlog. Commit time: the MySQL 8 GTID's immediate commit timestamp (µs),
 * else the header seconds of the group's last event x 10^6.
 *
 * <p>{@link #rewind} (the reader reconnected in the middle of a transaction) frees the partial group; a
 * group delivered again after a rewind to a restart position before it (the reader's restart position may lag
 * behind a unit already complete here) is recognised by its sequence and skipped.
 * A prepared branch's buffer is freed here when its {@code XA ROLLBACK} arrives (the sorter drops it).
 *
 * <p>Not thread-safe: one assembler belongs to the thread that consumes the shard's events.
 */
public final class ShardStreamAssembler implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ShardStreamAssembler.class);
    private static final byte[] MAGIC = BinlogEventDecoder.MAGIC;

    private final int shardIndex;
    private final String shard;
    private final TransactionBuffer buffer;
    private final Consumer<ShardUnit<BufferedTransaction>> out;
    private final Map<XaXid, BufferedTransaction> prepared = new HashMap<>();
    /** Decoded table maps by body bytes (see {@link #tableMap}); cleared at a new format description. */
    private final KnownTableMaps tableMaps = new KnownTableMaps();

    /** Decoding with bodies / headers only; checksums were verified by the reader. */
    private static final DecoderOptions BODIES = DecoderOptions.FULL.withVerifyChecksums(false);
    private static final DecoderOptions HEADERS = DecoderOptions.HEADERS_ONLY.withVerifyChecksums(false);

    private FormatDescription fde;
    private String sourceFile;
    private String sourceName;
    private RowsEventDecoder rowsDecoder;
    private ShardPosition before;
    private long lastSequence = Long.MIN_VALUE;

    /**
     * The group being buffered: none, opened (by a GTID event, or by the query that is its one statement), or begun
     * (by {@code BEGIN}/{@code XA START}, or by a table map or rows event that found no group open).
     */
    private enum Group { NONE, OPENED, BEGUN }

    // the open group
    private Group group = Group.NONE;
    private ShardPosition groupStart;
    private String groupFile;
    private long groupOffset;
    private String gtid;
    private Long commitMicros;
    private XaXid mariaXid;
    private boolean heartbeat;
    private long heartbeatValue;
    private final Set<Long> heartbeatTableIds = new HashSet<>();
    private BufferedTransaction txn;

    /**
     * @param shardIndex the shard's index (configuration order)
     * @param shard      the shard's name
     * @param start      where its reader starts
     * @param buffer     where transactions wait
     * @param out        receives the units, in binlog order
     */
    public ShardStreamAssembler(int shardIndex, String shard, ShardPosition start, TransactionBuffer buffer,
            Consumer<ShardUnit<BufferedTransaction>> out) {
        this.shardIndex = shardIndex;
        this.shard = Objects.requireNonNull(shard, "shard");
        this.before = Objects.requireNonNull(start, "start");
        this.buffer = Objects.requireNonNull(buffer, "buffer");
        this.out = Objects.requireNonNull(out, "out");
    }

    /** Takes the next event of the shard (and releases its bytes). */
    public void accept(ShardEvent event) {
        try {
            long offset = event.logPos() == 0 ? before.position() : event.position().position() - event.eventSize();
            if (!appendedAsSent(event, offset) && !framedAsSent(event, offset)) {
                decodeAndHandle(event, offset, event.toByteArray());
            }
            before = event.position();
        } finally {
            event.release();
        }
    }

    private void decodeAndHandle(ShardEvent event, long offset, byte[] bytes) {
        String file = before.file();
        if (event.type() == EventType.FORMAT_DESCRIPTION.code()) {
            byte[] withMagic = new byte[MAGIC.length + bytes.length];
            System.arraycopy(MAGIC, 0, withMagic, 0, MAGIC.length);
            System.arraycopy(bytes, 0, withMagic, MAGIC.length, bytes.length);
            BinlogEventDecoder d = new BinlogEventDecoder(source(file), withMagic, DecoderOptions.FULL);
            d.next();
            fde = d.formatDescription();
            rowsDecoder = new RowsEventDecoder(shard);
            tableMaps.clear();
        } else if (fde != null && event.type() == EventType.TABLE_MAP.code()) {
            handle(tableMap(file, offset, bytes), file, offset, event);
        } else if (fde != null && event.type() != EventType.ROTATE.code() && !event.artificial()) {
            BinlogEventDecoder d = BinlogEventDecoder.continuing(source(file), fde, offset, bytes, 0, bytes.length,
                    options(event.type()));
            while (d.hasNext()) {
                handle(d.next(), file, offset, event);
            }
        }
    }

    /**
     * Most events of a shard are rows events, whose body the merge path copies as bytes, and table maps the shard
     * wrote before with the same bytes: those go from the bytes the shard sent straight into the transaction's
     * buffer, with no heap copy, no decoder and no event object (a table map with the body decoded the first
     * time). An XID ends its transaction by its header alone. Only plain events qualify: not compressed, not
     * renumbered by an old format, size as the header says, outside a heartbeat transaction; anything else, a
     * malformed event included, goes through the decoder and its checks ({@link #decodeAndHandle}). Returns whether
     * the event was taken here.
     */
    private boolean appendedAsSent(ShardEvent event, long offset) {
        int typeCode = event.type();
        if (fde == null || heartbeat || event.artificial() || fde.headerLength() != EventHeader.LENGTH
                || fde.canonicalTypeCode(typeCode) != typeCode) {
            return false;
        }
        ByteBuf raw = event.bytes();
        int length = raw.readableBytes();
        int bodyLength = length - EventHeader.LENGTH - fde.checksumLength();
        if (bodyLength < 0 || length != event.eventSize()
                || raw.getUnsignedIntLE(raw.readerIndex() + EVENT_SIZE_AT) != length) {
            return false;
        }
        if (typeCode == EventType.XID.code()) {
            if (group == Group.NONE) {
                return false; // the decoder's path says so
            }
            // the commit: its header is all that is read
            end(EventType.XID, offset, raw.getUnsignedIntLE(raw.readerIndex()), ShardUnit.Kind.TRANSACTION, null, event);
            return true;
        }
        TableMapEvent body = null;
        if (typeCode == EventType.TABLE_MAP.code()) {
            body = tableMaps.find(raw, raw.readerIndex() + EventHeader.LENGTH, bodyLength);
            if (body == null || isHeartbeatTable(body)) {
                return false;
            }
        } else {
            EventType type = EventType.ofCode(typeCode);
            if (type == null || !type.isRows() || type.isMariaCompressed() || !RowsEvent.hasSixByteTableId(fde, typeCode)) {
                return false;
            }
        }
        requireOpen(before.file(), offset);
        if (txn == null) {
            txn = buffer.begin(shard, key(), fde);
        }
        txn.append(raw, offset, typeCode, fde.checksumLength(), body);
        return true;
    }

    /**
     * A query the reader's framer found to be {@code BEGIN}, {@code XA START}, {@code XA END}, {@code COMMIT} or
     * {@code ROLLBACK} ({@link ShardEvent#boundary()}): acted on by that finding and its header, with no decoder.
     * Returns whether the event was taken here.
     */
    private boolean framedAsSent(ShardEvent event, long offset) {
        Boundary kind = event.boundary();
        if (kind == null || fde == null || event.type() != EventType.QUERY.code() || event.artificial()
                || fde.headerLength() != EventHeader.LENGTH) {
            return false;
        }
        switch (kind) {
            case BEGIN, XA_START -> begin(before.file(), offset);
            case XA_END -> {
            }
            case COMMIT -> end(EventType.QUERY, offset, event.timestamp(), ShardUnit.Kind.TRANSACTION, null, event);
            case ROLLBACK -> discard();
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Where the v4 header holds the event's size. */
    private static final int EVENT_SIZE_AT = 9;

    private static boolean isHeartbeatTable(TableMapEvent m) {
        return HeartbeatWriter.DATABASE.equals(m.database()) && HeartbeatWriter.TABLE.equals(m.table());
    }

    /**
     * How to decode an event of type {@code typeCode}. The reader verified its checksum ({@link ShardEvent}), so
     * it is not computed again here. Bodies that {@link #handle} never reads are not decoded: a rows event's
     * table id is read from its post-header ({@link RowsEvent#tableIdOf}) and the writer copies the rest as
     * bytes; annotations and XIDs are dropped or read by header. Rows in a heartbeat transaction (whose row value
     * is read) and rows with a 4-byte table id (the oldest formats) are decoded.
     */
    private DecoderOptions options(int typeCode) {
        EventType type = EventType.ofCode(fde.canonicalTypeCode(typeCode));
        if (type == null) {
            return BODIES;
        }
        EventType plain = type.uncompressed();
        if (plain.isRows()) {
            return heartbeat || !RowsEvent.hasSixByteTableId(fde, plain.code()) ? BODIES : HEADERS;
        }
        return switch (plain) {
            case ANNOTATE_ROWS, ROWS_QUERY, XID -> HEADERS;
            default -> BODIES;
        };
    }

    /** The name errors give for events of {@code file}: one string per file, not one per event. */
    private String source(String file) {
        if (!file.equals(sourceFile)) {
            sourceFile = file;
            sourceName = shard + " " + file;
        }
        return sourceName;
    }

    /**
     * A TABLE_MAP event the shard has not sent with these bytes lately ({@link #appendedAsSent} takes the others):
     * decoded, and its body remembered so that the next copies share it. A shard writes the same table map before
     * every statement on the table; the shared body also lets the merger recognise a table map it has renamed
     * before.
     */
    private BinlogEvent tableMap(String file, long offset, byte[] bytes) {
        BinlogEventDecoder d = BinlogEventDecoder.continuing(source(file), fde, offset, bytes, 0, bytes.length, BODIES);
        BinlogEvent e = d.next();
        int from = fde.headerLength();
        int to = bytes.length - fde.checksumLength();
        if (from <= to && e.body() instanceof TableMapEvent m) {
            tableMaps.remember(bytes, from, to - from, m);
        }
        return e;
    }

    /**
     * The table maps seen lately, by their body bytes: direct-mapped on the body's first two bytes (the table id's
     * low bytes; a server numbers its tables one after another), compared byte for byte. A lookup allocates
     * nothing.
     */
    private static final class KnownTableMaps {
        private static final int SLOTS = 1024;
        /** Remembered bodies, on the heap (compared with {@code Arrays.equals} where the event is too). */
        private final ByteBuf[] bodies = new ByteBuf[SLOTS];
        private final TableMapEvent[] maps = new TableMapEvent[SLOTS];

        /** The decoded table map whose body is {@code raw[from, from + length)}, or null. */
        TableMapEvent find(ByteBuf raw, int from, int length) {
            if (length < 2) {
                return null;
            }
            int slot = slot(raw, from);
            ByteBuf known = bodies[slot];
            if (known == null || known.readableBytes() != length) {
                return null;
            }
            boolean same = raw.hasArray()
                    ? Arrays.equals(raw.array(), raw.arrayOffset() + from, raw.arrayOffset() + from + length, known.array(), 0,
                            length)
                    : ByteBufUtil.equals(raw, from, known, 0, length);
            return same ? maps[slot] : null;
        }

        void remember(byte[] bytes, int from, int length, TableMapEvent m) {
            if (length < 2) {
                return;
            }
            ByteBuf body = Unpooled.wrappedBuffer(Arrays.copyOfRange(bytes, from, from + length));
            int slot = slot(body, 0);
            bodies[slot] = body;
            maps[slot] = m;
        }

        private static int slot(ByteBuf body, int from) {
            return body.getUnsignedShortLE(from) & (SLOTS - 1);
        }

        void clear() {
            Arrays.fill(bodies, null);
            Arrays.fill(maps, null);
        }
    }

    /** The reader resumes at {@code restart}: drop the partial group. */
    public void rewind(ShardPosition restart) {
        if (group != Group.NONE) {
            log.info("shard {}: reader rewinds to {}; dropping the partial transaction {}", shard, restart, describe());
        }
        discard();
        before = restart;
    }

    /** Frees what is buffered and not yet handed on (the open group and prepared branches kept for rollback). */
    @Override
    public void close() {
        discard();
        prepared.clear();
    }

    private void handle(BinlogEvent e, String file, long offset, ShardEvent source) {
        EventType type = e.type();
        if (type == null) {
            return;
        }
        switch (type) {
            case GTID, GTID_TAGGED, ANONYMOUS_GTID, MARIA_GTID -> {
                if (group != Group.NONE) {
                    log.warn("shard {}: {} at {} opens a group while {} is open; dropping it", shard, type, offset, describe());
                    discard();
                }
                openGroup(file, offset);
                if (e.body() instanceof GtidEvent g) {
                    gtid = g.gtid();
                    commitMicros = g.immediateCommitTimestamp();
                } else if (e.body() instanceof MariaGtidEvent m) {
                    gtid = m.gtid();
                    if ((m.flags() & (MariaGtidEvent.FL_PREPARED_XA | MariaGtidEvent.FL_COMPLETED_XA)) != 0) {
                        mariaXid = m.xid();
                    }
                }
            }
            case QUERY, QUERY_COMPRESSED -> query(e, file, offset, source);
            case TABLE_MAP -> {
                requireOpen(file, offset);
                TableMapEvent m = e.body(TableMapEvent.class);
                if (isHeartbeatTable(m)) {
                    heartbeat = true;
                    heartbeatTableIds.add(m.tableId());
                    rowsDecoder.remember(m);
                } else {
                    append(e);
                }
            }
            case XID -> end(e, ShardUnit.Kind.TRANSACTION, null, source);
            case XA_PREPARE_LOG -> {
                XaPrepareEvent p = e.body(XaPrepareEvent.class);
                if (p.onePhase()) {
                    end(e, ShardUnit.Kind.TRANSACTION, null, source);
                } else {
                    end(e, ShardUnit.Kind.XA_PREPARE, p.xid(), source);
                }
            }
            default -> {
                if (type.isRows()) {
                    requireOpen(file, offset);
                    if (heartbeat && heartbeatTableIds.contains(RowsEvent.tableIdOf(e))) {
                        for (RowChange c : rowsDecoder.decode(e)) {
                            heartbeatValue = ((Number) c.after().get(1)).longValue();
                        }
                    } else {
                        append(e);
                    }
                }
            }
        }
    }

    private void query(BinlogEvent e, String file, long offset, ShardEvent source) {
        QueryEvent q = e.body(QueryEvent.class);
        // the reader's finding when this is the event it framed, else the same rules on the decoded text
        Boundary kind = source.boundary() != null && source.type() == EventType.QUERY.code() && e.type() == EventType.QUERY
                ? source.boundary() : TransactionFramer.statement(q.sql());
        switch (kind) {
            case BEGIN, XA_START -> {
                begin(file, offset);
                return;
            }
            case XA_END -> {
                return;
            }
            case COMMIT -> {
                end(e, ShardUnit.Kind.TRANSACTION, null, source);
                return;
            }
            case ROLLBACK -> {
                discard();
                return;
            }
            default -> {
            }
        }
        boolean xaEnd = kind == Boundary.XA_COMMIT || kind == Boundary.XA_ROLLBACK;
        if (group == Group.BEGUN && xaEnd) {
            // XA COMMIT ... ONE PHASE (or an XA ROLLBACK) closing its own XA START group
            if (kind == Boundary.XA_COMMIT) {
                end(e, ShardUnit.Kind.TRANSACTION, null, source);
            } else {
                discard();
            }
            return;
        }
        if (group == Group.BEGUN) {
            return; // a statement inside a transaction (statement-based rows): not written
        }
        if (group == Group.NONE) {
            openGroup(file, offset);
        }
        String sql = q.sql().strip();
        if (xaEnd) {
            boolean commit = kind == Boundary.XA_COMMIT;
            XaXid xid = mariaXid != null ? mariaXid : XaStatements.xid(sql, shard + " at " + file + ":" + offset);
            if (commit && XaStatements.onePhase(sql)) {
                end(e, ShardUnit.Kind.TRANSACTION, null, source);
                return;
            }
            end(e, commit ? ShardUnit.Kind.XA_COMMIT : ShardUnit.Kind.XA_ROLLBACK, xid, source);
            return;
        }
        if (HeartbeatWriter.DATABASE.equals(q.database()) || sql.contains(HeartbeatWriter.DATABASE)) {
            discard(); // our own heartbeat table's DDL
            return;
        }
        append(e);
        end(e, ShardUnit.Kind.TRANSACTION, null, source);
    }

    /** A {@code BEGIN} or {@code XA START}: opens a group unless one is open, and marks it begun. */
    private void begin(String file, long offset) {
        if (group == Group.NONE) {
            openGroup(file, offset);
        }
        group = Group.BEGUN;
    }

    private void openGroup(String file, long offset) {
        group = Group.OPENED;
        groupStart = before;
        groupFile = file;
        groupOffset = offset;
        gtid = null;
        commitMicros = null;
        mariaXid = null;
        heartbeat = false;
        heartbeatValue = 0;
        heartbeatTableIds.clear();
        txn = null;
    }

    private void append(BinlogEvent e) {
        if (txn == null) {
            txn = buffer.begin(shard, key(), fde);
        }
        txn.append(e);
    }

    private void end(BinlogEvent e, ShardUnit.Kind kind, XaXid xid, ShardEvent source) {
        end(e.type(), e.offset(), e.header().timestamp(), kind, xid, source);
    }

    /**
     * The event of {@code type} at {@code offset}, written at {@code headerSeconds} (its header's timestamp), ends
     * the open group as a unit of {@code kind}.
     */
    private void end(EventType type, long offset, long headerSeconds, ShardUnit.Kind kind, XaXid xid, ShardEvent source) {
        if (group == Group.NONE) {
            log.warn("shard {}: {} at {} ends a group that was never opened; ignored", shard, type, offset);
            return;
        }
        long micros = commitMicros != null ? commitMicros : headerSeconds * 1_000_000L;
        long sequence = (fileNumber(groupFile) << 40) | groupOffset;
        if (sequence <= lastSequence) {
            // delivered again after a reader rewind to a restart position before it: already handed on
            log.debug("shard {}: {} at {} already handed on; skipped", shard, key(), groupStart);
            discard();
            return;
        }
        lastSequence = sequence;
        ShardPosition end = source.position();
        String key = key();
        ShardUnit<BufferedTransaction> unit;
        if (heartbeat) {
            if (txn != null) {
                txn.release();
                txn = null;
            }
            if (heartbeatValue <= 0) {
                // the row the heartbeat writer creates (value 0) is not a beat
                group = Group.NONE;
                return;
            }
            unit = new ShardUnit<>(shardIndex, sequence, ShardUnit.Kind.HEARTBEAT, micros, null, heartbeatValue, key,
                    groupStart, end, null);
        } else {
            BufferedTransaction payload = null;
            if (kind == ShardUnit.Kind.TRANSACTION || kind == ShardUnit.Kind.XA_PREPARE) {
                if (txn == null) {
                    txn = buffer.begin(shard, key, fde);
                }
                txn.seal();
                payload = txn;
            }
            unit = new ShardUnit<>(shardIndex, sequence, kind, micros, xid, 0, key, groupStart, end, payload);
            if (kind == ShardUnit.Kind.XA_PREPARE) {
                prepared.put(xid, payload);
            }
        }
        txn = null;
        group = Group.NONE;
        out.accept(unit);
        if (kind == ShardUnit.Kind.XA_ROLLBACK) {
            BufferedTransaction dropped = prepared.remove(xid);
            if (dropped != null) {
                dropped.release();
            }
        } else if (kind == ShardUnit.Kind.XA_COMMIT) {
            prepared.remove(xid);
        }
    }

    private void discard() {
        if (txn != null) {
            txn.release();
        }
        txn = null;
        group = Group.NONE;
    }

    private void requireOpen(String file, long offset) {
        if (group == Group.NONE) {
            openGroup(file, offset);
            group = Group.BEGUN;
        }
    }

    private String key() {
        return gtid != null ? gtid : groupFile + ":" + groupOffset;
    }

    private String describe() {
        return key() + " from " + groupStart;
    }

    /** {@link #fileNumber}'s last answer, for the file it was asked about. */
    private String numberedFile;
    private long fileNumber;

    /** The number in a binlog file's name, as {@link #sequence} reads it; computed once per file. */
    private long fileNumber(String file) {
        if (file == null || !file.equals(numberedFile)) {
            numberedFile = file;
            fileNumber = sequence(file, 0) >>> 40;
        }
        return fileNumber;
    }

    /** {@code file number << 40 | offset}: increases along the binlog across files. */
    static long sequence(String file, long offset) {
        long number = 0;
        if (file != null) {
            int i = file.length();
            while (i > 0 && Character.isDigit(file.charAt(i - 1))) {
                i--;
            }
            if (i < file.length()) {
                number = Long.parseLong(file.substring(i));
            }
        }
        return (number << 40) | offset;
    }

    @Override
    public String toString() {
        return "ShardStreamAssembler[shard " + shard + " (" + shardIndex + ") at " + before
                + (group != Group.NONE ? ", open " + describe() : "") + ", prepared " + prepared.size() + "]";
    }
}
