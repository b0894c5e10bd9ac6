package io.tributary.storage.binlog;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogFormatException;
import io.tributary.core.event.EventType;
import io.tributary.core.event.FormatDescription;
import io.tributary.core.event.GtidEvent;
import io.tributary.core.event.GtidListEvent;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.PreviousGtidsEvent;
import io.tributary.storage.checkpoint.BinlogCheckpoint;
import io.tributary.storage.checkpoint.CheckpointFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The startup pass over {@code binlog.dir}, before the writer opens. Numbered passes:
 * <ol>
 * <li>delete {@code *.tmp} files a crash left behind (a state file being replaced);</li>
 * <li>read the checkpoint; without one, a directory holding only {@code binlog.000001} is a first start
 *     that crashed before its first checkpoint and is cleared, anything else is refused;</li>
 * <li>delete files after the checkpoint's file and truncate that file to the checkpoint's position: the
 *     bytes beyond it were never published (the syncer publishes only after storing the checkpoint) and
 *     their transactions come again from the shard positions in the checkpoint;</li>
 * <li>read every remaining file's header (format description, previous GTIDs) and check the flavor;</li>
 * <li>validate the last file with the decoder up to the checkpoint (sizes, checksums) and check that
 *     its last GTID is the checkpoint's;</li>
 * <li>rewrite {@code binlog.index} if it does not list exactly the remaining files, and delete files a
 *     purge dropped from the index but had not yet deleted.</li>
 * </ol>
 *
 * <p><b>The in-use flag.</b> The writer keeps {@code LOG_EVENT_BINLOG_IN_USE_F} set in the file it writes
 * and clears it after a ROTATE or a shutdown's STOP ({@link InUseFlag}). Recovery does not trust the flag
 * for what to keep: a clear flag proves nothing about which bytes reached the disk, so the checkpoint alone
 * decides (pass 3 always cuts back to it). The flag tells what happened, and the log says it: set means
 * the writer crashed and the tail was checked and cut; clear with exactly one STOP after the checkpoint
 * means a clean shutdown, and the STOP is removed so that the writer appends at the same position
 * (subscribers continue where they were). A file other than the last that still has the flag (a crash
 * during its rotation) gets it cleared, so that no finished file reads as in use.
 * Everything it does is logged and returned in {@link RecoveredBinlog#actions()}. Damage inside the
 * durable part (before the checkpoint) is not repaired: it fails with a {@link BinlogRecoveryException}
 * naming file and offset.
 */
public final class BinlogRecovery {
    private static final Logger log = LoggerFactory.getLogger(BinlogRecovery.class);

    private final BinlogConfig config;
    private final Path dir;
    private final List<String> actions = new ArrayList<>();

    private BinlogRecovery(BinlogConfig config) {
        this.config = config;
        this.dir = config.dir();
    }

    public static RecoveredBinlog recover(BinlogConfig config) throws IOException {
        return new BinlogRecovery(config).run();
    }

    private RecoveredBinlog run() throws IOException {
        Files.createDirectories(dir);
        TreeMap<Long, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (name.endsWith(BinlogFiles.TEMP_SUFFIX)) {
                    act("deleted leftover " + name + " (" + Files.size(p) + " bytes)");
                    Files.delete(p);
                    continue;
                }
                OptionalLong n = BinlogFiles.fileNumber(name);
                if (n.isPresent()) {
                    files.put(n.getAsLong(), p);
                }
            }
        }
        // pass 2: the checkpoint
        Optional<BinlogCheckpoint> read = new CheckpointFile(dir.resolve(BinlogFiles.CHECKPOINT_FILE), false).read();
        if (read.isEmpty()) {
            if (files.isEmpty()) {
                log.info("no global binlog in {}: starting fresh", dir);
                return new RecoveredBinlog(List.of(), Optional.empty(), actions, 0);
            }
            if (files.size() == 1 && files.firstKey() == 1) {
                Path only = files.firstEntry().getValue();
                act("first start crashed before its first checkpoint: deleted " + only.getFileName() + " ("
                        + Files.size(only) + " bytes)");
                Files.delete(only);
                Files.deleteIfExists(dir.resolve(BinlogFiles.INDEX_FILE));
                return new RecoveredBinlog(List.of(), Optional.empty(), actions, 0);
            }
            throw new BinlogRecoveryException(dir.resolve(BinlogFiles.CHECKPOINT_FILE) + " is missing but " + files.size()
                    + " binlog files exist (" + files.firstEntry().getValue().getFileName() + " .. "
                    + files.lastEntry().getValue().getFileName() + "): without it the shard positions are unknown; "
                    + "restore the checkpoint or move the files away");
        }
        BinlogCheckpoint cp = read.get();
        long cpNumber = BinlogFiles.requireFileNumber(cp.file());
        Path cpFile = files.get(cpNumber);
        if (cpFile == null) {
            throw new BinlogRecoveryException("checkpoint " + cp + " names " + cp.file() + ", which is not in " + dir);
        }
        // pass 3: drop what follows the checkpoint
        for (Path later : new ArrayList<>(files.tailMap(cpNumber, false).values())) {
            act("deleted " + later.getFileName() + " (" + Files.size(later) + " bytes after the checkpoint, never published)");
            Files.delete(later);
        }
        files.tailMap(cpNumber, false).clear();
        long size = Files.size(cpFile);
        if (size < cp.position()) {
            throw new BinlogRecoveryException("checkpoint " + cp + " points past the end of " + cp.file() + " (" + size
                    + " bytes): durable data is missing");
        }
        boolean inUse = InUseFlag.isSet(cpFile);
        if (size > cp.position()) {
            String tail = tailAfter(cpFile, cp.position(), size);
            boolean cleanStop = !inUse && tail.equals("STOP");
            try (FileChannel ch = FileChannel.open(cpFile, StandardOpenOption.WRITE)) {
                ch.truncate(cp.position());
                ch.force(true);
            }
            if (cleanStop) {
                act(cp.file() + " was closed cleanly (STOP at " + cp.position() + ", in-use flag clear): removed the STOP"
                        + " to append after it");
            } else {
                act("truncated " + cp.file() + " from " + size + " to " + cp.position() + " bytes (" + (size - cp.position())
                        + " bytes after the checkpoint dropped, starting with " + tail + "; in-use flag "
                        + (inUse ? "set: the writer crashed)" : "clear: the file was closed, then the writer crashed)"));
            }
        } else if (inUse) {
            act(cp.file() + " was in use at a crash (in-use flag set) and ends at the checkpoint " + cp.position()
                    + ": nothing to drop");
        }
        // pass 6 first half: files a purge removed from the index but did not delete
        List<String> listed = BinlogIndex.read(dir);
        if (!listed.isEmpty()) {
            OptionalLong first = BinlogFiles.fileNumber(listed.get(0));
            if (first.isPresent()) {
                for (Path purged : new ArrayList<>(files.headMap(first.getAsLong(), false).values())) {
                    act("deleted " + purged.getFileName() + " (purged from the index before a crash)");
                    Files.delete(purged);
                }
                files.headMap(first.getAsLong(), false).clear();
            }
        }
        // pass 4: headers; every file but the last was closed by a rotation and must not read as in use
        List<BinlogIndex.Entry> entries = new ArrayList<>();
        for (Path p : files.values()) {
            entries.add(new BinlogIndex.Entry(p.getFileName().toString(), previousSequence(p)));
            if (!p.equals(cpFile) && InUseFlag.isSet(p)) {
                InUseFlag.write(p, false, true);
                act(p.getFileName() + " still had the in-use flag set although later files follow it (a crash during its"
                        + " rotation): cleared the flag");
            }
        }
        // pass 5: the last file up to the checkpoint
        long lastTimestamp = validateLastFile(cpFile, cp, entries.get(entries.size() - 1).previousSequence());
        // pass 6: the index
        List<String> names = entries.stream().map(BinlogIndex.Entry::file).toList();
        if (!names.equals(listed)) {
            BinlogIndex.write(dir, names, true);
            act("rewrote " + BinlogFiles.INDEX_FILE + ": it listed " + listed.size() + " files, " + names.size() + " exist");
        }
        act("resuming after GTID sequence " + cp.lastSequence() + " at " + cp.file() + ":" + cp.position() + " ("
                + entries.size() + " files " + names.get(0) + " .. " + names.get(names.size() - 1) + "); shards resume from "
                + cp.shards().values());
        return new RecoveredBinlog(entries, read, actions, lastTimestamp);
    }

    /** The GTID sequence number before {@code file}, from its PREVIOUS_GTIDS / GTID_LIST. */
    private long previousSequence(Path file) throws IOException {
        try (BinlogEventScanner s = BinlogEventScanner.open(file)) {
            long size = s.fileSize();
            BinlogEvent fde = s.next(size);
            if (fde == null) {
                throw new BinlogRecoveryException(file + ": no complete format description (" + size + " bytes)");
            }
            FormatDescription desc = s.formatDescription();
            if (desc.isMariaDb() != config.flavor().isMariaDb()) {
                throw new BinlogRecoveryException(file + " was written as " + desc.serverVersion()
                        + " but binlog.flavor is " + config.flavor() + ": flavors cannot be mixed in one directory");
            }
            BinlogEvent prev = s.next(size);
            if (prev == null) {
                throw new BinlogRecoveryException(file + ": no previous-GTIDs event after the format description");
            }
            prev = s.decode(prev);
            if (prev.type() == EventType.PREVIOUS_GTIDS) {
                long last = 0;
                for (PreviousGtidsEvent.SidIntervals sid : prev.body(PreviousGtidsEvent.class).sets()) {
                    for (PreviousGtidsEvent.Interval i : sid.intervals()) {
                        last = Math.max(last, i.end() - 1);
                    }
                }
                return last;
            }
            if (prev.type() == EventType.GTID_LIST) {
                long last = 0;
                for (GtidListEvent.MariaGtid g : prev.body(GtidListEvent.class).gtids()) {
                    if (g.domainId() == config.domainId()) {
                        last = Math.max(last, g.sequence());
                    }
                }
                return last;
            }
            throw new BinlogRecoveryException(file + " at " + prev.offset() + ": expected PREVIOUS_GTIDS or GTID_LIST, found "
                    + prev.type());
        } catch (BinlogFormatException e) {
            throw new BinlogRecoveryException("header of " + file + " is damaged: " + e.getMessage(), e);
        }
    }

    /**
     * What the bytes of {@code file} from {@code at} to {@code size} hold: {@code STOP} when exactly one
     * valid STOP event, else the first event's type and how many bytes follow it, or "a torn event".
     */
    private static String tailAfter(Path file, long at, long size) throws IOException {
        try (BinlogEventScanner s = BinlogEventScanner.open(file)) {
            if (s.next(size) == null) {
                return "a torn event";
            }
            s.seek(at);
            BinlogEvent e = s.next(size);
            if (e == null) {
                return "a torn event";
            }
            if (e.type() == EventType.STOP && s.position() == size) {
                return "STOP";
            }
            return e.type() + (s.position() == size ? "" : " and " + (size - s.position()) + " more bytes");
        } catch (BinlogFormatException e) {
            return "bytes that are no valid event";
        }
    }

    /** Checks the last file up to the checkpoint; returns the header timestamp of its last event there. */
    private long validateLastFile(Path file, BinlogCheckpoint cp, long previousSequence) throws IOException {
        long lastGtid = previousSequence;
        long events = 0;
        long lastTimestamp = 0;
        try (BinlogEventScanner s = BinlogEventScanner.open(file)) {
            for (BinlogEvent e = s.next(cp.position()); e != null; e = s.next(cp.position())) {
                events++;
                lastTimestamp = e.header().timestamp();
                if (e.type() == EventType.GTID) {
                    lastGtid = s.decode(e).body(GtidEvent.class).gno();
                } else if (e.type() == EventType.MARIA_GTID) {
                    lastGtid = s.decode(e).body(MariaGtidEvent.class).sequence();
                }
            }
            if (s.position() != cp.position()) {
                throw new BinlogRecoveryException(file + ": the last complete event before the checkpoint ends at "
                        + s.position() + ", the checkpoint is at " + cp.position());
            }
        } catch (BinlogFormatException e) {
            throw new BinlogRecoveryException("durable part of " + file + " is damaged: " + e.getMessage(), e);
        }
        if (lastGtid != cp.lastSequence()) {
            throw new BinlogRecoveryException(file + " up to " + cp.position() + " ends with GTID sequence " + lastGtid
                    + ", the checkpoint says " + cp.lastSequence());
        }
        act("validated " + file.getFileName() + " up to " + cp.position() + " (" + events + " events, last GTID sequence "
                + lastGtid + ")");
        return lastTimestamp;
    }

    private void act(String what) {
        actions.add(what);
        log.info("binlog recovery: {}", what);
    }
}
