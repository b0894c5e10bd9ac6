package io.tributary.storage.binlog;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How far each global binlog file's events have had their CRC32 checked by a reader of this process, shared by every
 * subscriber's reader, so that the dump server checks an event once rather than once per subscriber (every
 * subscriber checking every event it read cost a fifth of the serving rate on a slow CPU; MariaDB's dump thread checks
 * none unless {@code master_verify_checksum} is on).
 *
 * <p>Per file it keeps one offset, the verified end: every event from the first after the format description up to
 * it was checked and matched. A reader that checked a run of events {@code [from, to)} {@linkplain Extent#extend
 * extends} the end to {@code to} when the end already reaches {@code from}, so the verified part stays one piece
 * whatever order readers go in; a reader that started in the middle of a file checks its own events until the end
 * reaches them. A damaged event never becomes verified: every reader that gets to it checks it and is refused.
 *
 * <p>What this gives up: bytes that change on disk after a reader of this process checked them (Tributary never
 * rewrites a durable byte; bit rot or another program might) reach later subscribers unchecked, as every byte reaches
 * them from MariaDB's dump thread by default. Where that matters, {@link ChecksumPolicy#EVERY_READ} checks every event for
 * every subscriber, as before.
 *
 * <p>Thread-safe. Owned by the {@link GlobalBinlogWriter}, which forgets purged files.
 */
public final class VerifiedChecksums {

    private final ConcurrentHashMap<Long, Extent> files = new ConcurrentHashMap<>();

    /** The verified part of the file numbered {@code fileNumber} (empty until a reader extends it). */
    Extent file(long fileNumber) {
        return files.computeIfAbsent(fileNumber, n -> new Extent());
    }

    /** Drops what is known of files that were deleted. */
    void forget(Collection<String> purgedFiles) {
        for (String name : purgedFiles) {
            files.remove(BinlogFiles.requireFileNumber(name));
        }
    }

    /** One file's verified part: from its first event after the format description up to {@link #end()}. */
    static final class Extent {
        private final AtomicLong end = new AtomicLong();

        /** Where the verified part ends; 0 when no reader has started it. */
        long end() {
            return end.get();
        }

        /**
         * Records that the events in {@code [from, to)} were checked, where {@code from} is the first event after the
         * format description or any offset inside the verified part; a run that starts after the end is not joined.
         */
        void extend(long from, long to, long firstEvent) {
            while (true) {
                long e = end.get();
                boolean joins = e == 0 ? from == firstEvent : from <= e;
                if (!joins || to <= e || end.compareAndSet(e, to)) {
                    return;
                }
            }
        }
    }
}
