package io.tributary.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refused start as a user sees it: the daemon's main in its own JVM, with a configuration mistake and a shard
 * nobody listens on. Both are reported in the one refusal, and Spring's framing around Tributary's message (the
 * context warning that repeats it, "APPLICATION FAILED TO START") is gone.
 */
class StartupRefusalTest {

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void shouldReportTheConfigurationMistakeAndTheShardProblemInOneRefusalWithoutSpringNoise(@TempDir Path dir)
            throws Exception {
        int port = closedPort();
        MainProcess r = MainProcess.run(TributaryApplication.class, List.of(
                "--cdc.shards[0].host=127.0.0.1", "--cdc.shards[0].port=" + port, "--cdc.shards[0].user=repl",
                "--cdc.shards[0].password=pw", "--dump.users[0].name=repl", "--dump.users[0].password=repl-pw",
                "--binlog.flavor=oracle", "--binlog.dir=" + dir.resolve("binlog"), "--server.port=0",
                "--cdc.overrides.file=" + dir.resolve("overrides.properties")));

        assertThat(r.exitCode()).as(r.output()).isNotZero();
        assertThat(r.output()).as(r.output())
                .contains("Tributary refused to start. 2 configuration problem(s):")
                .contains("Invalid value oracle for configuration binlog.flavor: must be mysql or mariadb")
                .contains("shard shard-0 (127.0.0.1:" + port + "): cannot connect")
                .contains("Fix what is listed above")
                .doesNotContain("APPLICATION FAILED TO START")
                .doesNotContain(":: Spring Boot ::")
                .doesNotContain("Exception encountered during context initialization")
                .doesNotContain("condition evaluation report")
                .doesNotContain("\tat org.springframework");
        assertThat(r.output().split("Invalid value oracle", -1)).as("said once").hasSize(2);
    }
}
