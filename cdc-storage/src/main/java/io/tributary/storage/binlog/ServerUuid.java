package io.tributary.storage.binlog;

import io.tributary.storage.checkpoint.CheckpointFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * The daemon's server UUID, the source id of every global GTID (MySQL flavor). Generated once and kept
 * in {@code binlog.dir/auto.cnf} in MySQL's own format ({@code [auto]} / {@code server-uuid=...}), so
 * the GTIDs of a restarted daemon continue the same set.
 */
public final class ServerUuid {
    private static final String KEY = "server-uuid=";

    private ServerUuid() {
    }

    /**
     * Reads the UUID from {@code dir}, creating it (durably) when {@code mayCreate}: only for a fresh
     * binlog, since the GTIDs of existing files are under the UUID that was kept.
     */
    public static UUID loadOrCreate(Path dir, boolean mayCreate) throws IOException {
        Path file = dir.resolve(BinlogFiles.SERVER_UUID_FILE);
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.strip().startsWith(KEY)) {
                    String v = line.strip().substring(KEY.length()).strip();
                    try {
                        return UUID.fromString(v);
                    } catch (IllegalArgumentException e) {
                        throw new IOException(file + ": server-uuid '" + v + "' is not a UUID");
                    }
                }
            }
            throw new IOException(file + ": no '" + KEY + "' line");
        }
        if (!mayCreate) {
            throw new BinlogRecoveryException(file + " is missing but binlog files exist: their GTIDs are under the UUID it"
                    + " held; restore it (the UUID is also in every GTID event of the files)");
        }
        UUID uuid = UUID.randomUUID();
        Path tmp = dir.resolve(BinlogFiles.SERVER_UUID_FILE + BinlogFiles.TEMP_SUFFIX);
        Files.writeString(tmp, "[auto]\n" + KEY + uuid + "\n", StandardCharsets.UTF_8);
        try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        CheckpointFile.syncDirectory(dir);
        return uuid;
    }
}
