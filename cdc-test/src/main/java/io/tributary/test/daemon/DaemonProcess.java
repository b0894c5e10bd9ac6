package io.tributary.test.daemon;

import io.tributary.test.net.FreePorts;
import io.tributary.test.shard.ShardInfo;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Tributary daemon (the Spring Boot application users run) as a CHILD JVM, for end-to-end tests and
 * benchmarks: it can be killed with a real {@code kill -9}, restarted on the same directory, and its CPU
 * time and memory are its own. Its configuration is what a user would put in {@code application.yml},
 * given as {@code --key=value} arguments; its log goes to {@code dir/daemon-<n>.log}.
 *
 * <pre>
 * try (DaemonProcess daemon = DaemonProcess.builder(shards.infos(), dir).flavor("mariadb").start()) {
 *     daemon.awaitTransactions(100, Duration.ofSeconds(60));
 *     Map&lt;String, Double&gt; m = daemon.metrics();   // /actuator/prometheus, parsed
 *     daemon.kill9();
 *     daemon.restart();
 * }
 * </pre>
 *
 * <p>The dump port and management port are picked free once and kept across restarts (a replica
 * reconnects to the same port).
 */
public final class DaemonProcess implements AutoCloseable {

    /** The account the dump server accepts. */
    public static final String DUMP_USER = "tributary";
    public static final String DUMP_PASSWORD = "tributary-pass";
    /** The admin account (admin endpoints and {@code SET GLOBAL} on the dump port). */
    public static final String ADMIN_USER = "admin";
    public static final String ADMIN_PASSWORD = "admin-pass";

    private final Path dir;
    private final List<String> jvmOptions;
    private final String classesFirst;
    private final Path javaHome;
    private final Path execJar;
    private final Map<String, String> properties;
    private final int dumpPort;
    private final int managementPort;
    private final Duration startTimeout;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Process process;
    private int starts;
    private Path log;

    private DaemonProcess(Builder b) {
        this.dir = b.dir;
        this.jvmOptions = List.copyOf(b.jvmOptions);
        this.classesFirst = b.classesFirst;
        this.javaHome = b.javaHome;
        this.execJar = b.execJar;
        this.dumpPort = FreePorts.next();
        this.managementPort = FreePorts.next();
        this.startTimeout = b.startTimeout;
        Map<String, String> p = new LinkedHashMap<>();
        for (ShardInfo s : b.shards) {
            String k = "cdc.shards[" + s.index() + "].";
            p.put(k + "name", s.name());
            p.put(k + "host", s.host());
            p.put(k + "port", String.valueOf(s.port()));
            p.put(k + "user", s.replUser());
            p.put(k + "password", s.replPassword());
            p.put(k + "reader-server-id", String.valueOf(1_800_000_000L + 1000L * b.readerIdBlock + s.index()));
        }
        p.put("cdc.status.interval", "5s");
        p.put("cdc.overrides.file", dir.resolve("tributary-overrides.properties").toString());
        p.put("cdc.admin.user", ADMIN_USER);
        p.put("cdc.admin.password", ADMIN_PASSWORD);
        p.put("binlog.dir", dir.resolve("binlog").toString());
        p.put("binlog.server.id", "1");
        p.put("storage.path", dir.resolve("spill").toString());
        p.put("dump.port", String.valueOf(dumpPort));
        p.put("dump.users[0].name", DUMP_USER);
        p.put("dump.users[0].password", DUMP_PASSWORD);
        p.put("dump.users[1].name", ADMIN_USER);
        p.put("dump.users[1].password", ADMIN_PASSWORD);
        p.put("dump.users[1].admin", "true");
        p.put("server.port", String.valueOf(managementPort));
        p.put("spring.main.banner-mode", "off");
        p.putAll(b.properties);
        this.properties = p;
    }

    /** A daemon reading {@code shards}, keeping its files under {@code dir}. */
    public static Builder builder(List<ShardInfo> shards, Path dir) {
        return new Builder(shards, dir);
    }

    /** What to start. */
    public static final class Builder {
        private final List<ShardInfo> shards;
        private final Path dir;
        private final List<String> jvmOptions = new ArrayList<>(List.of("-Xmx1g"));
        private final Map<String, String> properties = new LinkedHashMap<>();
        private Duration startTimeout = Duration.ofSeconds(120);
        private int readerIdBlock;
        private String classesFirst;
        private Path javaHome = Path.of(System.getProperty("java.home"));
        private Path execJar;

        private Builder(List<ShardInfo> shards, Path dir) {
            this.shards = List.copyOf(shards);
            this.dir = dir;
        }

        /** {@code binlog.flavor}: mysql or mariadb. */
        public Builder flavor(String flavor) {
            return property("binlog.flavor", flavor);
        }

        /** Any configuration key, as in {@code application.yml}. */
        public Builder property(String key, String value) {
            properties.put(key, value);
            return this;
        }

        /** The child's maximum heap, e.g. {@code 512m} (default 1g). */
        public Builder heap(String size) {
            jvmOptions.removeIf(o -> o.startsWith("-Xmx"));
            jvmOptions.add("-Xmx" + size);
            return this;
        }

        public Builder jvmOption(String option) {
            jvmOptions.add(option);
            return this;
        }

        /**
         * Class path entries (separated by ':') put before this JVM's own, so that their classes win: another
         * build's {@code target/classes} directories, to run it beside this one (benchmarks).
         */
        public Builder classesFirst(String paths) {
            this.classesFirst = paths;
            return this;
        }

