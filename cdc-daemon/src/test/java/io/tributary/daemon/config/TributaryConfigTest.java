package io.tributary.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.config.ConfigurationException;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
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
        "cdc.shards[0].user=tributary", "cdc.shards[0].password=secret",
        "dump.users[0].name=repl", "dump.users[0].password=repl-secret"};

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
            assertThat(config.heartbeatIdleInterval()).isEqualTo(Duration.ofSeconds(1));
            assertThat(config.xaMaxWait()).isEqualTo(Duration.ofSeconds(60));
            assertThat(config.dumpPort()).isEqualTo(3399);
            assertThat(config.dump().maxConnections()).isEqualTo(1000);
            assertThat(config.dump().authTimeout()).isEqualTo(Duration.ofSeconds(10));
            assertThat(config.dump().idleTimeout()).isEqualTo(Duration.ofHours(8));
            assertThat(config.dump().cacheBytes()).isEqualTo(256L << 20);
            assertThat(config.dump().subscriberBufferBytes()).isEqualTo(1 << 20);
            assertThat(config.dump().tlsEnabled()).as("TLS on, with a generated certificate").isTrue();
            assertThat(config.dump().tlsCertificate()).isNull();
            assertThat(config.dump().flavor()).isEqualTo(BinlogFlavor.MYSQL);
            assertThat(config.dump().serverId()).isEqualTo(1);
            assertThat(config.naming().database("shop_03")).isEqualTo("shop");
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
                        "cdc.heartbeat.idleInterval=2m",
                        "cdc.shards[1].host=", "cdc.shards[1].user=u", "cdc.shards[1].password-env=NO_SUCH_VARIABLE_X")
                .run(context -> {
                    assertThat(context).hasFailed();
                    ConfigurationException e = rootCause(context.getStartupFailure());
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
                            .startsWith("Invalid value 2m for configuration cdc.heartbeat.idleInterval:"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value  for configuration cdc.shards[1].host:"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p).isEqualTo("Invalid value NO_SUCH_VARIABLE_X"
                            + " for configuration cdc.shards[1].password-env: the environment variable NO_SUCH_VARIABLE_X is not set"));
                    assertThat(e.problems()).hasSize(8);
                });
    }

    @Test
    void shouldRefuseANewThresholdAboveTheAllThresholdAndDuplicateShardNames() {
        runner.withPropertyValues(ONE_SHARD)
                .withPropertyValues("storage.persistNewThreshold=0.97", "storage.persistAllThreshold=0.9",
                        "cdc.shards[1].name=shard-0", "cdc.shards[1].host=h", "cdc.shards[1].user=u",
                        "cdc.shards[1].password=p")
                .run(context -> {
                    ConfigurationException e = rootCause(context.getStartupFailure());
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value 0.97 for configuration storage.persistNewThreshold: must not exceed"));
                    assertThat(e.problems()).contains(
                            "Invalid value shard-0 for configuration cdc.shards[1].name: another shard already has this name");
                });
    }

    @Test
    void shouldRefuseToStartWithoutDumpAccountsNamingTheKey() {
        runner.withPropertyValues(java.util.Arrays.copyOf(ONE_SHARD, 5)).run(context -> assertThat(
                rootCause(context.getStartupFailure()).problems()).containsExactly("Invalid value (none) for configuration"
                + " dump.users: at least one account is required: dump.users[0].name and dump.users[0].password"
                + " (or .password-env); replicas and CDC tools log in with it"));
    }

    @Test
    void shouldReadTheDumpKeysWithTheBinlogFlavorAndKeepOnlyPasswordHashes() {
        runner.withPropertyValues(ONE_SHARD)
                .withPropertyValues("binlog.flavor=mariadb", "binlog.server.id=42", "dump.host=127.0.0.1",
                        "dump.port=4400", "dump.maxConnections=5", "dump.authTimeout=500ms", "dump.idleTimeout=2s",
                        "dump.cache.size=0", "dump.subscriber.buffer=256KB", "dump.tls.enabled=false",
                        "dump.checksums=every-read",
                        "dump.users[0].admin=true", "dump.users[1].name=reader", "dump.users[1].password=other-secret",
                        "cdc.naming.strip-trailing-digits=false", "cdc.naming.rules[0].scope=table",
                        "cdc.naming.rules[0].pattern=t_order_(\\d{4})_\\d{2}", "cdc.naming.rules[0].replacement=t_order_$1",
                        "cdc.naming.rules[1].scope=DATABASE", "cdc.naming.rules[1].pattern=shop_\\d+",
                        "cdc.naming.rules[1].replacement=shop")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    TributaryConfig config = context.getBean(TributaryConfig.class);
                    DumpServerConfig dump = config.dump();
                    assertThat(dump.flavor()).isEqualTo(BinlogFlavor.MARIADB);
                    assertThat(dump.serverId()).isEqualTo(42);
                    assertThat(dump.bindHost()).isEqualTo("127.0.0.1");
                    assertThat(dump.port()).isEqualTo(4400);
                    assertThat(dump.maxConnections()).isEqualTo(5);
                    assertThat(dump.authTimeout()).isEqualTo(Duration.ofMillis(500));
                    assertThat(dump.idleTimeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(dump.cacheBytes()).isZero();
                    assertThat(dump.subscriberBufferBytes()).isEqualTo(256 * 1024);
                    assertThat(dump.checksums()).isEqualTo(io.tributary.storage.binlog.ChecksumPolicy.EVERY_READ);
                    assertThat(dump.tlsEnabled()).isFalse();
                    assertThat(dump.users()).extracting(DumpUser::name, DumpUser::admin)
                            .containsExactly(org.assertj.core.groups.Tuple.tuple("repl", true),
                                    org.assertj.core.groups.Tuple.tuple("reader", false));
                    // only SHA1(SHA1(pw)) and SHA256(SHA256(pw)) are kept, as MySQL keeps them
                    DumpUser repl = dump.users().get(0);
                    byte[] pw = "repl-secret".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    assertThat(repl.nativeHash()).isEqualTo(digest("SHA-1", digest("SHA-1", pw)));
                    assertThat(repl.sha2Hash()).isEqualTo(digest("SHA-256", digest("SHA-256", pw)));
                    assertThat(dump.toString()).doesNotContain("repl-secret").doesNotContain("other-secret");
                    assertThat(config.naming().table("t_order_2024_01")).isEqualTo("t_order_2024");
                    assertThat(config.naming().table("orders_0007")).as("trailing digits kept").isEqualTo("orders_0007");
                    assertThat(config.naming().database("shop_03")).isEqualTo("shop");
                });
    }

    @Test
    void shouldRefuseBadDumpAndNamingKeysListingEveryOne() {
        runner.withPropertyValues(ONE_SHARD)
                .withPropertyValues("dump.maxConnections=0", "dump.idleTimeout=forever", "dump.authTimeout=2h",
                        "dump.subscriber.buffer=1KB", "dump.cache.size=lots", "dump.checksums=never", "dump.tls.certificate=/no/such/cert.pem",
                        "dump.users[0].admin=maybe", "dump.users[1].name=repl", "dump.users[1].password=x",
                        "dump.users[2].name=nopass", "dump.users[3].name=", "dump.users[3].password=", "dump.prot=3400",
                        "cdc.naming.strip-trailing-digits=yes", "cdc.naming.rules[0].scope=column",
                        "cdc.naming.rules[0].pattern=(", "cdc.naming.rules[1].scope=table",
                        "cdc.naming.rules[1].pattern=t_(\\d+)", "cdc.naming.rules[1].replacement=t_$2")
                .run(context -> {
                    ConfigurationException e = rootCause(context.getStartupFailure());
                    assertThat(e.problems()).contains(
                            "Invalid value 0 for configuration dump.maxConnections: must be between 1 and 100000",
                            "Invalid value forever for configuration dump.idleTimeout: not a duration (e.g. 500ms, 10s, 5m, 8h, 1d, PT8H)",
                            "Invalid value 2h for configuration dump.authTimeout: must be between 100ms and 1h",
                            "Invalid value 1KB for configuration dump.subscriber.buffer: must be between 64KB and 1GB",
                            "Invalid value never for configuration dump.checksums: must be first-read or every-read",
                            "Invalid value null for configuration dump.tls.key: dump.tls.certificate and dump.tls.key go together; give both or neither",
                            "Invalid value maybe for configuration dump.users[0].admin: must be true or false",
                            "Invalid value repl for configuration dump.users[1].name: another dump user already has this name",
                            "Invalid value null for configuration dump.users[2].password: a password (or password-env naming an environment variable) is required",
                            "Invalid value  for configuration dump.users[3].name: an account name is required",
                            "Invalid value (empty) for configuration dump.users[3].password: an empty password is not accepted",
                            "Invalid value yes for configuration cdc.naming.strip-trailing-digits: must be true or false",
                            "Invalid value column for configuration cdc.naming.rules[0].scope: must be database or table",
                            "Invalid value t_$2 for configuration cdc.naming.rules[1].replacement: refers to group $2 but the pattern has 1 group(s)");
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value lots for configuration dump.cache.size:"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value /no/such/cert.pem for configuration dump.tls.certificate: no readable file"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value 3400 for configuration dump.prot: unknown key (known: "));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value ( for configuration cdc.naming.rules[0].pattern: not a regular expression"));
                    assertThat(e.problems()).anySatisfy(p -> assertThat(p)
                            .startsWith("Invalid value null for configuration cdc.naming.rules[0].replacement: the logical name is required"));
                    assertThat(e.problems()).hasSize(19);
                });
    }

    private static byte[] digest(String algorithm, byte[] in) throws Exception {
        return java.security.MessageDigest.getInstance(algorithm).digest(in);
    }

    @Test
    void shouldRefuseToStartWithoutShards() {
        runner.withPropertyValues(java.util.Arrays.copyOfRange(ONE_SHARD, 5, 7)).run(context -> assertThat(
                rootCause(context.getStartupFailure()).problems()).containsExactly(
                "Invalid value (none) for configuration cdc.shards: at least one shard is required:"
                        + " cdc.shards[0].host, .port, .user, .password"));
    }

    @Test
    void shouldResolveAPasswordFromTheEnvironmentVariableItNames() {
        var env = new org.springframework.mock.env.MockEnvironment();
        Map.of("cdc.shards[0].host", "h", "cdc.shards[0].user", "u", "cdc.shards[0].password-env", "SHARD0_PW",
                "dump.users[0].name", "repl", "dump.users[0].password-env", "REPL_PW").forEach(env::setProperty);
        TributaryConfig config = new TributaryConfigLoader(env, name -> name.equals("SHARD0_PW") ? "from-env"
                : name.equals("REPL_PW") ? "repl-from-env" : null).load();
        assertThat(config.shards().get(0).password()).isEqualTo("from-env");
        assertThat(config.dump().users().get(0)).isEqualTo(DumpUser.withPassword("repl", "repl-from-env"));
    }

    private static ConfigurationException rootCause(Throwable t) {
        Throwable c = t;
        while (c != null && !(c instanceof ConfigurationException)) {
            c = c.getCause();
        }
        assertThat(c).as("a ConfigurationException in %s", t).isNotNull();
        return (ConfigurationException) c;
    }
}
