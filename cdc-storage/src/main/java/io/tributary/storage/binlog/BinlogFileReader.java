package io.tributary.storage.binlog;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.position.MariaDbGtidPosition;
import io.tributary.core.position.MySqlGtidSet;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * Tails the global binlog for one subscriber: events in file order from a file/position or from a GTID
 * set, following ROTATE events into the next file, and never past the durable mark (invariant 6). When
 * it has caught up it blocks on the writer's {@link DurabilityTracker} until the mark moves; it does not
 * poll the disk.
 *
 * <p>Starting from a GTID set, the start file is found in the {@link BinlogIndex} (the newest file whose
 * previous GTIDs the subscriber already has; no file is scanned for it), and the transactions of that
 * file the subscriber already has are skipped. File headers (format description, previous GTIDs) and
 * rotates are always returned.
 *
 * <p>Returned events stay valid after later calls (their buffers are never reused). Not thread-safe: one
 * reader per subscriber.
 */
public final class BinlogFileReader implements Closeable {

    private static final long FOUR_GIB = 1L << 32;

    /** Which transactions the subscriber already has. */
    private interface Executed {
        boolean contains(long sequence);
    }

    private final Path dir;
    private final BinlogIndex index;
    private final DurabilityTracker tracker;
    private final UUID serverUuid;
    private final Executed executed;
    /** The checks this reader shares with the others; null with {@link ChecksumPolicy#EVERY_READ}. */
    private final VerifiedChecksums sharedChecks;
    private BinlogEventScanner scanner;
    /** {@link BinlogEventScanner#readNanos()} of the files this reader left. */
    private long readNanosBefore;
    private long fileNumber;
    private BinlogEvent formatDescription;
    private String pendingRotate;
    private boolean skipping;

    private BinlogFileReader(GlobalBinlogWriter writer, Executed executed, ChecksumPolicy checks) {
        this.dir = writer.config().dir();
        this.sharedChecks = java.util.Objects.requireNonNull(checks, "checks") == ChecksumPolicy.FIRST_READ
                ? writer.verifiedChecksums() : null;
        this.index = writer.index();
        this.tracker = writer.durability();
        this.serverUuid = writer.serverUuid();
        this.executed = executed;
    }

    /**
     * A reader at {@code start}. Position 4 starts with the file's format description; a later position
     * must be an event boundary (as a replica's file/position is).
     */
    public static BinlogFileReader at(GlobalBinlogWriter writer, BinlogPosition start) throws IOException {
        return at(writer, start, ChecksumPolicy.FIRST_READ);
    }

    /**
     * A reader at {@code start} whose {@link #nextEvents} checks the events' checksums as {@code checks} says ({@link
     * #next} checks every event it decodes).
     */
    public static BinlogFileReader at(GlobalBinlogWriter writer, BinlogPosition start, ChecksumPolicy checks)
            throws IOException {
        BinlogFileReader r = new BinlogFileReader(writer, s -> false, checks);
        if (writer.index().find(start.file()).isEmpty()) {
            throw new NoSuchFileException(start.file(), null, "not in " + BinlogFiles.INDEX_FILE + " (purged or never written)");
        }
        r.open(start.file());
        if (start.position() > BinlogFiles.FIRST_EVENT) {
            r.formatDescription = r.readHeaderEvent();
            r.scanner.seek(start.position());
        }
        return r;
    }

    /**
     * Why a subscriber cannot start at {@code start} given as COM_BINLOG_DUMP's 4-byte position, or empty when
     * it can. A file that one transaction carried past 4 GiB holds events whose offsets the command cannot
     * express (their {@code log_pos} is the offset modulo 2<sup>32</sup>, as on a server), so a position
     * {@code p} there may mean {@code p} or {@code p + 4 GiB}; such a start is refused and the subscriber is told
     * to resume by GTID. Position 4, the file's start, is never refused.
     */
    public static Optional<String> fourBytePositionProblem(GlobalBinlogWriter writer, BinlogPosition start)
            throws IOException {
        long size = Files.size(writer.config().dir().resolve(start.file()));
        long alias = start.position() + FOUR_GIB;
        if (start.position() <= BinlogFiles.FIRST_EVENT || alias > size) {
            return Optional.empty();
        }
        return Optional.of("position " + start.position() + " in " + start.file() + " is ambiguous: the file is "
                + size + " bytes, past 4 GiB (one transaction carried it over), so COM_BINLOG_DUMP's 4-byte position may"
                + " mean " + start.position() + " or " + alias + "; resume by GTID instead (MySQL: COM_BINLOG_DUMP_GTID,"
                + " SOURCE_AUTO_POSITION=1; MariaDB: @slave_connect_state, MASTER_USE_GTID=slave_pos)");
    }

