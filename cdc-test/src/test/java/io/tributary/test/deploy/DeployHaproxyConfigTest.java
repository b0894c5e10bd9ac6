package io.tributary.test.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.daemon.dump.DumpServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/haproxy/haproxy.cfg as a user relies on it without starting anything: HAProxy accepts it, it listens on
 * the daemon's dump port, checks the health endpoint the daemon exposes on its management port, puts twin B
 * behind twin A and does not time out a quiet replication connection before the daemon itself would. The live
 * behaviour (a client through it, failover after a kill -9) is {@code HaproxyTwinsIT}.
 */
class DeployHaproxyConfigTest {

    private static final Pattern TIMEOUT = Pattern.compile("(?m)^\\s*timeout (client|server|tunnel) (\\d+)(ms|s|m|h|d)?\\s*$");

    @Test
    void shouldBeAcceptedByHaproxyAsCheckedInAndWithTheTestsPorts(@TempDir Path dir) throws Exception {
        Path haproxy = HaproxyFront.executable().orElse(null);
        assumeTrue(haproxy != null, "haproxy is not installed (apt-get install haproxy; .ci/run installs it)");
        assertThat(check(haproxy, HaproxyFront.CONFIG)).isEmpty();
        Path copy = dir.resolve("haproxy.cfg");
        Files.writeString(copy, HaproxyFront.withPorts(HaproxyFront.checkedIn(), 23399, new int[] {23401, 23402},
                new int[] {29401, 29402}));
        assertThat(check(haproxy, copy)).isEmpty();
        // and a broken file is refused, so the two checks above mean something
        Path broken = dir.resolve("broken.cfg");
        Files.writeString(broken, HaproxyFront.checkedIn().replace("mode tcp", "mode tcpp"));
        assertThat(check(haproxy, broken)).isNotEmpty();
    }

    @Test
    void shouldFrontTheDumpPortAndCheckTheHealthEndpointOfTheManagementPort() throws IOException {
        String cfg = HaproxyFront.checkedIn();
        assertThat(cfg).containsPattern("(?m)^\\s*bind :" + DumpServerConfig.DEFAULT_PORT + "$")
                .containsPattern("(?m)^\\s*mode tcp$");
        Properties defaults = new Properties();
        try (InputStream in = DumpServerConfig.class.getResourceAsStream("/application.properties")) {
            assertThat(in).as("the daemon's application.properties").isNotNull();
            defaults.load(in);
        }
        String managementPort = defaults.getProperty("server.port");
        assertThat(managementPort).isNotNull();
        assertThat(defaults.getProperty("management.endpoints.web.exposure.include")).contains("health");
        assertThat(cfg).containsPattern("(?m)^\\s*server twin-a tributary-a:" + DumpServerConfig.DEFAULT_PORT
                + " check port " + managementPort + "\\b(?!.*\\bbackup\\b).*$");
        assertThat(cfg).containsPattern("(?m)^\\s*server twin-b tributary-b:" + DumpServerConfig.DEFAULT_PORT
                + " check port " + managementPort + "\\b.*\\bbackup\\b.*$");
        assertThat(cfg).containsPattern("(?m)^\\s*option httpchk$")
                .containsPattern("(?m)^\\s*http-check send meth GET uri /actuator/health\\b")
                .containsPattern("(?m)^\\s*http-check expect status 200$")
                .containsPattern("(?m)^\\s*default-server .*\\bon-marked-down shutdown-sessions\\b");
    }

    @Test
    void shouldNotCutAQuietReplicationConnectionBeforeTheDaemonWould() throws IOException {
        Duration daemonIdle = DumpServerConfig.IDLE_TIMEOUT.parse(DumpServerConfig.IDLE_TIMEOUT.defaultText());
        Matcher m = TIMEOUT.matcher(HaproxyFront.checkedIn());
        List<String> seen = new java.util.ArrayList<>();
        while (m.find()) {
            seen.add(m.group(1));
            assertThat(duration(m.group(2), m.group(3))).as("timeout %s", m.group(1)).isGreaterThanOrEqualTo(daemonIdle);
        }
        assertThat(seen).containsExactlyInAnyOrder("client", "server", "tunnel");
    }

    /** HAProxy's units; none means milliseconds. */
    private static Duration duration(String n, String unit) {
        long v = Long.parseLong(n);
        return switch (unit == null ? "ms" : unit) {
            case "s" -> Duration.ofSeconds(v);
            case "m" -> Duration.ofMinutes(v);
            case "h" -> Duration.ofHours(v);
            case "d" -> Duration.ofDays(v);
            default -> Duration.ofMillis(v);
        };
    }

    /** {@code haproxy -c -f file}: empty when valid, else HAProxy's output. */
    private static String check(Path haproxy, Path file) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(haproxy.toString(), "-c", "-f", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return p.exitValue() == 0 ? "" : "exit " + p.exitValue() + ": " + out;
    }
}
