package io.tributary.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.storage.buffer.PersistMode;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.context.ConfigurationPropertiesAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Startup refuses a bad configuration with a message naming every key, value and what is allowed. */
class TributaryConfigTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ConfigurationPropertiesAutoConfiguration.class))
            .withUserConfiguration(TributaryConfiguration.class);

    private static final String[] ONE_SHARD = {
        "cdc.shards[0].name=shard-0", "cdc.shards[0].host=127.0.0.1", "cdc.shards[0].port=3311",
        "cdc.shards[0].user=tributary", "cdc.shards[0].password=secret"};

    @Test
    void shouldStartWithOneShardAndDefaultsEverywhereElse() {
        runner.withPropertyValues(ONE_SHARD).run(context -> {
            assertThat(context).hasNotFailed();
            TributaryConfig config = context.getBean(TributaryConfig.class);
            assertThat(config.shards()).singleElement().satisfies(s -> {
                assertThat(s.name()).isEqualTo("shard-0");
                assertThat(s.port()).isEqualTo(3311);
                assertThat(s.toString()).doesNotContain("secret");
            });
            assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofMillis(100));
            assertThat(config.xaMaxWait()).isEqualTo(Duration.ofSeconds(60));
            assertThat(config.dumpPort()).isEqualTo(3399);
            assertThat(config.persist().mode()).isEqualTo(PersistMode.AUTO);
            assertThat(config.persist().newThreshold()).isEqualTo(0.85);
            assertThat(config.binlog().fileSizeBytes()).isEqualTo(500L << 20);
        });
    }

    @Test
    void shouldRefuseToStartListingEveryBadValueWithItsKeyAndWhatIsAllowed() {
        runner.withPropertyValues(ONE_SHARD)
                .withPropertyValues("storage.persist.mode=SOMETIMES", "storage.persistAllThreshold=1.5",
                        "binlog.flavor=oracle", "dump.port=3306", "cdc.heartbeat.interval=soon",
                        "cdc.shards[1].host=", "cdc.shards[1].user=u", "cdc.shards[1].password-env=NO_SUCH_VARIABLE_X")
                .run(context -> {
                    assertThat(context).hasFailed();
                    TributaryConfigException e = rootCause(context.getStartupFailure());
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value SOMETIMES for configuration storage.persist.mode:"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value 1.5 for configuration storage.persistAllThreshold:"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .isEqualTo("Invalid value oracle for configuration binlog.flavor: must be mysql or mariadb"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value 3306 for configuration dump.port:"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .isEqualTo("Invalid value soon for configuration cdc.heartbeat.interval: not a duration (e.g. 100ms, 10s, 5m)"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value  for configuration cdc.shards[1].host:"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p).isEqualTo("Invalid value NO_SUCH_VARIABLE_X"
                            + " for configuration cdc.shards[1].password-env: the environment variable NO_SUCH_VARIABLE_X is not set"));
                    assertThat(e.problems()).hasSize(7);
                });
    }

    @Test
    void shouldRefuseANewThresholdAboveTheAllThresholdAndDuplicateShardNames() {
        runner.withPropertyValues(ONE_SHARD)
                .withPropertyValues("storage.persistNewThreshold=0.97", "storage.persistAllThreshold=0.9",
                        "cdc.shards[1].name=shard-0", "cdc.shards[1].host=h", "cdc.shards[1].user=u",
                        "cdc.shards[1].password=p")
                .run(context -> {
                    TributaryConfigException e = rootCause(context.getStartupFailure());
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value 0.97 for configuration storage.persistNewThreshold: must not exceed"));
                    assertThat(e.problems()).contains(
                            "Invalid value shard-0 for configuration cdc.shards[1].name: another shard already has this name");
                });
    }

    @Test
    void shouldRefuseToStartWithoutShards() {
        runner.run(context -> assertThat(rootCause(context.getStartupFailure()).problems()).containsExactly(
                "Invalid value (none) for configuration cdc.shards: at least one shard is required:"
                        + " cdc.shards[0].host, .port, .user, .password"));
    }

    @Test
    void shouldResolveAPasswordFromTheEnvironmentVariableItNames() {
        var env = new org.springframework.mock.env.MockEnvironment();
        Map.of("cdc.shards[0].host", "h", "cdc.shards[0].user", "u", "cdc.shards[0].password-env", "SHARD0_PW")
                .forEach(env::setProperty);
        TributaryConfig config = new TributaryConfigLoader(env, name -> name.equals("SHARD0_PW") ? "from-env" : null).load();
        assertThat(config.shards().get(0).password()).isEqualTo("from-env");
    }

    private static TributaryConfigException rootCause(Throwable t) {
        Throwable c = t;
        while (c != null && !(c instanceof TributaryConfigException)) {
            c = c.getCause();
        }
        assertThat(c).as("a TributaryConfigException in %s", t).isNotNull();
        return (TributaryConfigException) c;
    }
}