    /**
     * A reader that starts after the transactions in {@code gtidSet}: MySQL text form
     * ({@code uuid:1-42}) for the MySQL flavor, a MariaDB GTID position ({@code 0-1-42}) for MariaDB.
     *
     * @throws NoSuchFileException when the transactions the subscriber lacks were purged
     */
    public static BinlogFileReader fromGtids(GlobalBinlogWriter writer, String gtidSet) throws IOException {
        return fromGtids(writer, gtidSet, ChecksumPolicy.FIRST_READ);
    }

    /** A reader after the transactions in {@code gtidSet} that checks checksums as {@code checks} says. */
    public static BinlogFileReader fromGtids(GlobalBinlogWriter writer, String gtidSet, ChecksumPolicy checks)
            throws IOException {
        Executed executed;
        long upTo;
        if (writer.flavor().isMariaDb()) {
            MariaDbGtidPosition.parse(gtidSet); // validates the text
            long seq = 0;
            for (String part : gtidSet.isBlank() ? new String[0] : gtidSet.split(",")) {
                String[] f = part.strip().split("-");
                if (Long.parseLong(f[0]) == writer.config().domainId()) {
                    seq = Long.parseLong(f[2]);
                }
            }
            long have = seq;
            executed = s -> s <= have;
            upTo = seq;
        } else {
            MySqlGtidSet set = MySqlGtidSet.parse(gtidSet);
            UUID uuid = writer.serverUuid();
            executed = s -> set.contains(uuid, s);
            upTo = set.gaplessEnd(uuid);
        }
        BinlogIndex.Entry start = writer.index().startFor(upTo).orElseThrow(() -> new NoSuchFileException(
                writer.index().entries().get(0).file(), null, "the subscriber's GTID set [" + gtidSet
                        + "] lacks transactions that were purged before this file"));
        BinlogFileReader r = new BinlogFileReader(writer, executed, checks);
        r.open(start.file());
        return r;
    }

    /** The current file's format description event, once read (for a dump server to send first). */
    public BinlogEvent formatDescriptionEvent() {
        return formatDescription;
    }

    /**
     * Time {@link #nextEvents} spent reading the files, in nanoseconds: what tells a read from the disk from one from
     * the page cache, whatever else keeps the calling thread waiting.
     */
    public long readNanos() {
        return readNanosBefore + (scanner == null ? 0 : scanner.readNanos());
    }

    /** Where the next event starts. */
    public BinlogPosition position() {
        return new BinlogPosition(scanner.name(), scanner.position());
    }

    /**
     * The next durable event, waiting up to {@code timeout} for one.
     *
     * @return the event, or {@code null} when none became durable in time
     */
    public BinlogEvent next(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (pendingRotate != null) {
                open(pendingRotate);
                pendingRotate = null;
            }
            BinlogEvent e = scanner.next(durableLimit());
            if (e != null) {
                if (deliver(e)) {
                    return e;
                }
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            awaitDurable(left);
        }
    }

    /**
     * What {@link #nextEvents} hands over: one event's bytes, {@code length} bytes of {@code buffer} from
     * {@code offset}. The buffer is the reader's; a sink that keeps the bytes past the call retains a slice of it.
     */
    @FunctionalInterface
    public interface EventBytes {
        void accept(int typeCode, ByteBuf buffer, int offset, int length);
    }

