package io.tributary.storage.binlog;

import java.nio.ByteBuffer;

/**
 * Told of the bytes {@link GlobalBinlogWriter} hands to the files, as it hands them, so that a consumer (the shared
 * tail cache) has them without reading back the file just written. None of them is durable yet when told: which are
 * is for the consumer to learn from the {@link DurabilityTracker} (invariant 6).
 *
 * <p>Every call comes from the writing thread while the writer's lock is held, in file order: it must not block, and
 * must copy what it keeps before returning (the buffers are the writer's, reused at once).
 */
public interface BinlogFeed {
    /** Where the feed starts: the end of what the files hold now. Called once, before any other call. */
    void attached(BinlogPosition end);

    /** {@code bytes} (whole events, from its position to its limit) now lie in {@code file} at {@code offset}. */
    void appended(String file, long offset, ByteBuffer bytes);

    /** Bytes already appended were overwritten (a MySQL GTID's transaction length, patched after its transaction). */
    void overwritten(String file, long offset, ByteBuffer bytes);

    /** What was appended to {@code file} from {@code offset} on was undone (a failed transaction); it never becomes durable. */
    void truncated(String file, long offset);
}
