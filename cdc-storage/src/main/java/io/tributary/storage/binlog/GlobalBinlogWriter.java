package io.tributary.storage.binlog;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.BinlogEventEncoder;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.GtidListEvent;
import io.tributary.core.event.PreviousGtidsEvent;
import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.transaction.DdlHistory;
import io.tributary.core.transaction.GlobalEvent;
import io.tributary.core.transaction.GlobalTransaction;
import io.tributary.storage.checkpoint.BinlogCheckpoint;
import io.tributary.storage.checkpoint.CheckpointFile;
import io.tributary.storage.schema.SchemaHistory;
import io.tributary.core.schema.LogicalSchema;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the global binlog: {@code binlog.000001, binlog.000002, ...} and {@code binlog.index} under
 * {@code binlog.dir}. Each file is the magic, a FORMAT_DESCRIPTION, PREVIOUS_GTIDS (MySQL) or GTID_LIST
 * (MariaDB) with every GTID of the earlier files, whole transactions, and a ROTATE to the next file (or,
 * after a clean stop, a STOP). As on a server, the format description's {@code LOG_EVENT_BINLOG_IN_USE_F}
 * is set while the file is written and cleared once it is closed ({@link InUseFlag}), so that only the
 * file being written (or the one a crash left) reads as in use.
 *
 * <p>Framing of one {@link GlobalTransaction} with GTID sequence number {@code n}:
 * <pre>
 * MySQL   ROWS: GTID uuid:n, QUERY BEGIN, TABLE_MAP..., rows..., XID n     DDL: GTID uuid:n, QUERY ddl
 * MariaDB ROWS: GTID d-s-n (transactional), TABLE_MAP..., rows..., XID n  DDL: GTID d-s-n (standalone, ddl), QUERY ddl
 * </pre>
 * GTID sequence numbers are one gap-free sequence under the daemon's own server UUID ({@link ServerUuid})
 * or domain/server id; they continue across files and restarts. The MySQL logical clock is serial and
 * restarts in every file ({@code last_committed = sequence_number - 1}), as a server writes it.
 *
 * <p>The MySQL GTID's {@code transaction_length} is always written in the 9-byte packed form
 * ({@code 0xfe} + 8 bytes) and patched (value and the event's CRC32) once the transaction's end is known.
 * The GTID event thus has a fixed size, every later event's {@code log_pos} is known while it is encoded,
 * and a transaction of any size is written in one pass, streamed to the file in chunks of
 * {@value #FLUSH_BYTES} bytes. Readers decode a packed integer by its first byte, so the non-minimal form
 * reads back as the same value (MySQL's {@code net_field_length_ll}, mysql-binlog-connector-java, our
 * decoder).
 *
 * <p>Rotation happens only between transactions: after a transaction that brings the file to
 * {@code binlog.file.size} or more, or on {@link #rotate()} ({@code FLUSH BINARY LOGS}). The old file
 * is fsynced before the new one is created, so a durable position in a later file implies the whole
 * earlier file is durable. A transaction larger than the room left below 4 GiB carries its file past
 * 4 GiB, as MySQL and MariaDB let it ({@code max_binlog_size} is checked after a transaction): positions
 * are 64-bit everywhere here (checkpoint, index, readers, recovery), the events' {@code log_pos} holds
 * the low 32 bits ({@link BinlogEventEncoder}), and a subscriber enters such a file by GTID, or by a
 * COM_BINLOG_DUMP position only where it is unambiguous ({@link BinlogFileReader#fourBytePositionProblem}).
 *
 * <p><b>Timestamps.</b> Nothing written depends on the daemon's clock, so that twins (two daemons with the same
 * configuration reading the same shards, started at different times) write the same bytes. A transaction's events
 * carry its commit time (the shards'); a DDL's query its shard's timestamp. Every other event the writer makes (the
 * FORMAT_DESCRIPTION and PREVIOUS_GTIDS / GTID_LIST of a file, ROTATE, STOP) carries the <em>binlog time</em>: the
 * header timestamp of the last event written before it (0 before the first transaction), which after a restart
 * {@link BinlogRecovery} reads back from the file ({@link RecoveredBinlog#lastEventTimestamp()}). The clock given
 * to {@link #open} only dates the health state and decides {@code binlog.retention.time} (which files exist, not
 * what they hold).
 *
 * <p>Durability is the {@link BinlogSyncer}'s job (see there for the order fsync, checkpoint, publish).
 * A write error (a full disk) undoes the partial write, so the file ends on an event boundary (a
 * transaction boundary unless the transaction is larger than one chunk; the unfinished transaction is
 * never published and recovery drops it), marks the binlog DOWN, and retries every
 * {@code binlog.io.retry.interval}, blocking the caller (the merger) meanwhile. Writing resumes by
 * itself once there is space again.
 *
 * <p><b>Held transactions.</b> {@link #append(GlobalTransaction, boolean)} with {@code more} keeps the encoded
 * transaction in the write buffer until {@value #FLUSH_BYTES} bytes wait, the caller has no more, or the file
 * is full: one {@code write(2)} for many small transactions instead of one each (each of which also left a
 * partly written page for the kernel to fill). The syncer learns of held transactions only once they are in
 * the file, so nothing held is ever fsynced, checkpointed or published.
 *
 * <p><b>Feeds.</b> Each {@link BinlogFeed} ({@link #addFeed}: the shared tail cache) is handed the bytes of every
 * write as it succeeds, from the write buffer itself, and the later patch of a GTID or the undoing of a failed
 * transaction; the syncer's {@link DurabilityTracker} tells it which of them are durable. Without a feed this costs
 * nothing.
 *
 * <p>Threading: {@link #append}, {@link #rotate}, {@link #purge} and {@link #close} are synchronized;
 * one thread (the merger's output stage) appends, an admin thread may rotate or purge. Subscribers use
 * {@link #durability()} and {@link #index()} from any thread.
 */
public final class GlobalBinlogWriter implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(GlobalBinlogWriter.class);

    /** The write buffer is handed to the file once it holds this much, mid-transaction if need be. */
    static final int FLUSH_BYTES = 1 << 20;
    /** Any value of 2^24 or more is written in the 9-byte packed form. */
    private static final long LENGTH_PLACEHOLDER = 1L << 24;
    static final int MYSQL_GTID_EVENT_SIZE = BinlogEventEncoder.gtidEventSize(LENGTH_PLACEHOLDER);
    /** Offset in the GTID event of the 8 bytes after the packed-length marker 0xfe. */
    private static final int LENGTH_VALUE_OFFSET = 19 + 1 + 16 + 8 + 1 + 8 + 8 + 7 + 1;
    private static final long THREAD_ID = 1;
    private static final byte[] STATUS_VARIABLES = BinlogEventEncoder.standardStatusVariables(0, 45, 45, 45);

    private final BinlogConfig config;
    private final Path dir;
    private final Clock clock;
    private final BinlogEventEncoder encoder;
    private final UUID serverUuid;
    private final BinlogIndex index;
    private final WrittenState written;
    private final DurabilityTracker tracker;
    private final BinlogHealthState health;
    private final BinlogSyncer syncer;
    private final Thread syncerThread;
    private final BinlogPurger purger;
    private final VerifiedChecksums verifiedChecksums = new VerifiedChecksums();
    private SchemaHistory schemaHistory;
    /** Direct: a heap buffer would be copied into a direct one on every channel write. */
    private final ByteBuf buf = Unpooled.directBuffer(FLUSH_BYTES + (64 << 10));
    private final byte[] gtidCopy = new byte[MYSQL_GTID_EVENT_SIZE];
    private final CRC32 crc = new CRC32();

    private volatile RotationObserver rotationObserver = (from, to, step) -> { };
    /** Told of every byte handed to the files (copy on write: read without a lock on every flush). */
    private volatile BinlogFeed[] feeds = new BinlogFeed[0];
    private final Object feedsLock = new Object();

    private BinlogSegment segment;
    private long filePreviousSequence;
    private long lastSequence;
    /** Binlog time: the header timestamp of the last event written (see "Timestamps"). */
    private long lastTimestamp;
    /**
     * The binlog time of events the writer makes before any transaction (the first file's header): 1, not 0, for a
     * header timestamp of 0 marks the fake events a server sends at the start of a dump, and mariadb-binlog takes a
     * GTID_LIST so marked for one (its GTID-state check then fails at the next file: "Binary logs are missing data
     * for domain 0"); the same for every twin.
     */
    static final long FIRST_BINLOG_TIME = 1;
    private boolean closed;
    /** Events of the transaction being encoded (GTID, BEGIN, table maps, rows, XID / the query). */
    private int txnEvents;
    private int txnRowsEvents;
    private volatile WriteCounters counters = WriteCounters.ZERO;
    /** Complete transactions in {@link #buf}, not yet in the file, and what the syncer learns once they are. */
    private int heldTransactions;
    private long heldEnd;
    private long heldSequence;
    private final Map<String, ShardCheckpoint> heldCheckpoints = new LinkedHashMap<>();
    private DdlHistory heldDdl;

    private GlobalBinlogWriter(BinlogConfig config, Clock clock, UUID serverUuid, BinlogIndex index, BinlogSegment segment,
            BinlogCheckpoint checkpoint, long lastTimestamp) {
        this.config = config;
        this.dir = config.dir();
        this.clock = clock;
        this.encoder = new BinlogEventEncoder(config.flavor(), config.serverId());
        this.serverUuid = serverUuid;
        this.index = index;
        this.segment = segment;
        this.filePreviousSequence = index.last().previousSequence();
        this.lastSequence = checkpoint.lastSequence();
        this.lastTimestamp = Math.max(FIRST_BINLOG_TIME, lastTimestamp);
        this.written = new WrittenState(segment, checkpoint.position(), checkpoint.lastSequence(), checkpoint.shards(),
                checkpoint.ddl());
        this.tracker = new DurabilityTracker(new DurableMark(new BinlogPosition(checkpoint.file(), checkpoint.position()),
                checkpoint.lastSequence()));
        this.health = new BinlogHealthState(clock);
        boolean fsync = config.sync() != SyncPolicy.NONE;
        this.syncer = new BinlogSyncer(written, new CheckpointFile(dir.resolve(BinlogFiles.CHECKPOINT_FILE), fsync),
                tracker, health, config);
        this.purger = new BinlogPurger(config, index);
        this.syncerThread = new Thread(syncer, "binlog-syncer");
        this.syncerThread.setDaemon(true);
    }

    /**
     * Opens the writer on what {@link BinlogRecovery} left: appends to its last file at the checkpoint, or
     * creates {@code binlog.000001} in a fresh directory.
     */
    public static GlobalBinlogWriter open(BinlogConfig config, RecoveredBinlog recovered, Clock clock) throws IOException {
        Path dir = config.dir();
        Files.createDirectories(dir);
        UUID uuid = ServerUuid.loadOrCreate(dir, recovered.isFresh(), config.serverUuid(),
                BinlogConfig.derivedServerUuid(config.serverId()));
        boolean fsync = config.sync() != SyncPolicy.NONE;
        GlobalBinlogWriter w;
        if (recovered.isFresh()) {
            String name = BinlogFiles.fileName(1);
            BinlogSegment seg = BinlogSegment.create(dir.resolve(name));
            BinlogEventEncoder enc = new BinlogEventEncoder(config.flavor(), config.serverId());
            seg.write(fileHeader(enc, config, uuid, 0, FIRST_BINLOG_TIME)); // no binlog time yet: nothing written before it
            seg.force();
            BinlogIndex.write(dir, List.of(name), true);
            BinlogCheckpoint first = new BinlogCheckpoint(name, seg.size(), 0, Map.of());
            new CheckpointFile(dir.resolve(BinlogFiles.CHECKPOINT_FILE), true).write(first);
            BinlogIndex index = new BinlogIndex(dir, fsync, List.of(new BinlogIndex.Entry(name, 0)));
            w = new GlobalBinlogWriter(config, clock, uuid, index, seg, first, 0);
            log.info("created {} in {} ({}, server uuid {})", name, dir, config.flavor(), uuid);
        } else {
            BinlogCheckpoint cp = recovered.checkpoint().orElseThrow();
            BinlogIndex index = new BinlogIndex(dir, fsync, recovered.files());
            BinlogSegment seg = BinlogSegment.openAt(dir.resolve(cp.file()), cp.position());
            // in use again: a crash from here on must read as one (recovery cleared the flag of a clean stop)
            seg.inUse(true);
            if (fsync) {
                seg.force();
            }
            w = new GlobalBinlogWriter(config, clock, uuid, index, seg, cp, recovered.lastEventTimestamp());
            log.info("appending to {} at {} after GTID sequence {}", cp.file(), cp.position(), cp.lastSequence());
        }
        long durable = recovered.isFresh() ? 0 : recovered.checkpoint().orElseThrow().lastSequence();
        w.schemaHistory = SchemaHistory.open(dir.resolve(BinlogFiles.SCHEMA_HISTORY_FILE), config.flavor(), durable,
                recovered.isFresh(), fsync);
        w.schemaHistory.actions().forEach(a -> log.info("recovery: {}", a));
        w.syncerThread.start();
        return w;
    }

    public UUID serverUuid() {
        return serverUuid;
    }

    public BinlogFlavor flavor() {
        return config.flavor();
    }

    public BinlogConfig config() {
        return config;
    }

    /** The durable end; subscribers never read past it. */
    public DurabilityTracker durability() {
        return tracker;
    }

    public BinlogIndex index() {
        return index;
    }

    /** UP, or DOWN with what failed (a full disk). */
    public BinlogHealth health() {
        return health.current();
    }

    /** GTID sequence number of the last transaction written (not necessarily durable yet). */
    public synchronized long lastSequence() {
        return lastSequence;
    }

    /**
     * The DDL deduplication's memory as of the last transaction written (after {@link #open}: as of the recovered
     * checkpoint), for the merger that continues the output.
     */
    public DdlHistory ddlHistory() {
        return written.ddl();
    }

    /** The logical schema's history: every version from the last durable checkpoint on. */
    public SchemaHistory schemaHistory() {
        return schemaHistory;
    }

    /**
     * The logical schema as of the durable end: what subscribers may be told (a DDL written but not yet durable
     * could still be taken back by a crash).
     */
    public LogicalSchema durableSchema() {
        return schemaHistory.durableAt(tracker.current().lastSequence());
    }

    /**
     * Stores the schema the daemon built from the shards, as of the last transaction written: done once, at the first
     * start, before the merger runs.
     */
    public synchronized void seedSchema(LogicalSchema schema) throws IOException {
        ensureOpen();
        flushHeld();
        schemaHistory.snapshot(lastSequence, segment.name(), segment.size(), schema);
    }

    /** The written end (not necessarily durable yet): where the file ends, held transactions not counted. */
    public synchronized BinlogPosition writtenPosition() {
        return new BinlogPosition(segment.name(), segment.size());
    }

    /**
     * Writes one transaction and returns its GTID sequence number. It becomes durable, and visible to
     * subscribers, when the syncer has fsynced it and stored its checkpoints.
     *
     * <p>Blocks while the disk refuses writes, retrying. If the transaction's events fail (a bad event,
     * the spill store), nothing of it stays in the file and the sequence number is not used.
     */
    public synchronized long append(GlobalTransaction txn) throws IOException {
        return append(txn, false);
    }

    /**
     * As {@link #append(GlobalTransaction)}; with {@code more}, the caller has further transactions to append
     * at once, so this one may be held in the write buffer (see the class comment) until a later append without
     * {@code more}, or {@link #flushHeld()}.
     */
    public synchronized long append(GlobalTransaction txn, boolean more) throws IOException {
        ensureOpen();
        long start = position();
        int bufStart = buf.writerIndex();
        long fileBefore = segment.size();
        long sequence = lastSequence + 1;
        long endTimestamp;
        try {
            endTimestamp = writeTransaction(txn, sequence, bufStart);
            if (txn.schemaChange() != null) {
                // before the checkpoint covering this transaction: recovery cuts the history back to the checkpoint
                schemaHistory.append(sequence, segment.name(), position(), txn.schemaChange());
            }
        } catch (RuntimeException | IOException e) {
            if (segment.size() != fileBefore) {
                // a flush mid-transaction wrote the held transactions (already passed on) and part of this one
                buf.clear();
                segment.truncate(start);
                for (BinlogFeed f : feeds) {
                    f.truncated(segment.name(), start);
                }
            } else {
                buf.writerIndex(bufStart);
            }
            throw e;
        }
        lastSequence = sequence;
        lastTimestamp = Math.max(FIRST_BINLOG_TIME, endTimestamp);
        WriteCounters c = counters;
        counters = new WriteCounters(c.transactions() + 1, c.events() + txnEvents, c.rowsEvents() + txnRowsEvents,
                c.bytes() + position() - start, c.filesCreated());
        heldTransactions++;
        heldEnd = position();
        heldSequence = sequence;
        for (ShardCheckpoint cp : txn.checkpoints()) {
            heldCheckpoints.remove(cp.shard()); // in the order they last moved, as the syncer's map keeps them
            heldCheckpoints.put(cp.shard(), cp);
        }
        if (txn.ddlHistory() != null) {
            heldDdl = txn.ddlHistory();
        }
        if (!more || buf.readableBytes() >= FLUSH_BYTES || position() >= config.fileSizeBytes()) {
            flushHeld();
        }
        if (segment.size() >= config.fileSizeBytes()) {
            rotateFile();
        }
        return sequence;
    }

    /** Writes the held transactions to the file, for the syncer to make durable. */
    public synchronized void flushHeld() throws IOException {
        if (buf.readableBytes() > 0) {
            flush();
        }
    }

    /** Tells the syncer of the held transactions once the file holds them (by {@link #flush}). */
    private void passOnHeld() {
        if (heldTransactions == 0) {
            return;
        }
        written.advance(segment, heldEnd, heldSequence, heldCheckpoints.values(), heldDdl);
        heldTransactions = 0;
        heldCheckpoints.clear();
        heldDdl = null;
    }

    /** Closes the current file with a ROTATE and starts the next one ({@code FLUSH BINARY LOGS}). */
    public synchronized void rotate() throws IOException {
        ensureOpen();
        flushHeld();
        rotateFile();
    }

    /** The steps of a rotation, in order, as reported to a {@link RotationObserver}. */
    public enum RotationStep {
        /** The old file ends with its ROTATE, its in-use flag is cleared and it is fsynced; the next file does not exist yet. */
        OLD_FILE_CLOSED,
        /** The next file exists with its header but is not yet in {@code binlog.index}. */
        NEXT_FILE_CREATED,
        /** The next file is in {@code binlog.index}; appends go to it from now on. */
        INDEXED
    }

    /** Told each step of a rotation, on the writing thread, while the writer's lock is held (metrics, tests). */
    @FunctionalInterface
    public interface RotationObserver {
        void rotating(String from, String to, RotationStep step);
    }

    /**
     * Starts handing {@code feed} what this writer writes, from the end of what the files hold now (told to it by
     * {@link BinlogFeed#attached}, under this writer's lock, so that nothing written is missed or told twice).
     */
    public synchronized void addFeed(BinlogFeed feed) {
        Objects.requireNonNull(feed, "feed");
        feed.attached(writtenPosition());
        synchronized (feedsLock) {
            BinlogFeed[] now = Arrays.copyOf(feeds, feeds.length + 1);
            now[now.length - 1] = feed;
            feeds = now;
        }
    }

    /** Stops handing {@code feed} anything; does not wait for a write under way (a feed ignores calls once closed). */
    public void removeFeed(BinlogFeed feed) {
        synchronized (feedsLock) {
            feeds = Arrays.stream(feeds).filter(f -> f != feed).toArray(BinlogFeed[]::new);
        }
    }

    /** Replaces the rotation observer (default: none). */
    public void rotationObserver(RotationObserver observer) {
        this.rotationObserver = java.util.Objects.requireNonNull(observer, "observer");
    }

    /** Deletes the oldest files beyond {@code binlog.retention.size} / {@code .time}; never the current one. */
    public synchronized List<String> purge() throws IOException {
        ensureOpen();
        List<String> purged = purger.purge(clock.instant(), purgeBound());
        verifiedChecksums.forget(purged);
        return purged;
    }

    /** How far each file's checksums were checked by the subscribers' readers (shared by them). */
    VerifiedChecksums verifiedChecksums() {
        return verifiedChecksums;
    }

    /** Files numbered below this may be purged: neither the current file nor the one the durable mark is in. */
    private long purgeBound() {
        return Math.min(BinlogFiles.requireFileNumber(segment.name()), tracker.current().position().fileNumber());
    }

    /** What this writer has appended since it opened: transactions, events, bytes, files. */
    public WriteCounters counters() {
        return counters;
    }

    /**
     * Encodes the transaction into {@link #buf} from {@code bufStart} on (held transactions before it); returns the
     * header timestamp of its last event.
     */
    private long writeTransaction(GlobalTransaction txn, long sequence, int bufStart) throws IOException {
        int rowsEvents = 0;
        int tableMaps = 0;
        long commitMicros = txn.commitTimeMicros();
        long ts = commitMicros / 1_000_000;
        long gtidAt = position();
        long seqInFile = sequence - filePreviousSequence;
        boolean mysql = !config.flavor().isMariaDb();
        boolean rowsKind = txn.kind() == GlobalTransaction.Kind.ROWS;
        long lastTs;
        if (mysql) {
            encoder.gtid(buf, gtidAt, ts, serverUuid, sequence, seqInFile - 1, seqInFile, commitMicros, LENGTH_PLACEHOLDER);
            buf.getBytes(bufStart, gtidCopy);
        } else {
            encoder.mariaGtid(buf, gtidAt, ts, config.domainId(), sequence, rowsKind
                    ? BinlogEventEncoder.MARIA_FL_TRANSACTIONAL
                    : BinlogEventEncoder.MARIA_FL_STANDALONE | BinlogEventEncoder.MARIA_FL_DDL);
        }
        boolean gtidInBuffer = true;
        Iterator<GlobalEvent> events = txn.events();
        if (rowsKind) {
            if (mysql) {
                encoder.query(buf, position(), ts, THREAD_ID, 0, "", "BEGIN", STATUS_VARIABLES);
            }
            while (events.hasNext()) {
                GlobalEvent e = events.next();
                if (e instanceof GlobalEvent.TableMap m) {
                    encoder.tableMap(buf, position(), m.source(), m.tableId(), m.database(), m.table());
                    tableMaps++;
                } else if (e instanceof GlobalEvent.Rows r) {
                    encoder.rows(buf, position(), r.source(), r.tableId());
                    rowsEvents++;
                } else {
                    throw new IllegalArgumentException("a ROWS transaction holds a query event (" + txn.provenance() + ")");
                }
                if (buf.readableBytes() >= FLUSH_BYTES) {
                    flush();
                    gtidInBuffer = false;
                }
            }
            encoder.xid(buf, position(), ts, sequence);
            txnEvents = (mysql ? 3 : 2) + tableMaps + rowsEvents;
            txnRowsEvents = rowsEvents;
            lastTs = ts;
        } else {
            if (!events.hasNext() || !(events.next() instanceof GlobalEvent.Query q) || events.hasNext()) {
                throw new IllegalArgumentException("a DDL transaction must hold exactly one query event ("
                        + txn.provenance() + ")");
            }
            encoder.query(buf, position(), q.timestamp(), THREAD_ID, 0, q.database(), q.sql(), STATUS_VARIABLES);
            txnEvents = 2;
            txnRowsEvents = 0;
            lastTs = q.timestamp();
        }
        if (mysql) {
            patchTransactionLength(position() - gtidAt, gtidInBuffer, gtidAt, bufStart);
        }
        return lastTs;
    }

    /** Offset in the file where the next encoded byte lands. */
    private long position() {
        return segment.size() + buf.readableBytes();
    }

    private void patchTransactionLength(long length, boolean gtidInBuffer, long gtidAt, int bufStart) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(gtidCopy).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putLong(LENGTH_VALUE_OFFSET, length);
        crc.reset();
        crc.update(gtidCopy, 0, gtidCopy.length - 4);
        b.putInt(gtidCopy.length - 4, (int) crc.getValue());
        if (gtidInBuffer) {
            buf.setBytes(bufStart, gtidCopy);
        } else {
            segment.overwrite(ByteBuffer.wrap(gtidCopy), gtidAt);
            for (BinlogFeed f : feeds) {
                f.overwritten(segment.name(), gtidAt, ByteBuffer.wrap(gtidCopy));
            }
        }
    }

    /**
     * Hands the buffer to the file, retrying while the disk refuses (DOWN meanwhile), then to the feeds, then passes
     * the held transactions it completed on to the syncer (so that a feed has the bytes before they can be durable).
     */
    private void flush() throws IOException {
        ByteBuffer bytes = buf.nioBuffer();
        long at = segment.size();
        retrying("write " + bytes.remaining() + " bytes to " + segment.name() + " at " + at, () -> {
            bytes.rewind();
            segment.write(bytes);
        });
        for (BinlogFeed f : feeds) {
            f.appended(segment.name(), at, bytes.duplicate().rewind());
        }
        buf.clear();
        passOnHeld();
    }

    private void rotateFile() throws IOException {
        BinlogSegment old = segment;
        String nextName = BinlogFiles.fileName(BinlogFiles.requireFileNumber(old.name()) + 1);
        long now = lastTimestamp; // binlog time, not the clock: twins rotate with the same bytes
        buf.clear();
        encoder.rotate(buf, old.size(), now, nextName, BinlogFiles.FIRST_EVENT);
        flush();
        // closed cleanly: what mysqlbinlog expects of every file but the last (no "in use" warning)
        retrying("clear the in-use flag of " + old.name(), () -> old.inUse(false));
        if (config.sync() != SyncPolicy.NONE) {
            retrying("fsync " + old.name(), old::force);
        }
        rotationObserver.rotating(old.name(), nextName, RotationStep.OLD_FILE_CLOSED);
        Path next = dir.resolve(nextName);
        BinlogSegment[] created = new BinlogSegment[1];
        ByteBuffer header = fileHeader(encoder, config, serverUuid, lastSequence, now);
        retrying("create " + nextName, () -> {
            Files.deleteIfExists(next); // left by an earlier failed attempt, never published
            BinlogSegment s = BinlogSegment.create(next);
            try {
                s.write(header.duplicate());
            } catch (IOException e) {
                s.close();
                throw e;
            }
            created[0] = s;
        });
        rotationObserver.rotating(old.name(), nextName, RotationStep.NEXT_FILE_CREATED);
        retrying("add " + nextName + " to " + BinlogFiles.INDEX_FILE, () -> {
            index.append(new BinlogIndex.Entry(nextName, lastSequence));
            if (config.sync() != SyncPolicy.NONE) {
                CheckpointFile.syncDirectory(dir);
            }
        });
        segment = created[0];
        for (BinlogFeed f : feeds) { // the events after the magic, before the syncer can make them durable
            f.appended(nextName, BinlogFiles.FIRST_EVENT, header.duplicate().position((int) BinlogFiles.FIRST_EVENT));
        }
        filePreviousSequence = lastSequence;
        WriteCounters c = counters;
        counters = new WriteCounters(c.transactions(), c.events(), c.rowsEvents(), c.bytes(), c.filesCreated() + 1);
        written.advance(segment, segment.size(), lastSequence, List.of(), null);
        old.close();
        rotationObserver.rotating(old.name(), nextName, RotationStep.INDEXED);
        log.info("rotated {} ({} bytes) to {} after GTID sequence {}", old.name(), old.size(), nextName, lastSequence);
        verifiedChecksums.forget(purger.purge(clock.instant(), purgeBound()));
    }

    /**
     * Magic, format description (with the in-use flag set: the file is being written) and previous GTIDs
     * (every GTID up to {@code lastSequence}).
     */
    static ByteBuffer fileHeader(BinlogEventEncoder enc, BinlogConfig config, UUID uuid, long lastSequence, long timestamp) {
        ByteBuf b = Unpooled.buffer(256);
        b.writeBytes(BinlogEventDecoder.MAGIC);
        enc.formatDescription(b, timestamp);
        if (config.flavor().isMariaDb()) {
            enc.gtidList(b, b.writerIndex(), timestamp, lastSequence == 0 ? List.of()
                    : List.of(new GtidListEvent.MariaGtid(config.domainId(), config.serverId(), lastSequence)));
        } else {
            enc.previousGtids(b, b.writerIndex(), timestamp, lastSequence == 0 ? List.of()
                    : List.of(new PreviousGtidsEvent.SidIntervals(uuid, null,
                            List.of(new PreviousGtidsEvent.Interval(1, lastSequence + 1)))));
        }
        try {
            byte[] bytes = io.netty.buffer.ByteBufUtil.getBytes(b);
            bytes[(int) InUseFlag.OFFSET] |= io.tributary.core.event.EventHeader.LOG_EVENT_BINLOG_IN_USE_F;
            return ByteBuffer.wrap(bytes);
        } finally {
            b.release();
        }
    }

    /** An IO step the writer retries until it succeeds or the writer closes. */
    private interface IoStep {
        void run() throws IOException;
    }

    private void retrying(String what, IoStep step) throws IOException {
        while (true) {
            try {
                step.run();
                health.up(BinlogHealthState.Part.WRITE);
                return;
            } catch (IOException e) {
                health.down(BinlogHealthState.Part.WRITE, "cannot " + what + " in " + dir + ": " + e);
                if (closed) {
                    throw e;
                }
                try {
                    wait(config.ioRetryInterval().toMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while waiting to retry: " + what);
                }
                if (closed) {
                    throw e;
                }
            }
        }
    }

    /** The clean end of the last file: STOP, in-use flag cleared, forced. A failure leaves it to recovery. */
    private void writeStop() {
        long at = segment.size();
        try {
            buf.clear();
            encoder.stop(buf, at, lastTimestamp); // binlog time: a twin stopped here writes the same STOP
            segment.write(buf.nioBuffer());
            segment.inUse(false);
            if (config.sync() != SyncPolicy.NONE) {
                segment.force();
            }
            log.info("stopped {} cleanly: STOP at {}, in-use flag cleared", segment.name(), at);
        } catch (IOException e) {
            log.warn("could not close {} cleanly (STOP at {}): {}; the next start recovers it as after a crash",
                    segment.name(), at, e.toString());
        } finally {
            buf.clear();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("global binlog writer for " + dir + " is closed");
        }
    }

    /**
     * Makes everything written durable (a last syncer cycle), stops the syncer and closes the file the
     * way a server shuts down: a STOP event at the end of the last file and its in-use flag cleared (then
     * fsynced, unless {@code binlog.sync=none}). The STOP lies after the checkpoint and is never published;
     * the next start's {@link BinlogRecovery} removes it and appends there, so subscribers continue at
     * the same file and position. When something is not durable (a failed disk), the file is left as a
     * crash leaves it: in use, for recovery to cut back to the checkpoint.
     */
    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (closed) {
                return;
            }
            try {
                flushHeld(); // held transactions become durable with the rest
            } catch (IOException e) {
                log.warn("closing: could not write the held transactions ({} bytes): {}; they are read again after"
                        + " the restart", buf.readableBytes(), e.toString());
                buf.clear();
                heldTransactions = 0;
                heldCheckpoints.clear();
            }
            closed = true;
            notifyAll();
        }
        written.close();
        try {
            syncerThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        tracker.wakeAll();
        if (syncer.fatal() != null || !tracker.current().position().equals(writtenPosition())) {
            log.warn("closing with {} not durable (durable end {}, health {})", writtenPosition(), tracker.current(),
                    health.current());
        }
        synchronized (this) {
            try {
                if (syncer.fatal() == null && tracker.current().position().equals(writtenPosition())) {
                    writeStop();
                }
            } finally {
                segment.close();
                buf.release();
            }
        }
        log.info("closed global binlog at {}", tracker.current());
    }
}