        /** The Java runtime to run the daemon on (default: this JVM's), e.g. a newer one beside it (benchmarks). */
        public Builder javaHome(Path home) {
            this.javaHome = home;
            return this;
        }

        /** Runs the runnable jar ({@code java -jar}, as the container image does) instead of this JVM's class path. */
        public Builder execJar(Path jar) {
            this.execJar = jar;
            return this;
        }

        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        /** Distinct reader server ids when several daemons read the same shards (default block 0). */
        public Builder readerIdBlock(int block) {
            this.readerIdBlock = block;
            return this;
        }

        /** Starts the daemon and waits until it is up. */
        public DaemonProcess start() throws IOException, InterruptedException {
            Files.createDirectories(dir);
            DaemonProcess d = new DaemonProcess(this);
            d.launch();
            return d;
        }
    }

    /** The {@code java} launcher of a Java home; a home without one is not a Java home. */
    public static Path javaBinary(Path javaHome) {
        return javaHome.resolve("bin").resolve("java");
    }

    private void launch() throws IOException, InterruptedException {
        starts++;
        log = dir.resolve("daemon-" + starts + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary(javaHome).toString());
        cmd.addAll(jvmOptions);
        if (execJar != null) {
            cmd.add("-jar");
            cmd.add(execJar.toString());
        } else {
            cmd.add("-cp");
            cmd.add(classesFirst == null ? System.getProperty("java.class.path")
                    : classesFirst + java.io.File.pathSeparator + System.getProperty("java.class.path"));
            cmd.add("io.tributary.daemon.TributaryApplication");
        }
        properties.forEach((k, v) -> cmd.add("--" + k + "=" + v));
        process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + startTimeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the daemon exited with " + process.exitValue() + " while starting; its log "
                        + log + " ends with:\n" + tail(60));
            }
            if (logContains("Tributary started")) {
                return;
            }
            Thread.sleep(200);
        }
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException("the daemon did not start within " + startTimeout + "; its log " + log
                + " ends with:\n" + tail(60));
    }

    /** Starts it again on the same directory and ports (after {@link #kill9} or {@link #stop}). */
    public void restart() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the daemon is still running (pid " + process.pid() + ")");
        }
        launch();
    }

    /** A real {@code kill -9}: no shutdown hook, no flush. Returns once the process is gone. */
    public void kill9() throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-9", Long.toString(process.pid())).start();
        kill.waitFor(10, TimeUnit.SECONDS);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("pid " + process.pid() + " survived kill -9");
        }
    }

    /** Graceful stop (SIGTERM: the daemon drains to a durable checkpoint); returns the exit code. */
    public int stop(Duration timeout) throws InterruptedException {
        if (process == null || !process.isAlive()) {
            return process == null ? 0 : process.exitValue();
        }
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException("the daemon did not stop within " + timeout + "; killed");
        }
        return process.exitValue();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    public int dumpPort() {
        return dumpPort;
    }

    public int managementPort() {
        return managementPort;
    }

    public Path directory() {
        return dir;
    }

    /** The current run's log file. */
    public Path logFile() {
        return log;
    }

    public boolean logContains(String text) {
        try {
            return Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    /** The last {@code lines} lines of the current run's log. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** GET on the management port; the body (for any status). */
    public String get(String path) throws IOException, InterruptedException {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
                .timeout(Duration.ofSeconds(10)).GET().build();
        return http.send(r, HttpResponse.BodyHandlers.ofString()).body();
    }

    /**
     * {@code /actuator/prometheus}, parsed: series name with its labels exactly as printed (e.g.
     * {@code tributary_delay_milliseconds{shard="shard-0"}}) to value.
     */
    public Map<String, Double> metrics() throws IOException, InterruptedException {
        Map<String, Double> m = new LinkedHashMap<>();
        for (String line : get("/actuator/prometheus").split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            try {
                m.put(line.substring(0, sp), Double.parseDouble(line.substring(sp + 1)));
            } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                // not a sample line
            }
        }
        return m;
    }

    /** The sum of every series of metric {@code name} (any labels); 0 when absent. */
    public static double sum(Map<String, Double> metrics, String name) {
        double s = 0;
        for (Map.Entry<String, Double> e : metrics.entrySet()) {
            String k = e.getKey();
            if ((k.equals(name) || k.startsWith(name + "{")) && !e.getValue().isNaN()) {
                s += e.getValue();
            }
        }
        return s;
    }

    /** Waits until the daemon has written at least {@code n} global transactions in its current run. */
    public void awaitTransactions(long n, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        double seen = 0;
        while (System.nanoTime() < deadline) {
            seen = sum(metrics(), "tributary_binlog_transactions_total");
            if (seen >= n) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the daemon wrote " + seen + " transactions, not " + n + ", within " + timeout
                + "; its log ends with:\n" + tail(40));
    }

    /** CPU seconds (user + system) the current run has used, from {@code /proc/<pid>/stat}. */
    public double cpuSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        return ticks / 100.0; // USER_HZ is 100 on Linux
    }

    /** Peak resident set size of the current run in bytes ({@code VmHWM}). */
    public long rssPeakBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        return -1;
    }

    /** Stops the daemon gracefully (killing it if it does not stop within a minute). */
    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            try {
                stop(Duration.ofSeconds(60));
            } catch (IllegalStateException e) {
                // killed; nothing more to do
            }
        }
    }
}
