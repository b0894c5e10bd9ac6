package io.tributary.test.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real CDC client (one of the applications in {@code cdc-clients}) as a child JVM on its own classpath, the one
 * its module's build wrote to {@code target/classpath.txt}: what it prints (one JSON change event per line) is
 * collected as {@link ChangeRow}s; its stderr goes to a file. Without the module's build output the test is
 * skipped, saying which command builds it (CI's {@code ./mvnw verify} builds it before cdc-test).
 */
final class CdcClient implements AutoCloseable {
    private static final Path CLIENTS = Path.of("..", "cdc-clients").toAbsolutePath().normalize();
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String name;
    private final Process process;
    private final Path stderr;
    private final List<ChangeRow> rows = new ArrayList<>();
    private final List<String> others = new ArrayList<>();
    private volatile JsonNode stopped;

    private CdcClient(String name, Process process, Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(this::read, name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code mainClass} of module {@code cdc-clients/<module>} with {@code args}; its stderr goes to
     * {@code dir/<name>.err} (appended across restarts).
     */
    static CdcClient start(String module, String mainClass, List<String> args, Path dir, String name)
            throws IOException {
        Path target = CLIENTS.resolve(module).resolve("target");
        Path classpath = target.resolve("classpath.txt");
        Assumptions.assumeTrue(Files.exists(classpath) && Files.isDirectory(target.resolve("classes")),
                () -> "the client cdc-clients/" + module + " is not built (" + classpath + " is absent); build it with"
                        + " ./mvnw -pl cdc-clients/" + module + " -am install -DskipTests");
        String cp = target.resolve("classes") + java.io.File.pathSeparator + Files.readString(classpath).strip();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-cp", cp, mainClass));
        cmd.addAll(args);
        Files.createDirectories(dir);
        Path err = dir.resolve(name + ".err");
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(err.toFile())).start();
        return new CdcClient(name, p, err);
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String text = line.strip();
                if (!text.startsWith("{")) {
                    synchronized (this) {
                        others.add(text);
                    }
                    continue;
                }
                JsonNode node = JSON.readTree(text);
                if (node.has("stopped")) {
                    stopped = node;
                    continue;
                }
                ChangeRow row = ChangeRow.of(node);
                synchronized (this) {
                    if (row != null) {
                        rows.add(row);
                    } else {
                        others.add(text);
                    }
                }
            }
        } catch (IOException e) {
            synchronized (this) {
                others.add("stdout unreadable: " + e);
            }
        }
    }

    /** The row changes printed so far, in the order printed. */
    synchronized List<ChangeRow> rows() {
        return List.copyOf(rows);
    }

    /**
     * Waits until {@code n} printed row changes match {@code wanted}; fails at once, with the client's reason, if the
     * client stopped, and after {@code timeout} with what it printed and its last stderr lines.
     */
    List<ChangeRow> awaitRows(Predicate<ChangeRow> wanted, int n, Duration timeout, String daemonLog)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<ChangeRow> got = rows().stream().filter(wanted).toList();
            if (got.size() >= n) {
                return got;
            }
            if (stopped != null || !process.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError(name + (stopped != null ? " stopped: " + stopped
                        : !process.isAlive() ? " exited with " + process.exitValue() : " timed out after " + timeout)
                        + "; it printed " + got.size() + " of " + n + " wanted row changes (" + rows().size()
                        + " in all)\n--- its stderr ends with:\n" + stderrTail(40) + "\n--- the daemon's log ends with:\n"
                        + daemonLog);
            }
            Thread.sleep(200);
        }
    }

    /** Waits {@code quiet} and returns the rows printed meanwhile matching {@code wanted} (none expected). */
    List<ChangeRow> rowsAfterQuiet(Predicate<ChangeRow> wanted, int already, Duration quiet) throws InterruptedException {
        Thread.sleep(quiet.toMillis());
        List<ChangeRow> got = rows().stream().filter(wanted).toList();
        return got.subList(Math.min(already, got.size()), got.size());
    }

    /**
     * Waits until the client says {@code text}, in its log (stderr) or in the reason it stopped with; returns where it
     * said it. Fails after {@code timeout} with its last stderr lines.
     */
    String awaitSaying(String text, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode end = stopped;
            if (end != null && end.toString().contains(text)) {
                return end.toString();
            }
            String err = stderr();
            int at = err.indexOf(text);
            if (at >= 0) {
                int from = err.lastIndexOf('\n', at) + 1;
                int to = err.indexOf('\n', at);
                return err.substring(from, to < 0 ? err.length() : to);
            }
            Thread.sleep(250);
        }
        throw new AssertionError(name + " did not say '" + text + "' within " + timeout + "; its stderr ends with:\n"
                + stderrTail(40));
    }

    /** Fails, with the client's reason and the daemon's log, if the client has stopped. */
    void assertRunning(String daemonLog) {
        if (stopped != null || !process.isAlive()) {
            throw new AssertionError(name + (stopped != null ? " stopped: " + stopped : " exited with "
                    + process.exitValue()) + "\n--- its stderr ends with:\n" + stderrTail(60)
                    + "\n--- the daemon's log ends with:\n" + daemonLog);
        }
    }

    String stderrTail(int lines) {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** The whole stderr (for searching the client's own log). */
    String stderr() throws IOException {
        return Files.readString(stderr, StandardCharsets.UTF_8);
    }

    /** Asks the client to shut down as an application does (stdin "stop"); kills it after {@code timeout}. */
    void stop(Duration timeout) throws InterruptedException {
        try (OutputStream in = process.getOutputStream()) {
            in.write("stop\n".getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // already gone
        }
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(name + " did not stop within " + timeout + "; killed. stderr:\n" + stderrTail(30));
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
