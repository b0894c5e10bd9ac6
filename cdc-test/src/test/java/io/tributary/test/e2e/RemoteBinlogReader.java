package io.tributary.test.e2e;

import io.tributary.test.daemon.DaemonProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code mariadb-binlog --read-from-remote-server --stop-never --verbose} on one address (HAProxy's), and the
 * operator who restarts it: the client exits when its connection drops (a twin killed), so each time it does, the
 * text it printed is cut at the start of the last transaction it began (that one may be incomplete) and the client
 * is started again from that transaction's file and position ({@code --start-position}), through the same address,
 * after half a second (HAProxy may still send it to the dead twin for a few seconds: that run fails and the next
 * one tries again).
 * The twins write byte-identical files, so the position is the same on whichever twin the address leads to. Each
 * run's output is kept in {@code dir/session-N.txt} (its errors in {@code .err}); {@link #close} joins them, the last
 * one whole, into one text, which holds every transaction read exactly once.
 */
final class RemoteBinlogReader implements AutoCloseable {

    /** One run of the client: where it started, how it ended and where the next one starts. */
    record Session(int number, String file, long position, int exit, String resumeFile, long resumePosition,
            String error) {
    }

    private static final Pattern ROTATE = Pattern.compile("\\bRotate to (\\S+)\\s+pos: (\\d+)");
    private static final Pattern END = Pattern.compile("^#\\d{6}\\s.*\\bend_log_pos (\\d+)\\b");
    private static final Pattern GTID = Pattern.compile("^#.*\\bGTID \\d+-\\d+-\\d+\\b");

    private final Path tool;
    private final int port;
    private final Path dir;
    private final List<Session> sessions = new ArrayList<>();
    private final List<Path> texts = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Process process;
    private volatile Path current;
    private volatile Throwable failure;
    private String file;
    private long position;

    RemoteBinlogReader(Path tool, int port, String firstFile, Path dir) throws IOException {
        this.tool = tool;
        this.port = port;
        this.dir = Files.createDirectories(dir);
        try (java.util.stream.Stream<Path> old = Files.list(dir)) {
            for (Path f : old.filter(f -> f.getFileName().toString().startsWith("session-")).toList()) {
                Files.delete(f);
            }
        }
        this.file = firstFile;
        this.position = 4;
        this.thread = new Thread(this::run, "remote-binlog-reader");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (running) {
                int n;
                synchronized (this) {
                    n = sessions.size() + 1;
                }
                Path out = dir.resolve("session-" + n + ".txt");
                Path err = dir.resolve("session-" + n + ".err");
                String startFile = file;
                long startPosition = position;
                Process p = new ProcessBuilder(tool.toString(), "--no-defaults", "--read-from-remote-server",
                        "--host=127.0.0.1", "--port=" + port, "--user=" + DaemonProcess.DUMP_USER,
                        "--password=" + DaemonProcess.DUMP_PASSWORD, "--verbose", "--base64-output=DECODE-ROWS",
                        "--stop-never", "--start-position=" + startPosition, startFile)
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                synchronized (this) {
                    process = p;
                    current = out;
                    texts.add(out);
                }
                int exit = p.waitFor();
                if (!running) {
                    synchronized (this) {
                        sessions.add(new Session(n, startFile, startPosition, exit, null, -1, ""));
                    }
                    return;
                }
                cutAtLastTransaction(out);
                synchronized (this) {
                    sessions.add(new Session(n, startFile, startPosition, exit, file, position,
                            Files.readString(err).strip()));
                }
                Thread.sleep(500);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            failure = e;
        }
    }

    /**
     * Cuts {@code text} before the {@code # at} line of its last GTID event and makes that event's file and position
     * the next start; a text without a GTID event is kept and the start stays. The position is the {@code end_log_pos}
     * of the event printed before the GTID event (the client's {@code # at} lines count on across files, so they do
     * not give it); the fake rotate and format description events a dump begins with say 0 and are passed over.
     */
    private void cutAtLastTransaction(Path text) throws IOException {
        String file = this.file;
        long lastEnd = this.position;
        long lastAtOffset = -1;
        String cutFile = null;
        long cutPosition = -1;
        long cutOffset = -1;
        long offset = 0;
        try (BufferedReader r = Files.newBufferedReader(text, StandardCharsets.ISO_8859_1)) {
            String line;
            while ((line = r.readLine()) != null) {
                long lineStart = offset;
                offset += line.length() + 1;
                if (line.startsWith("# at ")) {
                    lastAtOffset = lineStart;
                    continue;
                }
                Matcher rotate = ROTATE.matcher(line);
                if (rotate.find()) {
                    file = rotate.group(1);
                }
                if (GTID.matcher(line).find() && lastAtOffset >= 0) {
                    cutFile = file;
                    cutPosition = lastEnd;
                    cutOffset = lastAtOffset;
                }
                Matcher end = END.matcher(line);
                if (end.find() && Long.parseLong(end.group(1)) > 0) {
                    lastEnd = Long.parseLong(end.group(1));
                }
            }
        }
        if (cutFile != null) {
            try (FileChannel ch = FileChannel.open(text, StandardOpenOption.WRITE)) {
                ch.truncate(cutOffset);
            }
            this.file = cutFile;
            this.position = cutPosition;
        }
    }

    /** Until the running client has printed the transaction of GTID {@code gtid} to its end ({@code COMMIT}). */
    void awaitTransaction(String gtid, java.time.Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (failure != null) {
                throw new AssertionError("the remote reader's operator failed", failure);
            }
            Path text = current;
            if (text != null && Files.exists(text)) {
                String tail = tail(text, 1 << 20);
                int at = tail.indexOf("GTID " + gtid + " ");
                if (at < 0) {
                    at = tail.indexOf("GTID " + gtid + "\n");
                }
                if (at >= 0 && tail.indexOf("COMMIT/*!*/;", at) > 0) {
                    return;
                }
            }
            Thread.sleep(500);
        }
        throw new AssertionError("mariadb-binlog through HAProxy did not print transaction " + gtid + " within "
                + timeout + "; sessions: " + sessions());
    }

    synchronized List<Session> sessions() {
        return List.copyOf(sessions);
    }

    /** Stops the client and joins what every run printed (each cut as described) into {@code into}. */
    Path joinInto(Path into) throws IOException, InterruptedException {
        close();
        Files.deleteIfExists(into);
        Files.createFile(into);
        try (FileChannel out = FileChannel.open(into, StandardOpenOption.APPEND)) {
            for (Path t : List.copyOf(texts)) {
                try (FileChannel in = FileChannel.open(t, StandardOpenOption.READ)) {
                    in.transferTo(0, in.size(), out);
                }
            }
        }
        return into;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        Process p = process;
        if (p != null && p.isAlive()) {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        thread.join(10_000);
    }

    private static String tail(Path text, int bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(text.toFile(), "r")) {
            long from = Math.max(0, f.length() - bytes);
            byte[] b = new byte[(int) (f.length() - from)];
            f.seek(from);
            f.readFully(b);
            return new String(b, StandardCharsets.ISO_8859_1);
        }
    }
}
