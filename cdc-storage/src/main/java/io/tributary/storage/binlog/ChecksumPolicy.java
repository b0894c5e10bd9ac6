package io.tributary.storage.binlog;

/** When a subscriber's reader checks the CRC32 of an event it reads from the files ({@code dump.checksums}). */
public enum ChecksumPolicy {
    /** The first time any reader of this process reads the event (the default; see {@link VerifiedChecksums}). */
    FIRST_READ,
    /** Every time a reader reads it. */
    EVERY_READ
}
