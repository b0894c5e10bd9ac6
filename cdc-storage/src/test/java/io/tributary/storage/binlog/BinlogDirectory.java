package io.tributary.storage.binlog;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.GtidEvent;
import io.tributary.core.event.GtidListEvent;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.PreviousGtidsEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Test view of a binlog directory: every file decoded in full by the core decoder. */
final class BinlogDirectory {
    private static final java.util.Set<EventType> KEEP_BODIES = java.util.EnumSet.of(EventType.GTID,
            EventType.MARIA_GTID, EventType.PREVIOUS_GTIDS, EventType.GTID_LIST, EventType.TABLE_MAP, EventType.QUERY);

    private BinlogDirectory() {
    }

    /** Every binlog file of {@code dir} by name, with all its events (fails on any damage). */
    static Map<String, List<BinlogEvent>> read(Path dir) {
        return read(dir, DecoderOptions.FULL);
    }

    /**
     * Like {@link #read(Path)}; with {@link DecoderOptions#HEADERS_ONLY} the bodies of GTID, previous-GTID,
     * table map and query events are still decoded (checksums are verified for all).
     */
    static Map<String, List<BinlogEvent>> read(Path dir, DecoderOptions options) {
        Map<String, List<BinlogEvent>> files = new TreeMap<>();
        forEachFile(dir, options, (name, events) -> files.put(name, events));
        return files;
    }

    /**
     * Like {@link #read(Path, DecoderOptions)}, one file at a time, so that a directory larger than the
     * heap (the crash test writes gigabytes) can be checked; returns the number of files.
     */
    static int forEachFile(Path dir, DecoderOptions options, java.util.function.BiConsumer<String, List<BinlogEvent>> visitor) {
        int count = 0;
        try (var list = Files.list(dir)) {
            for (Path p : list.sorted().toList()) {
                String name = p.getFileName().toString();
                if (BinlogFiles.fileNumber(name).isPresent()) {
                    List<BinlogEvent> events = new ArrayList<>();
                    BinlogEventDecoder d = new BinlogEventDecoder(name, Files.readAllBytes(p), options);
                    while (d.hasNext()) {
                        BinlogEvent e = d.next();
                        if (e.body() == null && KEEP_BODIES.contains(e.type())) {
                            e = BinlogEventDecoder.continuing(name, d.formatDescription(), e.offset(), e.buffer(),
                                    e.bufferOffset(), e.length(), DecoderOptions.FULL).next();
                        }
                        events.add(e);
                    }
                    visitor.accept(name, events);
                    count++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return count;
    }

    /** The GTID sequence number of a GTID or MariaDB GTID event, or -1. */
    static long sequence(BinlogEvent e) {
        if (e.type() == EventType.GTID) {
            return e.body(GtidEvent.class).gno();
        }
        if (e.type() == EventType.MARIA_GTID) {
            return e.body(MariaGtidEvent.class).sequence();
        }
        return -1;
    }

    /** The last sequence of earlier files that a file's second event names. */
    static long previousSequence(BinlogEvent e) {
        if (e.type() == EventType.PREVIOUS_GTIDS) {
            long last = 0;
            for (PreviousGtidsEvent.SidIntervals s : e.body(PreviousGtidsEvent.class).sets()) {
                for (PreviousGtidsEvent.Interval i : s.intervals()) {
                    if (i.start() != 1) {
                        throw new AssertionError("interval does not start at 1: " + e.body(PreviousGtidsEvent.class).gtidSet());
                    }
                    last = Math.max(last, i.end() - 1);
                }
            }
            return last;
        }
        long last = 0;
        for (GtidListEvent.MariaGtid g : e.body(GtidListEvent.class).gtids()) {
            last = Math.max(last, g.sequence());
        }
        return last;
    }

    /** All GTID sequence numbers in file order. */
    static List<Long> sequences(Map<String, List<BinlogEvent>> files) {
        List<Long> out = new ArrayList<>();
        for (List<BinlogEvent> events : files.values()) {
            for (BinlogEvent e : events) {
                long s = sequence(e);
                if (s >= 0) {
                    out.add(s);
                }
            }
        }
        return out;
    }
}
