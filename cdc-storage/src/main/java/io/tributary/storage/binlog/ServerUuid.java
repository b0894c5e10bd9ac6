package io.tributary.storage.binlog;

import io.tributary.storage.checkpoint.CheckpointFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * The daemon's server UUID, the source id of every global GTID (MySQL flavor). Taken from the configuration
 * ({@link BinlogConfig#effectiveServerUuid()}: {@code binlog.server.uuid}, or derived from {@code binlog.server.id})
 * when the first file is created, never drawn at random, so that twins with the same configuration write the same
 * GTIDs; kept in {@code binlog.dir/auto.cnf} in MySQL's own format ({@code [auto]} / {@code server-uuid=...}), so
 * the GTIDs of a restarted daemon continue the same set.
 *
 * <p>A directory written before the key existed holds a random UUID: it is kept while {@code binlog.server.uuid}
 * is not set (a twin of such a daemon needs {@code binlog.server.uuid} set to it). A {@code binlog.server.uuid}
 * different from the kept one is refused: the files' GTIDs are under the kept one.
 */
public final class ServerUuid {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ServerUuid.class);
    private static final String KEY = "server-uuid=";

    private ServerUuid() {
    }

    /**
     * Reads the UUID from {@code dir}, creating it (durably) when {@code mayCreate}: only for a fresh
     * binlog, since the GTIDs of existing files are under the UUID that was kept.
     *
     * @param configured {@code binlog.server.uuid}, or null when not set
     * @param derived    what a fresh directory gets when {@code configured} is null
     * @throws BinlogRecoveryException when {@code configured} differs from the kept UUID
     */
    public static UUID loadOrCreate(Path dir, boolean mayCreate, UUID configured, UUID derived) throws IOException {
        Path file = dir.resolve(BinlogFiles.SERVER_UUID_FILE);
        if (Files.exists(file)) {
            UUID kept = read(file);
            if (configured != null && !configured.equals(kept)) {
                throw new BinlogRecoveryException("binlog.server.uuid is " + configured + " but the global binlog in " + dir
                        + " was written under " + kept + " (" + file.getFileName() + "): its GTIDs cannot change UUID;"
                        + " set binlog.server.uuid=" + kept + " or use another binlog.dir");
            }
            if (configured == null && !kept.equals(derived)) {
                log.warn("{} holds server uuid {} (not the one binlog.server.id derives, {}): kept; a twin of this daemon"
                        + " needs binlog.server.uuid={}", file, kept, derived, kept);
            }
            return kept;
        }
        if (!mayCreate) {
            throw new BinlogRecoveryException(file + " is missing but binlog files exist: their GTIDs are under the UUID it"
                    + " held; restore it (the UUID is also in every GTID event of the files)");
        }
        UUID uuid = configured != null ? configured : derived;
        Path tmp = dir.resolve(BinlogFiles.SERVER_UUID_FILE + BinlogFiles.TEMP_SUFFIX);
        Files.writeString(tmp, "[auto]\n" + KEY + uuid + "\n", StandardCharsets.UTF_8);
        try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        CheckpointFile.syncDirectory(dir);
        return uuid;
    }

    private static UUID read(Path file) throws IOException {
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
}
