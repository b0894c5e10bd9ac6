package io.tributary.test.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's first command, run for a few seconds: shards start, the load commits, status is printed, the printed
 * admin commands work as printed, the ports listen on 127.0.0.1 only, all stops and {@code --keep} leaves the global
 * binlog where it says; and {@code --help}.
 */
class QuickstartIT {

    private static final Pattern STATUS = Pattern.compile(
            "^load .*shard-0 mariadb-bin\\.\\d+:(\\d+) gtid 0-101-(\\d+) \\| shard-1 mariadb-bin\\.\\d+:(\\d+) gtid 0-102-(\\d+)"
                    + " \\| txns single-shard (\\d+), XA committed (\\d+), XA rolled back (\\d+)");

    @Test
    void shouldStartShardsRunTheSampleLoadPrintStatusAndStop() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread quickstart = new Thread(() -> {
            try {
                Quickstart.run(Quickstart.Options.parse("--duration=8", "--rate=50", "--status-interval=1", "--keep"),
                        out);
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "quickstart");
        quickstart.start();
        // while it runs: the printed admin commands work as printed, and the ports listen on 127.0.0.1 only
        String curl = awaitLine(buffer, "  curl -u ", quickstart);
        String mariadb = awaitLine(buffer, "  mariadb -h", quickstart);
        assertThat(curl).matches("  curl -u admin:admin-pass -X PUT -H 'Content-Type: text/plain' --data FORCE"
                + " http://127\\.0\\.0\\.1:\\d+/admin/config/storage\\.persist\\.mode");
        assertThat(mariadb).matches("  mariadb -h127\\.0\\.0\\.1 -P\\d+ -uadmin -padmin-pass -e \"SET GLOBAL"
                + " storage\\.persist\\.mode = 'AUTO'; SHOW VARIABLES LIKE 'storage%'\"");
        assertThat(shell(curl + " -sS")).contains("\"new\":\"FORCE\"", "\"old\":\"AUTO\"");
        String page = awaitLine(buffer, "Status page", quickstart).replaceAll(".*(http://\\S+)$", "$1");
        assertThat(page).matches("http://127\\.0\\.0\\.1:\\d+/");
        assertThat(shell("curl -sS " + page)).as("the printed status page").contains("<html").contains("status.json");
        assertThat(shell(mariadb)).contains("storage.persist.mode\tAUTO");
        int dumpPort = Integer.parseInt(mariadb.replaceAll(".* -P(\\d+) .*", "$1"));
        for (InetAddress other : nonLoopbackAddresses()) {
            assertThatThrownBy(() -> new Socket(other, dumpPort).close()).as("dump port on %s", other)
                    .isInstanceOf(IOException.class);
        }
        quickstart.join(120_000);
        assertThat(failed.get()).as("quickstart failed").isNull();
        String output = buffer.toString(StandardCharsets.UTF_8);

        Matcher kept = Pattern.compile("Kept the global binlog in (\\S+)").matcher(output);
        assertThat(kept.find()).as(output).isTrue();
        Path binlogDir = Path.of(kept.group(1));
        try {
            assertThat(binlogDir.resolve("binlog.000001")).isNotEmptyFile();
            assertThat(output).contains("read it with: mariadb-binlog --verbose " + binlogDir + "/binlog.000001");
        } finally {
            deleteTree(binlogDir.getParent());
        }

        assertThat(output).contains("shard-0", "shard-1", "mariadb-binlog --read-from-remote-server", "Stopped.");
        // the global binlog: every transaction the load committed, XA branches as one, written by the pipeline
        Matcher global = Pattern.compile("global binlog\\.\\d+:(\\d+), (\\d+) transactions").matcher(
                output.lines().filter(l -> l.startsWith("load ")).reduce((a, b) -> b).orElse(""));
        assertThat(global.find()).as("global binlog status in:%n%s", output).isTrue();
        assertThat(output).doesNotContain("FAILED");
        assertThat(output.lines()).as("the daemon's log line is the one status line").noneMatch(l -> l.startsWith("status"));
        List<Matcher> statuses = output.lines().map(STATUS::matcher).filter(Matcher::find).toList();
        assertThat(statuses).as("status lines in:%n%s", output).hasSizeGreaterThanOrEqualTo(3);
        Matcher last = statuses.get(statuses.size() - 1);
        long single = Long.parseLong(last.group(5));
        long xa = Long.parseLong(last.group(6));
        long xaRolledBack = Long.parseLong(last.group(7));
        assertThat(single).isGreaterThan(50);
        assertThat(xa + xaRolledBack).isGreaterThan(5);
        // every committed transaction got a GTID on its shard: single-shard ones on one shard, XA on both
        // (prepare and commit each take one), DDL too; so the shards' sequence numbers sum to at least that
        long seq0 = Long.parseLong(last.group(2));
        long seq1 = Long.parseLong(last.group(4));
        assertThat(seq0 + seq1).isGreaterThanOrEqualTo(single + 2 * xa);
        // one global transaction per single-shard transaction and per committed XA (plus the schema's DDL)
        assertThat(Long.parseLong(global.group(2))).as("global transactions").isGreaterThanOrEqualTo(single + xa);
    }

    @Test
    void shouldListEveryOptionOnHelpWithoutStarting() throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            Quickstart.main(new String[] {"--help"});
        } finally {
            System.setOut(stdout);
        }
        String help = buffer.toString(StandardCharsets.UTF_8);
        assertThat(help).startsWith("Tributary quickstart:").contains("Usage: ./mvnw -q -Pquickstart")
                .doesNotContain("starting");
        for (String option : List.of("--shards=N", "--rate=TPS", "--duration=SECONDS", "--status-interval=SECONDS",
                "--bind=ADDR", "--keep", "--help")) {
            assertThat(help).as("documents %s", option).contains("  " + option + " ");
            String name = option.split("=")[0];
            if (!name.equals("--help") && !name.equals("--keep")) {
                // every documented option is one the parser takes
                Quickstart.Options.parse(name + "=" + (name.equals("--bind") ? "127.0.0.1" : "1"));
            }
        }
        assertThat(Quickstart.Options.parse("--keep", "--bind=0.0.0.0")).satisfies(o -> {
            assertThat(o.keep()).isTrue();
            assertThat(o.bind()).isEqualTo("0.0.0.0");
            assertThat(o.connectHost()).isEqualTo("127.0.0.1");
        });
        assertThat(Quickstart.Options.parse().bind()).isEqualTo("127.0.0.1");
    }

    private static String awaitLine(ByteArrayOutputStream buffer, String prefix, Thread running) throws Exception {
        long deadline = System.nanoTime() + 180_000_000_000L;
        while (System.nanoTime() < deadline && running.isAlive()) {
            Optional<String> line = buffer.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith(prefix))
                    .findFirst();
            if (line.isPresent()) {
                return line.get();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no line starting with '" + prefix + "' in:\n" + buffer.toString(StandardCharsets.UTF_8));
    }

    /** Runs a printed command line as a user pastes it into bash; its output, after checking it succeeded. */
    private static String shell(String command) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", command.strip()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("%s%n%s", command, out).isZero();
        return out;
    }

    private static List<InetAddress> nonLoopbackAddresses() throws IOException {
        List<InetAddress> all = new ArrayList<>();
        for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (i.isUp() && !i.isLoopback()) {
                i.inetAddresses().filter(a -> a instanceof Inet4Address).forEach(all::add);
            }
        }
        return all;
    }

    private static void deleteTree(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Test
    void shouldRefuseABadOptionNamingItAndWhatIsAllowed() {
        assertThatThrownBy(() -> Quickstart.Options.parse("--shards=9"))
                .hasMessage("Invalid value 9 for --shards: must be 1 to 8");
        assertThatThrownBy(() -> Quickstart.Options.parse("--speed=3"))
                .hasMessageContaining("Unknown option --speed");
    }
}
