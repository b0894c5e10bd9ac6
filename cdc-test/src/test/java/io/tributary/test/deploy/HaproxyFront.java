package io.tributary.test.deploy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * deploy/haproxy/haproxy.cfg as the tests use it: the checked-in file, found HAProxy executable, and a copy
 * with the test's own addresses in place of the twins' compose names and the fixed ports (the file is kept as
 * users run it).
 */
public final class HaproxyFront {

    static final Path CONFIG = Path.of("../deploy/haproxy/haproxy.cfg");
    private static final Pattern BIND = Pattern.compile("(?m)^(\\s*bind )\\S+$");
    private static final Pattern SERVER = Pattern.compile(
            "(?m)^(\\s*server (twin-[ab]) )tributary-([ab]):3399( check port )9400(.*)$");

    private HaproxyFront() {
    }

    /** The haproxy executable on the PATH or in /usr/sbin, if any. */
    public static Optional<Path> executable() {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/local/sbin";
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "haproxy"))) {
                return Optional.of(Path.of(dir, "haproxy"));
            }
        }
        return Optional.empty();
    }

    public static String checkedIn() throws IOException {
        if (!Files.exists(CONFIG)) {
            throw new AssertionError(CONFIG.toAbsolutePath() + " does not exist");
        }
        return Files.readString(CONFIG);
    }

    /**
     * The checked-in configuration with its listener on {@code 127.0.0.1:front} and twin A/B at
     * {@code 127.0.0.1:dump[i]}, health-checked on {@code 127.0.0.1:management[i]}.
     */
    public static String withPorts(String config, int front, int[] dump, int[] management) {
        Matcher bind = BIND.matcher(config);
        if (!bind.find() || bind.find()) {
            throw new AssertionError("haproxy.cfg must have exactly one bind line:\n" + config);
        }
        String out = BIND.matcher(config).replaceFirst("$1127.0.0.1:" + front);
        Matcher server = SERVER.matcher(out);
        StringBuilder sb = new StringBuilder();
        int found = 0;
        while (server.find()) {
            int i = server.group(3).equals("a") ? 0 : 1;
            server.appendReplacement(sb, Matcher.quoteReplacement(server.group(1) + "127.0.0.1:" + dump[i]
                    + server.group(4) + management[i] + server.group(5)));
            found++;
        }
        server.appendTail(sb);
        if (found != 2) {
            throw new AssertionError("haproxy.cfg must have the two server lines 'server twin-a tributary-a:3399 check"
                    + " port 9400 ...' and twin-b; found " + found);
        }
        return sb.toString();
    }

    /** Waits until haproxy listens on {@code port}; fails with its log when it exits or does not in 15 s. */
    public static void awaitListening(int port, Process proxy, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!proxy.isAlive()) {
                throw new AssertionError("haproxy exited with " + proxy.exitValue() + ": " + Files.readString(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("haproxy does not listen on " + port + ": " + Files.readString(log));
    }

    /** Waits until haproxy's log holds {@code text}; fails with the log's tail after {@code timeout}. */
    public static void awaitLog(Path log, String text, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.readString(log).contains(text)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("haproxy's log has no '" + text + "' after " + timeout + ":\n" + HaproxyTwinsIT.tail(Files.readString(log)));
    }
}
