package io.tributary.storage.binlog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the oldest global binlog files by {@code binlog.retention.size} (all files together) and
 * {@code binlog.retention.time} (a file's last write, as MySQL's {@code binlog_expire_logs_seconds}).
 * Only a prefix of the index is purged, oldest first, and never a file at or after the bound the writer
 * passes (its current file and the file of the durable mark). The index is rewritten before the files are
 * deleted, so a crash in between leaves only unlisted files, which recovery deletes.
 *
 * <p>Called by the writer under its monitor.
 */
final class BinlogPurger {
    private static final Logger log = LoggerFactory.getLogger(BinlogPurger.class);

    private final BinlogConfig config;
    private final BinlogIndex index;

    BinlogPurger(BinlogConfig config, BinlogIndex index) {
        this.config = config;
        this.index = index;
    }

    /**
     * @param now            for the retention time
     * @param keepFromNumber files numbered this or higher are kept whatever their size and age
     * @return the names of the files deleted
     */
    List<String> purge(Instant now, long keepFromNumber) throws IOException {
        List<BinlogIndex.Entry> entries = index.entries();
        Path dir = config.dir();
        long total = 0;
        List<Long> sizes = new ArrayList<>();
        for (BinlogIndex.Entry e : entries) {
            long size = sizeOf(dir.resolve(e.file()));
            sizes.add(size);
            total += size;
        }
        Duration maxAge = config.retentionTime();
        int count = 0;
        for (int i = 0; i < entries.size(); i++) {
            BinlogIndex.Entry e = entries.get(i);
            if (e.number() >= keepFromNumber || i == entries.size() - 1) {
                break;
            }
            boolean overSize = config.retentionBytes() > 0 && total > config.retentionBytes();
            boolean tooOld = !maxAge.isZero() && lastWrite(dir.resolve(e.file())).plus(maxAge).isBefore(now);
            if (!overSize && !tooOld) {
                break;
            }
            total -= sizes.get(i);
            count++;
        }
        if (count == 0) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (BinlogIndex.Entry e : index.removeOldest(count)) {
            Files.deleteIfExists(dir.resolve(e.file()));
            names.add(e.file());
        }
        log.info("purged {} (retention size {} bytes, time {}); {} bytes kept in {} files", names,
                config.retentionBytes(), maxAge, total, index.entries().size());
        return names;
    }

    private static long sizeOf(Path p) throws IOException {
        try {
            return Files.size(p);
        } catch (NoSuchFileException e) {
            return 0;
        }
    }

    private static Instant lastWrite(Path p) throws IOException {
        try {
            return Files.getLastModifiedTime(p).toInstant();
        } catch (NoSuchFileException e) {
            return Instant.EPOCH;
        }
    }
}
