package io.tributary.daemon.cli;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventHeader;
import io.tributary.core.event.EventType;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.event.GtidEvent;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.RowsEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.daemon.cli.BinlogListing.FileSummary;
import io.tributary.daemon.cli.BinlogListing.TableCounts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads one global binlog file into a {@link FileSummary}, in windows of {@value #WINDOW} bytes (larger only for an
 * event larger than that), so a 500 MB file costs a running daemon a few megabytes, not its size. Each window is
 * cut at the last complete event (found by walking the event headers) and decoded with the core decoder, checksums
 * included; the file is read up to its size when opened, and an event cut off at that end (the writer is appending
 * it) is left out.
 *
 * <p>One scan belongs to one thread.
 */
final class BinlogFileScan {

    static final int WINDOW = 4 << 20;
    private static final int MAGIC = BinlogEventDecoder.MAGIC.length;

    private final String name;
    private String firstGtid;
    private String lastGtid;
    private long firstSequence;
    private long lastSequence;
    private int transactions;
    private long firstTime;
    private long lastTime;
    private final Map<Long, String> tableIds = new HashMap<>();
    private final Set<String> touched = new LinkedHashSet<>();
    private final Map<String, long[]> tables = new TreeMap<>();

    private BinlogFileScan(String name) {
        this.name = name;
    }

    static FileSummary scan(Path file) throws IOException {
        BinlogFileScan s = new BinlogFileScan(file.getFileName().toString());
        long size;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            size = ch.size();
            if (size >= MAGIC) { // a file just created by rotation may not have its magic yet
                s.read(ch, size, file);
            }
        }
        return s.summary(size);
    }

    private void read(FileChannel ch, long size, Path file) throws IOException {
        byte[] buf = new byte[(int) Math.min(WINDOW, size)];
        FormatDescription fde = null;
        long at = 0;
        while (at < size) {
            int len = readFully(ch, buf, at, (int) Math.min(buf.length, size - at));
            if (fde == null && !java.util.Arrays.equals(buf, 0, MAGIC, BinlogEventDecoder.MAGIC, 0, MAGIC)) {
                throw new IOException(file.toAbsolutePath() + ": bad magic: expected fe62696e, found "
                        + java.util.HexFormat.of().formatHex(buf, 0, MAGIC) + " (not a binlog file)");
            }
            int from = fde == null ? MAGIC : 0;
            int complete = completeEvents(buf, from, len);
            if (complete == from) { // no whole event in the window
                long needed = len - from < EventHeader.LENGTH ? EventHeader.LENGTH
                        : EventHeader.parse(buf, from).eventSize();
                if (at + from + needed > size) {
                    break; // the writer's current file: its last event is still being written
                }
                if (from + needed > Integer.MAX_VALUE - 16) {
                    throw new IOException(file.toAbsolutePath() + ": the event at " + (at + from) + " is " + needed
                            + " bytes, more than this browser reads (2 GiB)");
                }
                buf = new byte[(int) (from + needed)];
                continue;
            }
            BinlogEventDecoder d = fde == null ? new BinlogEventDecoder(name, buf, 0, complete, DecoderOptions.FULL)
                    : BinlogEventDecoder.continuing(name, fde, at, buf, 0, complete, DecoderOptions.FULL);
            try {
                while (d.hasNext()) {
                    add(d.next());
                }
            } catch (RuntimeException e) {
                throw new IOException(file.toAbsolutePath() + ": " + e.getMessage(), e);
            }
            fde = d.formatDescription();
            at += complete;
            if (buf.length > WINDOW) {
                buf = new byte[WINDOW]; // the large event is done with
            }
        }
    }

    /**
     * The length of {@code buf[0, from)} plus the events that lie whole in {@code buf[from, len)}. A header whose
     * size cannot be an event is taken in whole, so that the decoder reports it with its offset.
     */
    private static int completeEvents(byte[] buf, int from, int len) {
        int pos = from;
        while (len - pos >= EventHeader.LENGTH) {
            long size = EventHeader.parse(buf, pos).eventSize();
            if (size < EventHeader.LENGTH) {
                return len;
            }
            if (pos + size > len) {
                break;
            }
            pos += (int) size;
        }
        return pos;
    }

    private static int readFully(FileChannel ch, byte[] buf, long at, int len) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(buf, 0, len);
        while (b.hasRemaining()) {
            if (ch.read(b, at + b.position()) < 0) {
                break;
            }
        }
        return b.position();
    }

    private void add(BinlogEvent e) {
        EventType type = e.type();
        if (type == EventType.GTID || type == EventType.MARIA_GTID) {
            endTransaction();
            String gtid;
            long sequence;
            if (type == EventType.GTID) {
                GtidEvent g = e.body(GtidEvent.class);
                gtid = g.gtid();
                sequence = g.gno();
            } else {
                MariaGtidEvent g = e.body(MariaGtidEvent.class);
                gtid = g.gtid();
                sequence = g.sequence();
            }
            if (firstGtid == null) {
                firstGtid = gtid;
                firstSequence = sequence;
                firstTime = e.header().timestamp();
            }
            lastGtid = gtid;
            lastSequence = sequence;
            lastTime = e.header().timestamp();
            transactions++;
        } else if (type == EventType.TABLE_MAP) {
            TableMapEvent m = e.body(TableMapEvent.class);
            String table = m.database() + "." + m.table();
            tableIds.put(m.tableId(), table);
            touched.add(table);
        } else if (type != null && type.isRows()) {
            String table = tableIds.get(RowsEvent.tableIdOf(e));
            tables.computeIfAbsent(table == null ? "(unmapped table id)" : table, k -> new long[2])[1]++;
        }
    }

    /** A transaction ended: each table it mapped counts it once. */
    private void endTransaction() {
        for (String t : touched) {
            tables.computeIfAbsent(t, k -> new long[2])[0]++;
        }
        touched.clear();
        tableIds.clear();
    }

    private FileSummary summary(long size) {
        endTransaction();
        Map<String, TableCounts> counts = new TreeMap<>();
        tables.forEach((t, c) -> counts.put(t, new TableCounts(c[0], c[1])));
        return new FileSummary(name, size, firstGtid, lastGtid, firstSequence, lastSequence, transactions, firstTime,
                lastTime, counts);
    }
}