    /**
     * The next durable events as bytes, without an event object each (the dump server's path): hands them to
     * {@code sink} in file order, with the same skipping, rotation and durability rules as {@link #next}, until at
     * least {@code maxBytes} were handed over or no more event is durable. Waits up to {@code timeout} for the first.
     *
     * @return the bytes handed over; 0 when no event became durable in time
     */
    public long nextEvents(EventBytes sink, long maxBytes, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long handed = 0;
        long limit = -1; // looked up again only where the events read so far end (it was a tenth of the cost)
        while (true) {
            if (pendingRotate != null) {
                open(pendingRotate);
                pendingRotate = null;
                limit = -1;
            }
            if (limit < 0 || scanner.position() + EventHeader.LENGTH > limit) {
                limit = durableLimit();
            }
            if (scanner.formatDescription() == null) { // a file's first event: decoded, once per file
                BinlogEvent e = scanner.next(limit);
                if (e != null) {
                    formatDescription = e;
                    sink.accept(EventType.FORMAT_DESCRIPTION.code(),
                            Unpooled.wrappedBuffer(e.buffer(), e.bufferOffset(), e.length()), 0, e.length());
                    handed += e.length();
                    if (handed >= maxBytes) {
                        return handed;
                    }
                    continue;
                }
            } else {
                int size = scanner.nextRaw(limit);
                if (size >= 0) {
                    ByteBuf b = scanner.rawBuffer();
                    int at = scanner.rawOffset();
                    int type = b.getUnsignedByte(at + 4);
                    if (deliver(type, b, at, size)) {
                        sink.accept(type, b, at, size);
                        handed += size;
                        if (handed >= maxBytes) {
                            return handed;
                        }
                    }
                    continue;
                }
            }
            long left = deadline - System.nanoTime();
            if (handed > 0 || left <= 0) {
                return handed;
            }
            awaitDurable(left);
        }
    }

    /** How far the current file may be read: its durable end. */
    private long durableLimit() throws IOException {
        DurableMark mark = tracker.current();
        long durableFile = mark.position().fileNumber();
        return durableFile == fileNumber ? mark.position().position()
                : durableFile > fileNumber ? scanner.fileSize() : 0;
    }

    /** Waits up to {@code nanos} for the durable mark to move past this reader (the current file has no more). */
    private void awaitDurable(long nanos) throws IOException, InterruptedException {
        DurableMark mark = tracker.current();
        if (mark.position().fileNumber() > fileNumber) {
            throw new IOException(scanner.name() + " ends at " + scanner.position()
                    + " without a ROTATE although later files are durable (" + mark + ")");
        }
        tracker.awaitBeyond(position(), Duration.ofNanos(nanos));
    }

    /** Tracks headers, rotation and skipping; whether to hand {@code e} to the subscriber. */
    private boolean deliver(BinlogEvent e) {
        if (e.type() == EventType.FORMAT_DESCRIPTION) {
            formatDescription = e;
            return true;
        }
        return deliver(e.type() == null ? -1 : e.type().code(), Unpooled.wrappedBuffer(e.buffer()), e.bufferOffset(),
                e.length());
    }

    /**
     * Tracks rotation and skipping for an event other than the format description, read from its bytes; whether to
     * hand it to the subscriber.
     */
    private boolean deliver(int type, ByteBuf b, int at, int size) {
        int body = at + EventHeader.LENGTH;
        if (type == EventType.ROTATE.code()) {
            byte[] rotate = new byte[size];
            b.getBytes(at, rotate);
            pendingRotate = BinlogPosition.afterRotate(rotate, 0, size, scanner.formatDescription().checksumLength()).file();
            return true;
        }
        if (type == EventType.GTID.code()) { // flags (1), source id (16, big-endian), sequence number (8)
            skipping = b.getLong(body + 1) == serverUuid.getMostSignificantBits()
                    && b.getLong(body + 9) == serverUuid.getLeastSignificantBits()
                    && executed.contains(b.getLongLE(body + 17));
        } else if (type == EventType.MARIA_GTID.code()) { // sequence number (8) first
            skipping = executed.contains(b.getLongLE(body));
        } else if (type == EventType.PREVIOUS_GTIDS.code() || type == EventType.GTID_LIST.code()) {
            return true;
        }
        return !skipping;
    }

    private void open(String file) throws IOException {
        if (scanner != null) {
            readNanosBefore += scanner.readNanos();
            scanner.close();
        }
        scanner = BinlogEventScanner.open(dir.resolve(file));
        fileNumber = BinlogFiles.requireFileNumber(file);
        if (sharedChecks != null) {
            scanner.shareChecks(sharedChecks.file(fileNumber));
        }
        skipping = false;
    }

    private BinlogEvent readHeaderEvent() throws IOException {
        BinlogEvent fde = scanner.next(scanner.fileSize());
        if (fde == null || fde.type() != EventType.FORMAT_DESCRIPTION) {
            throw new IOException(scanner.name() + ": no format description at offset 4");
        }
        return fde;
    }

    @Override
    public void close() throws IOException {
        if (scanner != null) {
            scanner.close();
        }
    }
}
