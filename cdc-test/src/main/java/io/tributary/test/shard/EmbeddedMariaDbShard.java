package io.tributary.test.shard;

import io.tributary.test.net.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real MariaDB server run as a child process of this JVM, with its own directory:
 * <pre>
 *   shard-N/data     the data directory (created by mariadb-install-db at first start)
 *   shard-N/binlog   mariadb-bin.000001 ... and mariadb-bin.index
 *   shard-N/tmp      tmpdir
 *   shard-N/log      error.log, console.log, install-db.log
 *   shard-N/run      mariadbd.pid, init.sql
 * </pre>
 * The server is configured the way Tributary needs a shard: {@code log_bin}, {@code binlog_format=ROW},
 * {@code binlog_row_image=FULL}, {@code binlog_row_metadata=FULL}, {@code binlog_checksum=CRC32}, a
 * distinct {@code server_id}. Its accounts are created by an init file at every start, outside the
 * binlog ({@code sql_log_bin=0}), so the binlog holds only what tests write.
 *
 * <p>Test-speed choices, not production advice: {@code innodb_flush_log_at_trx_commit=2} (a killed
 * server loses nothing, only a machine crash would) and a 64 MB buffer pool.
 *
 * <p>The handle kills exactly the process it started: every started process is remembered in a
 * registry that a JVM shutdown hook empties, and {@link #killStale(Path)} finds servers left behind by a
 * JVM that was itself killed, by matching the pid file's process against its {@code --datadir}.
 *
 * <p>Thread-safe: start, stop and kill are serialized on the handle.
 */
public final class EmbeddedMariaDbShard implements Shard {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedMariaDbShard.class);
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static final String MARKER = ".tributary-shard";

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "tributary-shard-reaper"));
    }

    private final MariaDbDistribution distribution;
    private final Path dir;
    private final Path socketDir;
    private final List<String> serverOptions;
    private final Duration startTimeout;
    private volatile ShardInfo info;
    private Process process;
    private boolean startedOnce;

    EmbeddedMariaDbShard(MariaDbDistribution distribution, ShardInfo info, Path dir, List<String> serverOptions,
                         Duration startTimeout) {
        this.distribution = distribution;
        this.info = info;
        this.dir = dir;
        this.serverOptions = List.copyOf(serverOptions);
        this.startTimeout = startTimeout;
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(MARKER), "");
            for (String sub : List.of("data", "binlog", "tmp", "log", "run")) {
                Files.createDirectories(dir.resolve(sub));
            }
            // unix socket paths are limited to 107 bytes, so the socket lives in a short temp directory
            this.socketDir = Files.createTempDirectory("tributary-sock-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create shard directory " + dir, e);
        }
    }

    @Override
    public ShardInfo info() {
        return info;
    }

    /** The shard's own directory (data, binlog, logs). */
    public Path directory() {
        return dir;
    }

    /** Directory holding the shard's binlog files. */
    public Path binlogDirectory() {
        return dir.resolve("binlog");
    }

    @Override
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public synchronized OptionalLong pid() {
        return process == null ? OptionalLong.empty() : OptionalLong.of(process.pid());
    }

    @Override
    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        long started = System.nanoTime();
        initializeDataDirectory();
        writeInitFile();
        // A port picked as free may be taken before mariadbd binds it; on the first start only, retry with
        // another one. Later starts must keep the port clients know.
        for (int attempt = 1; ; attempt++) {
            try {
                launchAndAwaitReady();
                break;
            } catch (PortTakenException e) {
                if (startedOnce || attempt >= 3) {
                    throw new IllegalStateException(info.name() + ": port " + info.port() + " is taken", e);
                }
                int port = FreePorts.next();
                log.info("{}: port {} was taken, retrying on {}", info.name(), info.port(), port);
                info = withPort(info, port);
            }
        }
        startedOnce = true;
        log.info("{} up (pid {}) in {} ms", info, process.pid(), (System.nanoTime() - started) / 1_000_000);
    }

    @Override
    public synchronized void stop(Duration timeout) {
        if (process == null) {
            return;
        }
        try {
            if (process.isAlive()) {
                process.destroy(); // SIGTERM: mariadbd shuts down cleanly
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    log.warn("{} did not stop within {}; killing pid {}", info.name(), timeout, process.pid());
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        } finally {
            LIVE.remove(process);
            process = null;
        }
    }

    @Override
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        try {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            LIVE.remove(process);
            process = null;
        }
    }

    @Override
    public synchronized void close() {
        stop(Duration.ofSeconds(30));
        try {
            MariaDbDistribution.deleteTree(socketDir);
            if (!Boolean.getBoolean("tributary.shards.keep")) {
                MariaDbDistribution.deleteTree(dir);
            }
        } catch (IOException e) {
            log.warn("{}: could not delete {}: {}", info.name(), dir, e.toString());
        }
    }

    private void initializeDataDirectory() {
        Path data = dir.resolve("data");
        if (Files.isDirectory(data.resolve("mysql"))) {
            return;
        }
        List<String> cmd = new ArrayList<>(List.of("bash", distribution.installDb().toString(), "--no-defaults",
                "--datadir=" + data, "--user=" + System.getProperty("user.name"),
                "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve",
                // its own tmpdir: parallel bootstraps sharing /tmp collide on temporary table names
                "--tmpdir=" + dir.resolve("tmp")));
        if (distribution.basedir() != null) {
            cmd.add("--basedir=" + distribution.basedir());
        }
        Path logFile = dir.resolve("log/install-db.log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(logFile.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(info.name() + ": mariadb-install-db did not finish in 120 s; see "
                        + logFile);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(info.name() + ": mariadb-install-db failed (exit " + p.exitValue()
                        + "): " + tail(logFile, 10));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(info.name() + ": cannot run " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while initializing " + info.name(), e);
        }
    }

    private void writeInitFile() {
        String sql = String.join("\n",
                "SET SESSION sql_log_bin=0;",
                "CREATE USER IF NOT EXISTS '" + info.adminUser() + "'@'%' IDENTIFIED BY '" + info.adminPassword() + "';",
                "GRANT ALL PRIVILEGES ON *.* TO '" + info.adminUser() + "'@'%' WITH GRANT OPTION;",
                "CREATE USER IF NOT EXISTS '" + info.replUser() + "'@'%' IDENTIFIED BY '" + info.replPassword() + "';",
                "GRANT REPLICATION SLAVE, BINLOG MONITOR, SELECT ON *.* TO '" + info.replUser() + "'@'%';",
                "GRANT ALL PRIVILEGES ON `__cdc__`.* TO '" + info.replUser() + "'@'%';",
                "");
        try {
            Files.writeString(dir.resolve("run/init.sql"), sql, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void launchAndAwaitReady() {
        List<String> cmd = new ArrayList<>();
        cmd.add(distribution.mariadbd().toString());
        cmd.add("--no-defaults");
        if (distribution.basedir() != null) {
            cmd.add("--basedir=" + distribution.basedir());
        }
        cmd.addAll(List.of(
                "--user=" + System.getProperty("user.name"),
                "--datadir=" + dir.resolve("data"),
                "--port=" + info.port(),
                "--bind-address=" + info.host(),
                "--socket=" + socketDir.resolve("mariadbd.sock"),
                "--pid-file=" + pidFile(),
                "--log-error=" + dir.resolve("log/error.log"),
                "--tmpdir=" + dir.resolve("tmp"),
                "--init-file=" + dir.resolve("run/init.sql"),
                "--server-id=" + info.serverId(),
                "--log-bin=" + dir.resolve("binlog/mariadb-bin"),
                "--log-bin-index=" + dir.resolve("binlog/mariadb-bin.index"),
                "--binlog-format=ROW",
                "--binlog-row-image=FULL",
                "--binlog-row-metadata=FULL",
                "--binlog-checksum=CRC32",
                "--skip-name-resolve",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci",
                "--max-allowed-packet=1G",
                "--max-connections=300",
                "--innodb-buffer-pool-size=64M",
                "--innodb-flush-log-at-trx-commit=2"));
        cmd.addAll(serverOptions);
        Path errorLog = dir.resolve("log/error.log");
        long errorLogStart = size(errorLog);
        try {
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("log/console.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(info.name() + ": cannot start " + distribution.mariadbd(), e);
        }
        LIVE.add(process);
        long deadline = System.nanoTime() + startTimeout.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String errors = tailFrom(errorLog, errorLogStart, 15);
                LIVE.remove(process);
                process = null;
                if (errors.contains("Address already in use") || errors.contains("Bind on TCP/IP port")) {
                    throw new PortTakenException(errors);
                }
                throw new IllegalStateException(info.name() + ": mariadbd exited during startup; " + errorLog
                        + " says:\n" + errors);
            }
            try (Connection c = DriverManager.getConnection(info.jdbcUrl() + "?connectTimeout=1000",
                    info.adminUser(), info.adminPassword());
                 Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT @@pid_file")) {
                // Another shard (of this JVM or a side-by-side one) may already listen on the port this
                // server failed to bind: only our own server, known by its pid file, counts as up.
                String pidFile = rs.next() ? rs.getString(1) : null;
                if (pidFile != null && Path.of(pidFile).equals(pidFile())) {
                    return;
                }
                last = new SQLException("port " + info.port() + " is served by another server (pid file " + pidFile + ")");
            } catch (SQLException e) {
                last = e;
            }
            sleep(100);
        }
        String errors = tailFrom(errorLog, errorLogStart, 15);
        kill();
        throw new IllegalStateException(info.name() + ": did not accept connections on port " + info.port()
                + " within " + startTimeout + " (last error: " + (last == null ? "none" : last.getMessage())
                + "); " + errorLog + " says:\n" + errors);
    }

    /**
     * Kills servers that an earlier JVM started under {@code baseDir} and left running because it was
     * itself killed. Servers this JVM started are left alone (two clusters may run side by side). Only processes whose command line carries the {@code --datadir} of a shard
     * directory under {@code baseDir} (marked as ours) are touched.
     *
     * @return how many processes were killed
     */
    public static int killStale(Path baseDir) {
        if (!Files.isDirectory(baseDir)) {
            return 0;
        }
        int killed = 0;
        try (Stream<Path> pidFiles = Files.find(baseDir, 4, (p, a) -> p.getFileName().toString().equals("mariadbd.pid")
                && Files.exists(p.getParent().getParent().resolve(MARKER)))) {
            for (Path pidFile : pidFiles.toList()) {
                Path shardDir = pidFile.getParent().getParent();
                long pid;
                try {
                    pid = Long.parseLong(Files.readString(pidFile).trim());
                } catch (IOException | NumberFormatException e) {
                    continue;
                }
                if (LIVE.stream().anyMatch(p -> p.pid() == pid)) {
                    continue; // started by this JVM and still in use: not stale
                }
                String datadirArg = "--datadir=" + shardDir.resolve("data");
                boolean ours = ProcessHandle.of(pid).flatMap(h -> h.info().arguments())
                        .map(args -> List.of(args).contains(datadirArg)).orElse(false);
                if (ours) {
                    log.warn("Killing stale shard server pid {} left behind in {}", pid, shardDir);
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                    killed++;
                }
            }
        } catch (IOException e) {
            log.warn("could not scan {} for stale shards: {}", baseDir, e.toString());
        }
        return killed;
    }

    /** The server's pid file: where it says it runs, and how the readiness probe knows it reached this server. */
    private Path pidFile() {
        return dir.resolve("run/mariadbd.pid");
    }

    private static ShardInfo withPort(ShardInfo i, int port) {
        return new ShardInfo(i.index(), i.name(), i.flavor(), i.host(), port, i.serverId(), i.adminUser(),
                i.adminPassword(), i.replUser(), i.replPassword());
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private static String tail(Path file, int lines) {
        return tailFrom(file, 0, lines);
    }

    private static String tailFrom(Path file, long from, int lines) {
        try {
            if (!Files.exists(file)) {
                return "(no " + file.getFileName() + ")";
            }
            byte[] all = Files.readAllBytes(file);
            String text = new String(all, (int) Math.min(from, all.length), (int) (all.length - Math.min(from, all.length)),
                    StandardCharsets.UTF_8);
            List<String> l = text.lines().toList();
            return String.join("\n", l.subList(Math.max(0, l.size() - lines), l.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a shard", e);
        }
    }

    private static final class PortTakenException extends RuntimeException {
        PortTakenException(String message) {
            super(message);
        }
    }
}
