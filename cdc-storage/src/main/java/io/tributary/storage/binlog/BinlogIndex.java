package io.tributary.storage.binlog;

import io.tributary.storage.checkpoint.CheckpointFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The global binlog files that exist, oldest first, each with the GTID sequence number of the last
 * transaction before it (what its PREVIOUS_GTIDS / GTID_LIST event says). Global GTIDs are one gap-free
 * sequence, so a file's previous-GTID set is {@code uuid:1-previousSequence} and its first GTID is
 * {@code previousSequence + 1}: finding the file of a GTID is a binary search over this list, with no
 * scan of any file.
 *
 * <p>Persisted as {@code binlog.index} in MySQL's format ({@code ./binlog.000001}, one per line), which
 * tools and {@code SHOW BINARY LOGS} expect; the sequence numbers are read from the file headers at
 * startup ({@link BinlogRecovery}).
 *
 * <p>Thread-safe: the writer changes it (rotation, purge) under this object's monitor; readers see an
 * immutable snapshot.
 */
public final class BinlogIndex {

    /**
     * One file.
     *
     * @param file             e.g. {@code binlog.000003}
     * @param previousSequence GTID sequence number of the last transaction in earlier files (0 for none)
     */
    public record Entry(String file, long previousSequence) {
        public long number() {
            return BinlogFiles.requireFileNumber(file);
        }
    }

    private final Path dir;
    private final boolean sync;
    private volatile List<Entry> entries;

    BinlogIndex(Path dir, boolean sync, List<Entry> entries) {
        this.dir = dir;
        this.sync = sync;
        this.entries = List.copyOf(entries);
    }

    /** A snapshot, oldest first. */
    public List<Entry> entries() {
        return entries;
    }

    public Entry last() {
        List<Entry> e = entries;
        return e.get(e.size() - 1);
    }

    public Optional<Entry> find(String file) {
        return entries.stream().filter(e -> e.file().equals(file)).findFirst();
    }

    /** The file after {@code file}, if it exists. */
    public Optional<Entry> next(String file) {
        List<Entry> e = entries;
        for (int i = 0; i < e.size() - 1; i++) {
            if (e.get(i).file().equals(file)) {
                return Optional.of(e.get(i + 1));
            }
        }
        return Optional.empty();
    }

    /**
     * The newest file whose earlier files hold only transactions up to {@code executedUpTo}: where a
     * subscriber that has every transaction {@code 1..executedUpTo} starts reading. Empty when that file
     * was purged (the subscriber needs transactions no longer kept).
     */
    public Optional<Entry> startFor(long executedUpTo) {
        List<Entry> e = entries;
        int lo = 0;
        int hi = e.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (e.get(mid).previousSequence() <= executedUpTo) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? Optional.empty() : Optional.of(e.get(found));
    }

    /** Adds a new newest file and appends it to {@code binlog.index} (fsynced). */
    synchronized void append(Entry entry) throws IOException {
        Path file = dir.resolve(BinlogFiles.INDEX_FILE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer b = ByteBuffer.wrap(("./" + entry.file() + "\n").getBytes(StandardCharsets.UTF_8));
            while (b.hasRemaining()) {
                ch.write(b);
            }
            if (sync) {
                ch.force(true);
            }
        }
        List<Entry> next = new ArrayList<>(entries);
        next.add(entry);
        entries = List.copyOf(next);
    }

    /** Drops the oldest {@code count} files from the index (rewritten atomically); the caller deletes them. */
    synchronized List<Entry> removeOldest(int count) throws IOException {
        List<Entry> all = entries;
        List<Entry> removed = List.copyOf(all.subList(0, count));
        List<Entry> kept = List.copyOf(all.subList(count, all.size()));
        write(dir, kept.stream().map(Entry::file).toList(), sync);
        entries = kept;
        return removed;
    }

    /** Replaces {@code binlog.index} with {@code files} atomically. */
    static void write(Path dir, List<String> files, boolean sync) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (String f : files) {
            sb.append("./").append(f).append('\n');
        }
        Path tmp = dir.resolve(BinlogFiles.INDEX_FILE + BinlogFiles.TEMP_SUFFIX);
        Files.writeString(tmp, sb, StandardCharsets.UTF_8);
        if (sync) {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
        }
        Files.move(tmp, dir.resolve(BinlogFiles.INDEX_FILE), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        if (sync) {
            CheckpointFile.syncDirectory(dir);
        }
    }

    /** The file names {@code binlog.index} lists (without {@code ./}), or empty when it does not exist. */
    static List<String> read(Path dir) throws IOException {
        try {
            List<String> names = new ArrayList<>();
            for (String line : Files.readAllLines(dir.resolve(BinlogFiles.INDEX_FILE), StandardCharsets.UTF_8)) {
                String l = line.strip();
                if (!l.isEmpty()) {
                    names.add(Path.of(l).getFileName().toString());
                }
            }
            return names;
        } catch (NoSuchFileException e) {
            return List.of();
        }
    }

    @Override
    public String toString() {
        return "BinlogIndex" + entries;
    }
}
