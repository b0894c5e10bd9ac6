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
 * <p><b>Where transactions begin and end</b> is the reader's {@link TransactionFramer}'s finding, carried with each
 * event ({@link ShardEvent#boundary()}, {@link ShardEvent#transactionStart()}, {@link ShardEvent#transactionEnd()});
 * an event that did not come through a reader (tests, benchmarks) is framed here by a framer of the same class,
 * once. The assembler keeps no framing state of its own: it opens a buffer where the framer says a transaction
 * starts, buffers its TABLE_MAP and rows events (and the one statement of a DDL), drops the rest (BEGIN, XA START/END,
 * annotations, ROWS_QUERY, statements inside a transaction, which a row-based global binlog does not carry), and
 * where the framer says it ends, hands on a unit whose kind follows from the ending event:
 * <ul>
 * <li>XID, {@code COMMIT}, a one-phase XA_PREPARE, a compressed transaction: a TRANSACTION (or a HEARTBEAT, below);</li>
 * <li>a DDL: a TRANSACTION holding that one QUERY event;</li>
 * <li>XA_PREPARE: an XA_PREPARE of its xid;</li>
 * <li>{@code XA COMMIT} / {@code XA ROLLBACK} ending a transaction that began with {@code XA START} or holds rows
 *     (a one-phase commit): a TRANSACTION / nothing; otherwise the second phase, an XA_COMMIT / XA_ROLLBACK (xid from
 *     the MariaDB GTID's {@code FL_COMPLETED_XA} xid, else parsed from the statement; {@code ... ONE PHASE}: a
 *     TRANSACTION);</li>
 * <li>a {@code ROLLBACK} query: nothing (the buffer is dropped).</li>
 * </ul>
 * Events of a compressed transaction (MySQL TRANSACTION_PAYLOAD) are its content: their boundaries are the outer
 * event's.
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

    /** Frames events that did not come through a reader (no {@link ShardEvent#boundary()}). */
    private TransactionFramer framer = new TransactionFramer();
    /** Whether a statement inside a transaction was left out (said once per shard). */
    private boolean statementLeftOut;

    // the open group: its facts, as its events give them
    private boolean open;
    private ShardPosition groupStart;
    private String groupFile;
    private long groupOffset;
    private String gtid;
    private Long commitMicros;
    private XaXid mariaXid;
    /** The group began with {@code XA START}. */
    private boolean xaStarted;
    /** The xid of the XA_PREPARE that ends the group. */
    private XaXid preparedXid;
    /** The {@code XA COMMIT}/{@code XA ROLLBACK} statement that ends the group. */
    private String xaStatement;
    /** The group's DDL is on our own heartbeat table: dropped. */
    private boolean ownDdl;
    /** The group's MariaDB GTID carries {@code FL_DDL}: its statement is a DDL even inside the transaction. */
    private boolean ddlFlagged;
    /** The group's DDL was handed on and the rows that follow it in the same transaction come as a unit of their own. */
    private boolean afterDdl;
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
            Boundary kind = event.boundary();
            boolean opens = event.transactionStart();
            boolean ends = event.transactionEnd();
            if (kind == null) {
                kind = frame(event);
                opens = framer.opened();
                ends = framer.ended();
            }
            if (fde != null || event.type() == EventType.FORMAT_DESCRIPTION.code()) {
                take(event, offset, kind, opens, ends);
            }
            before = event.position();
        } finally {
            event.release();
        }
    }

    private void take(ShardEvent event, long offset, Boundary kind, boolean opens, boolean ends) {
        if (opens) {
            if (open) {
                log.warn("shard {}: {} at {} opens a transaction while {} is open; dropping it", shard, kind, offset,
                        describe());
                discard();
            }
            openGroup(before.file(), offset);
        }
        switch (kind) {
            case XA_START -> xaStarted = open;
            case BEGIN, XA_END, COMMIT, ROLLBACK, XID, HEARTBEAT -> {
                // the framing is all there is to them
            }
            case STATEMENT -> {
                if (ends) {
                    decodeAndHandle(event, offset, event.toByteArray(), kind, true);
                } else if (open && ddlFlagged && txn == null) {
                    ddlInsideTransaction(event, offset, kind);
                } else if (!statementLeftOut) {
                    statementLeftOut = true;
                    log.warn("shard {}: a statement inside a transaction at {}:{} is not written (the global binlog"
                            + " carries row events; set binlog_format=ROW on the shard); said once", shard,
                            before.file(), offset);
                }
            }
            default -> {
                if (!appendedAsSent(event, offset)) {
                    decodeAndHandle(event, offset, event.toByteArray(), kind, ends);
                }
            }
        }
        if (ends) {
            end(kind, offset, event);
        }
    }

    /**
     * MariaDB writes {@code CREATE TABLE ... SELECT} as one transaction: a GTID with {@code FL_DDL} (not standalone),
     * the CREATE statement, the rows, an XID. The statement is handed on as a DDL unit of its own, as every DDL is
     * (the merger writes a DDL as one QUERY event), and the rows that follow as a transaction; the reader's framing
     * (and so its GTID position and restart point) keeps the shard's one transaction whole.
     */
    private void ddlInsideTransaction(ShardEvent event, long offset, Boundary kind) {
        decodeAndHandle(event, offset, event.toByteArray(), kind, true);
        end(kind, offset, event);
        afterDdl = true;
    }

    /** Frames an event that did not come through a reader's framer. */
    private Boundary frame(ShardEvent event) {
        ByteBuf raw = event.bytes();
        int bodyEnd = raw.readableBytes() - (event.hasChecksum() ? 4 : 0);
        return framer.frame(raw, raw.readerIndex(), event.type(), bodyEnd);
    }

    private void decodeAndHandle(ShardEvent event, long offset, byte[] bytes, Boundary kind, boolean ends) {
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
            handle(tableMap(file, offset, bytes), file, offset, event, kind, ends);
        } else if (fde != null && event.type() != EventType.ROTATE.code() && !event.artificial()) {
            BinlogEventDecoder d = BinlogEventDecoder.continuing(source(file), fde, offset, bytes, 0, bytes.length,
                    options(event.type()));
            while (d.hasNext()) {
                handle(d.next(), file, offset, event, kind, ends);
            }
        }
    }

    /**
     * Most events of a shard are rows events, whose body the merge path copies as bytes, and table maps the shard
     * wrote before with the same bytes: those go from the bytes the shard sent straight into the transaction's
     * buffer, with no heap copy, no decoder and no event object (a table map with the body decoded the first
     * time). Only plain events qualify: not compressed, not
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
        if (open) {
            log.info("shard {}: reader rewinds to {}; dropping the partial transaction {}", shard, restart, describe());
        }
        discard();
        framer = new TransactionFramer();
        before = restart;
    }

    /** Frees what is buffered and not yet handed on (the open group and prepared branches kept for rollback). */
    @Override
    public void close() {
        discard();
        prepared.clear();
    }

    /** What a decoded event adds to the open group (its boundaries were acted on in {@link #take}). */
    private void handle(BinlogEvent e, String file, long offset, ShardEvent source, Boundary kind, boolean ends) {
        EventType type = e.type();
        if (type == null || !open && !type.isRows() && type != EventType.TABLE_MAP) {
            return;
        }
        boolean inner = source.type() == EventType.TRANSACTION_PAYLOAD.code();
        switch (type) {
            case GTID, GTID_TAGGED, ANONYMOUS_GTID, MARIA_GTID -> {
                if (e.body() instanceof GtidEvent g) {
                    gtid = g.gtid();
                    commitMicros = g.immediateCommitTimestamp();
                } else if (e.body() instanceof MariaGtidEvent m) {
                    gtid = m.gtid();
                    ddlFlagged = (m.flags() & MariaGtidEvent.FL_DDL) != 0 && (m.flags() & MariaGtidEvent.FL_STANDALONE) == 0;
                    if ((m.flags() & (MariaGtidEvent.FL_PREPARED_XA | MariaGtidEvent.FL_COMPLETED_XA)) != 0) {
                        mariaXid = m.xid();
                    }
                }
            }
            case QUERY, QUERY_COMPRESSED -> {
                if (!inner) {
                    query(e, kind, ends);
                }
            }
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
            case XA_PREPARE_LOG -> preparedXid = e.body(XaPrepareEvent.class).xid();
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

    /** A query that ends the group (its one statement), or an XA second phase's statement. */
    private void query(BinlogEvent e, Boundary kind, boolean ends) {
        QueryEvent q = e.body(QueryEvent.class);
        if (kind == Boundary.XA_COMMIT || kind == Boundary.XA_ROLLBACK) {
            xaStatement = q.sql().strip();
        } else if (kind == Boundary.STATEMENT && ends) {
            if (HeartbeatWriter.DATABASE.equals(q.database()) || q.sql().contains(HeartbeatWriter.DATABASE)) {
                ownDdl = true; // our own heartbeat table's DDL
            } else {
                append(e);
            }
        }
    }

    /** The event that {@code kind} says it is, at {@code offset}, ends the open group. */
    private void end(Boundary kind, long offset, ShardEvent source) {
        long seconds = source.timestamp();
        switch (kind) {
            case ROLLBACK -> discard();
            case XA_PREPARE -> end(offset, seconds, ShardUnit.Kind.XA_PREPARE, preparedXid, source);
            case XA_COMMIT, XA_ROLLBACK -> {
                boolean commit = kind == Boundary.XA_COMMIT;
                String sql = xaStatement == null ? "" : xaStatement;
                if (xaStarted || txn != null || commit && XaStatements.onePhase(sql)) {
                    // a one-phase commit (or a rollback) of the transaction it ends
                    if (commit) {
                        end(offset, seconds, ShardUnit.Kind.TRANSACTION, null, source);
                    } else {
                        discard();
                    }
                } else {
                    XaXid xid = mariaXid != null ? mariaXid : XaStatements.xid(sql, shard + " at " + before.file() + ":" + offset);
                    end(offset, seconds, commit ? ShardUnit.Kind.XA_COMMIT : ShardUnit.Kind.XA_ROLLBACK, xid, source);
                }
            }
            case STATEMENT -> {
                if (ownDdl) {
                    discard();
                } else {
                    end(offset, seconds, ShardUnit.Kind.TRANSACTION, null, source);
                }
            }
            default -> end(offset, seconds, ShardUnit.Kind.TRANSACTION, null, source);
        }
    }

    private void openGroup(String file, long offset) {
        open = true;
        groupStart = before;
        groupFile = file;
        groupOffset = offset;
        gtid = null;
        commitMicros = null;
        mariaXid = null;
        xaStarted = false;
        ddlFlagged = false;
        afterDdl = false;
        preparedXid = null;
        xaStatement = null;
        ownDdl = false;
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

    /**
     * The event at {@code offset}, written at {@code headerSeconds} (its header's timestamp), ends the open group as a
     * unit of {@code kind}.
     */
    private void end(long offset, long headerSeconds, ShardUnit.Kind kind, XaXid xid, ShardEvent source) {
        if (!open) {
            if (!afterDdl) {
                log.warn("shard {}: the event at {} ends a transaction that was never opened here; ignored", shard, offset);
            }
            afterDdl = false;
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
                open = false;
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
        open = false;
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
        open = false;
    }

    /**
     * Rows with no transaction open here: the framer opens one for rows outside a transaction, so this is a stream
     * the assembler joined in the middle of one; the rows are kept, in a transaction of their own.
     */
    private void requireOpen(String file, long offset) {
        if (!open) {
            if (!afterDdl) {
                log.warn("shard {}: rows at {}:{} with no transaction open; kept as one", shard, file, offset);
            }
            openGroup(file, offset);
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
                + (open ? ", open " + describe() : "") + ", prepared " + prepared.size() + "]";
    }
}
