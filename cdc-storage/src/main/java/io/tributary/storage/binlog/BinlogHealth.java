package io.tributary.storage.binlog;

import java.time.Instant;

/**
 * Whether the global binlog accepts writes: {@code DOWN} after a write error (a full disk) until a retry
 * succeeds. The daemon's health indicator reports it.
 *
 * @param up     false while writing is stopped
 * @param detail what failed and where, or {@code "writing"}
 * @param since  when the state began
 */
public record BinlogHealth(boolean up, String detail, Instant since) {
    public static BinlogHealth up(Instant since) {
        return new BinlogHealth(true, "writing", since);
    }

    @Override
    public String toString() {
        return (up ? "UP" : "DOWN") + " since " + since + ": " + detail;
    }
}
