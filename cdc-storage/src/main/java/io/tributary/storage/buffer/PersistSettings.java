package io.tributary.storage.buffer;

import io.tributary.core.config.ByteSize;
import java.nio.file.Path;
import java.util.Objects;

/**
 * One validated snapshot of the {@code storage.*} keys that govern the transaction buffer and its spill
 * (ARCHITECTURE.md, "Spilling"). Build one with {@link PersistConfig#parse}; the constructor checks only
 * what a caller could not get wrong through the parser.
 *
 * @param persistOn           {@code storage.isPersistOn}: may anything spill at all
 * @param mode                {@code storage.persist.mode}
 * @param newThreshold        {@code storage.persistNewThreshold}: share of the budget above which new data spills (AUTO)
 * @param allThreshold        {@code storage.persistAllThreshold}: share above which buffered data moves to disk too
 * @param txnThresholdBytes   {@code storage.txnPersistThreshold}: a transaction larger than this spills at once (AUTO)
 * @param memoryLimitBytes    {@code storage.memoryLimit}: the buffer's byte budget
 * @param path                {@code storage.path}: the spill store's directory
 */
public record PersistSettings(boolean persistOn, PersistMode mode, double newThreshold, double allThreshold,
        long txnThresholdBytes, long memoryLimitBytes, Path path) {

    public PersistSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(path, "path");
        if (memoryLimitBytes <= 0 || txnThresholdBytes <= 0) {
            throw new IllegalArgumentException("byte limits must be positive: memoryLimit=" + memoryLimitBytes
                    + ", txnPersistThreshold=" + txnThresholdBytes);
        }
    }

    /** Bytes of use above which new data goes to disk in AUTO. */
    public long newThresholdBytes() {
        return (long) (memoryLimitBytes * newThreshold);
    }

    /** Bytes of use above which data already in memory moves to disk. */
    public long allThresholdBytes() {
        return (long) (memoryLimitBytes * allThreshold);
    }

    @Override
    public String toString() {
        return "PersistSettings[isPersistOn=" + persistOn + ", mode=" + mode + ", new=" + newThreshold + ", all="
                + allThreshold + ", txn=" + ByteSize.format(txnThresholdBytes) + ", memoryLimit="
                + ByteSize.format(memoryLimitBytes) + ", path=" + path + "]";
    }
}
